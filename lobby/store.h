// What the lobby keeps: rooms (sessions players can find and join) and the relay servers
// that host them. One interface, two backends: SQLite (a file, zero set-up, the default)
// and PostgreSQL (a URL; several lobby processes sharing one database behave as one
// service). Both run the same versioned schema migrations and pass the same tests.
//
// Times are milliseconds since the Unix epoch, passed in by the caller (the store never
// reads a clock: tests drive expiry). Secrets never enter the store in clear: room
// passwords and host tokens arrive already hashed (lobby/secrets.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netplay/base/result.h"

namespace framelock::lobby {

struct Room {
    std::string id;    // 32 hex digits, random
    std::string code;  // short join code players type: 6 of "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    std::string host_name;
    std::string game_name;
    std::string content_hash;  // 16 hex digits
    std::string core_name;
    std::string core_version;
    std::string mode;  // "framelock", "nowait" or "rollback"
    int players = 0;   // playing now
    int slots = 2;     // player slots
    int spectators = 0;
    bool has_password = false;
    std::string region;          // free text a host picks ("eu-west", "home"), may be empty
    std::string server_address;  // "host:port" the players connect to
    std::string server_id;       // the relay server hosting it ("" when the host runs its own)
    // The key of the server at server_address (netplay/crypto/server_identity.h, as text):
    // joiners join only the server holding it.
    std::string server_key;
    // The host's round trips to the relays it probed, as {"server_id": ms, ...} text ("" =
    // none; lobby/relay_choice.h). Not in the API's room JSON.
    std::string host_probes;
    int fps_milli = 60'000;  // the host core's frame rate, thousandths of a frame per second
    std::int64_t created_ms = 0;
    std::int64_t updated_ms = 0;  // last create/heartbeat/update
    std::int64_t expires_ms = 0;  // gone from lists after this unless heartbeated

    friend bool operator==(const Room&, const Room&) = default;
};

// A room as stored: with the hashes of its password ("" = none) and of its host's token.
struct StoredRoom {
    Room room;
    std::string password_hash;
    std::string token_hash;

    friend bool operator==(const StoredRoom&, const StoredRoom&) = default;
};

struct RoomFilter {
    std::optional<std::string> game;  // exact game_name
    std::optional<std::string> core;  // exact core_name
    std::optional<std::string> mode;
    bool has_slots = false;  // players < slots only
    int limit = 100;         // at most this many, newest first (the caller caps it)
    int offset = 0;          // a negative limit or offset reads as 0
};

struct RelayServer {
    std::string id;       // 32 hex digits, random
    std::string address;  // "host:port" of its first session port
    std::string region;
    std::string server_key;  // its sessions' key (netplay/crypto/server_identity.h, as text)
    int capacity = 0;        // sessions it can run
    int load = 0;            // sessions it runs now
    std::int64_t updated_ms = 0;
    std::int64_t expires_ms = 0;
    std::string token_hash;

    friend bool operator==(const RelayServer&, const RelayServer&) = default;
};

class LobbyStore {
  public:
    virtual ~LobbyStore() = default;

    // Brings the schema to the newest version (idempotent; safe from several processes).
    virtual Status migrate() = 0;
    // The newest migration applied: 0 before the first, -1 when the database cannot be read.
    virtual int schema_version() = 0;

    // kConfig error when the id or code is taken (the caller retries with new ones).
    virtual Status create_room(const StoredRoom& room) = 0;
    // A live room (expires_ms > now) by id or by code.
    virtual Result<std::optional<StoredRoom>> get_room(const std::string& id_or_code,
                                                       std::int64_t now_ms) = 0;
    // Replaces the room's mutable fields (players, slots, spectators, game/host names,
    // region, server address, updated/expires times: lobby/record_fields.h marks them);
    // false when no such live room. The server address only while the room is still on
    // `room.server_id` (the relay the caller read): a room that move_room() moved meanwhile
    // keeps its new address.
    virtual Result<bool> update_room(const Room& room, std::int64_t now_ms) = 0;
    // Moves a live room from relay `from_server_id` to `to` (its address, id and key); false
    // when there is no such live room or it is no longer on `from_server_id` (moved meanwhile).
    virtual Result<bool> move_room(const std::string& id, const std::string& from_server_id,
                                   const RelayServer& to, std::int64_t now_ms) = 0;
    virtual Result<bool> heartbeat_room(const std::string& id, std::int64_t now_ms,
                                        std::int64_t expires_ms) = 0;
    virtual Result<bool> delete_room(const std::string& id) = 0;
    virtual Result<std::vector<Room>> list_rooms(const RoomFilter& filter, std::int64_t now_ms) = 0;
    virtual Result<std::int64_t> count_rooms(std::int64_t now_ms) = 0;
    // Deletes rooms and servers that expired; returns how many rooms went.
    virtual Result<int> expire(std::int64_t now_ms) = 0;

    virtual Status upsert_server(const RelayServer& server) = 0;
    virtual Result<std::optional<RelayServer>> get_server(const std::string& id,
                                                          std::int64_t now_ms) = 0;
    virtual Result<std::vector<RelayServer>> list_servers(std::int64_t now_ms) = 0;
    // The live server with the most free capacity (load < capacity), if any.
    virtual Result<std::optional<RelayServer>> least_loaded_server(std::int64_t now_ms) = 0;
};

// "sqlite:PATH" or a bare path, "postgresql://..." / "postgres://...": the backend it names,
// connected (not yet migrated). kConfig error naming the URL when it cannot be opened.
// A store object may be shared by threads: each call leases a connection from the store's
// own small pool, so calls from several threads run at once.
Result<std::unique_ptr<LobbyStore>> open_store(const std::string& url);

// The URL as it may appear in logs and error messages: a password in it (user:PASSWORD@
// or password=PASSWORD) is replaced by "***".
std::string redact_store_url(const std::string& url);

}  // namespace framelock::lobby
