#include "lobby/schema.h"

namespace framelock::lobby {

const std::vector<Migration>& schema_migrations() {
    static const std::vector<Migration> migrations = {
        {1,
         "rooms and relay servers",
         {
             // Every column NOT NULL: the structs have no "unset" state, and a NULL that
             // compares false in a filter would hide a room instead of failing loudly.
             "CREATE TABLE rooms ("
             " id TEXT PRIMARY KEY,"
             " code TEXT NOT NULL UNIQUE,"
             " host_name TEXT NOT NULL,"
             " game_name TEXT NOT NULL,"
             " content_hash TEXT NOT NULL,"
             " core_name TEXT NOT NULL,"
             " core_version TEXT NOT NULL,"
             " mode TEXT NOT NULL,"
             " players INTEGER NOT NULL,"
             " slots INTEGER NOT NULL,"
             " spectators INTEGER NOT NULL,"
             " has_password BOOLEAN NOT NULL,"
             " region TEXT NOT NULL,"
             " server_address TEXT NOT NULL,"
             " server_id TEXT NOT NULL,"
             " created_ms BIGINT NOT NULL,"
             " updated_ms BIGINT NOT NULL,"
             " expires_ms BIGINT NOT NULL,"
             " password_hash TEXT NOT NULL,"
             " token_hash TEXT NOT NULL)",
             // expire() deletes by expiry; lists read newest first, optionally narrowed to
             // one game, core or mode, so each filter gets an index that also yields the
             // order.
             "CREATE INDEX rooms_expires ON rooms (expires_ms)",
             "CREATE INDEX rooms_created ON rooms (created_ms)",
             "CREATE INDEX rooms_game ON rooms (game_name, created_ms)",
             "CREATE INDEX rooms_core ON rooms (core_name, created_ms)",
             "CREATE INDEX rooms_mode ON rooms (mode, created_ms)",
             "CREATE TABLE servers ("
             " id TEXT PRIMARY KEY,"
             " address TEXT NOT NULL,"
             " region TEXT NOT NULL,"
             " capacity INTEGER NOT NULL,"
             " load INTEGER NOT NULL,"
             " updated_ms BIGINT NOT NULL,"
             " expires_ms BIGINT NOT NULL,"
             " token_hash TEXT NOT NULL)",
             "CREATE INDEX servers_expires ON servers (expires_ms)",
         }},
        {2,
         "rooms keep the host's relay probes and its core's frame rate",
         {
             // What the relay choice and the expected delay need (lobby/relay_choice.h). A
             // room of a lobby before this had neither: no probes, 60 fps.
             "ALTER TABLE rooms ADD COLUMN host_probes TEXT NOT NULL DEFAULT ''",
             "ALTER TABLE rooms ADD COLUMN fps_milli INTEGER NOT NULL DEFAULT 60000",
         }},
        {3,
         "rooms and relays keep the key of the server they play on",
         {
             // What a joiner checks the server against (netplay/crypto/server_identity.h).
             // A room or relay of a lobby before this has none: its joiners check nothing.
             "ALTER TABLE rooms ADD COLUMN server_key TEXT NOT NULL DEFAULT ''",
             "ALTER TABLE servers ADD COLUMN server_key TEXT NOT NULL DEFAULT ''",
         }},
    };
    return migrations;
}

int newest_schema_version() {
    return schema_migrations().back().version;
}

}  // namespace framelock::lobby
