#include "frontend/lobby/pg_store.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <pqxx/pqxx>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "frontend/lobby/schema.h"
#include "frontend/lobby/store_rows.h"
#include "frontend/lobby/store_url.h"

namespace framelock::lobby {
namespace {

// Key of the advisory lock migrations hold: any constant works as long as every lobby
// uses the same one and nothing else in the database does ("FLlobby1" in ASCII).
constexpr std::int64_t kMigrationLockKey = 0x464c6c6f62627931;

using rows::kRoomColumns;
using rows::kServerColumns;

// libpq's messages end in a newline and sometimes hold a second line of hints; errors
// here are one line each.
std::string one_line(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    for (char& c : text) {
        if (c == '\n' || c == '\t') c = ' ';
    }
    return text;
}

// The accessor rows::read_room() and read_server() read a libpqxx row through.
struct PgRow {
    const pqxx::row& row;
    std::string text(int i) const { return row[i].as<std::string>(); }
    int integer(int i) const { return row[i].as<int>(); }
    std::int64_t int64(int i) const { return row[i].as<std::int64_t>(); }
    bool flag(int i) const { return row[i].as<bool>(); }
};

StoredRoom read_room(const pqxx::row& row) {
    return rows::read_room(PgRow{row});
}
RelayServer read_server(const pqxx::row& row) {
    return rows::read_server(PgRow{row});
}

// The fixed statements, prepared on the server once per connection (pqxx prepares each
// on first use and again by itself after a reconnect).
struct Prepared {
    const char* name;
    std::string sql;
};

const std::vector<Prepared>& prepared_statements() {
    static const std::vector<Prepared> statements = {
        {"create_room", "INSERT INTO rooms (" + std::string(kRoomColumns) +
                            ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, "
                            "$14, $15, $16, $17, $18, $19, $20)"},
        // Ids and codes never look alike, but should one ever equal another room's code
        // the id wins: ids are what the API hands back after a create.
        {"get_room", "SELECT " + std::string(kRoomColumns) +
                         " FROM rooms WHERE (id = $1 OR code = $1) AND expires_ms > $2"
                         " ORDER BY id = $1 DESC LIMIT 1"},
        {"update_room",
         "UPDATE rooms SET players = $2, slots = $3, spectators = $4, game_name = $5,"
         " host_name = $6, region = $7, server_address = $8, updated_ms = $9,"
         " expires_ms = $10 WHERE id = $1 AND expires_ms > $11"},
        // Only a live room: one that lapsed is gone for the players already, and bringing
        // it back would depend on whether expire() happened to run in between.
        {"heartbeat_room",
         "UPDATE rooms SET updated_ms = $2, expires_ms = $3 WHERE id = $1 AND expires_ms > $2"},
        {"delete_room", "DELETE FROM rooms WHERE id = $1"},
        {"count_rooms", "SELECT COUNT(*) FROM rooms WHERE expires_ms > $1"},
        {"expire_rooms", "DELETE FROM rooms WHERE expires_ms <= $1"},
        {"expire_servers", "DELETE FROM servers WHERE expires_ms <= $1"},
        {"upsert_server", "INSERT INTO servers (" + std::string(kServerColumns) +
                              ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
                              " ON CONFLICT (id) DO UPDATE SET address = excluded.address,"
                              " region = excluded.region, capacity = excluded.capacity,"
                              " load = excluded.load, updated_ms = excluded.updated_ms,"
                              " expires_ms = excluded.expires_ms,"
                              " token_hash = excluded.token_hash"},
        {"get_server", "SELECT " + std::string(kServerColumns) +
                           " FROM servers WHERE id = $1 AND expires_ms > $2"},
        {"list_servers", "SELECT " + std::string(kServerColumns) +
                             " FROM servers WHERE expires_ms > $1 ORDER BY id"},
        // Ties go to the less busy server, then to a stable order so callers are
        // reproducible.
        {"least_loaded_server", "SELECT " + std::string(kServerColumns) +
                                    " FROM servers WHERE expires_ms > $1 AND load < capacity"
                                    " ORDER BY capacity - load DESC, load ASC, id ASC LIMIT 1"},
    };
    return statements;
}

class PgStore final : public LobbyStore {
  public:
    PgStore(std::unique_ptr<pqxx::connection> connection, std::string url)
        : m_connection(std::move(connection)), m_url(std::move(url)) {
        for (const Prepared& p : prepared_statements()) m_connection->prepare(p.name, p.sql);
    }

    Status migrate() override {
        std::lock_guard lock(m_mutex);
        try {
            // Everything in one transaction behind a lock every lobby process takes:
            // processes starting together queue here, and the later ones find the
            // migrations done. The lock ends with the transaction, also on a crash.
            pqxx::work tx(*m_connection);
            tx.exec_params("SELECT pg_advisory_xact_lock($1)", kMigrationLockKey);
            tx.exec(std::string(kMigrationsTableSql));
            const int current = read_version(tx);
            const int newest = newest_schema_version();
            if (current > newest) {
                // A newer lobby migrated this database; running old code against it could
                // misread or clobber what the new columns mean.
                return make_error(ErrorCode::kConfig,
                                  "lobby store '" + m_url +
                                      "': the database is at schema version " +
                                      std::to_string(current) + ", newer than this lobby's " +
                                      std::to_string(newest) + " (upgrade the lobby)");
            }
            for (const Migration& m : schema_migrations()) {
                if (m.version <= current) continue;
                for (std::string_view statement : m.statements) tx.exec(std::string(statement));
                tx.exec_params(
                    "INSERT INTO schema_migrations (version, description) VALUES ($1, $2)",
                    m.version, std::string(m.description));
            }
            tx.commit();
            return {};
        } catch (const std::exception& e) {
            return db_error("migrating the schema", e);
        }
    }

    int schema_version() override {
        std::lock_guard lock(m_mutex);
        try {
            pqxx::nontransaction tx(*m_connection);
            // to_regclass: NULL instead of an error when the table is not there yet.
            const pqxx::row exists =
                tx.exec1("SELECT to_regclass('schema_migrations') IS NOT NULL");
            if (!exists[0].as<bool>()) return 0;
            return read_version(tx);
        } catch (const std::exception&) {
            return -1;
        }
    }

    Status create_room(const StoredRoom& stored) override {
        std::lock_guard lock(m_mutex);
        const Room& r = stored.room;
        try {
            pqxx::nontransaction tx(*m_connection);
            tx.exec_prepared("create_room", r.id, r.code, r.host_name, r.game_name, r.content_hash,
                             r.core_name, r.core_version, r.mode, r.players, r.slots, r.spectators,
                             r.has_password, r.region, r.server_address, r.server_id, r.created_ms,
                             r.updated_ms, r.expires_ms, stored.password_hash, stored.token_hash);
            return {};
        } catch (const pqxx::unique_violation&) {
            return make_error(ErrorCode::kConfig, "lobby store '" + m_url + "': room id '" + r.id +
                                                      "' or code '" + r.code +
                                                      "' is already taken");
        } catch (const std::exception& e) {
            return db_error("creating a room", e);
        }
    }

    Result<std::optional<StoredRoom>> get_room(const std::string& id_or_code,
                                               std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        try {
            pqxx::nontransaction tx(*m_connection);
            const pqxx::result rows = tx.exec_prepared("get_room", id_or_code, now_ms);
            if (rows.empty()) return std::optional<StoredRoom>();
            return std::optional<StoredRoom>(read_room(rows[0]));
        } catch (const std::exception& e) {
            return db_error("reading a room", e);
        }
    }

    Result<bool> update_room(const Room& r, std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        try {
            pqxx::nontransaction tx(*m_connection);
            const pqxx::result done = tx.exec_prepared(
                "update_room", r.id, r.players, r.slots, r.spectators, r.game_name, r.host_name,
                r.region, r.server_address, r.updated_ms, r.expires_ms, now_ms);
            return done.affected_rows() > 0;
        } catch (const std::exception& e) {
            return db_error("updating a room", e);
        }
    }

    Result<bool> heartbeat_room(const std::string& id, std::int64_t now_ms,
                                std::int64_t expires_ms) override {
        std::lock_guard lock(m_mutex);
        try {
            pqxx::nontransaction tx(*m_connection);
            return tx.exec_prepared("heartbeat_room", id, now_ms, expires_ms).affected_rows() > 0;
        } catch (const std::exception& e) {
            return db_error("heartbeating a room", e);
        }
    }

    Result<bool> delete_room(const std::string& id) override {
        std::lock_guard lock(m_mutex);
        try {
            pqxx::nontransaction tx(*m_connection);
            return tx.exec_prepared("delete_room", id).affected_rows() > 0;
        } catch (const std::exception& e) {
            return db_error("deleting a room", e);
        }
    }

    Result<std::vector<Room>> list_rooms(const RoomFilter& filter, std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        // Sent unnamed, so the planner sees the actual values and can pick the index that
        // suits the filter.
        const rows::RoomListQuery query = rows::room_list_query(filter, now_ms, '$');
        std::vector<std::string> params;
        for (const rows::Param& p : query.params) {
            params.push_back(std::visit(
                [](const auto& v) {
                    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>) {
                        return v;
                    } else {
                        return std::to_string(v);
                    }
                },
                p));
        }
        try {
            pqxx::nontransaction tx(*m_connection);
            const pqxx::result rows =
                tx.exec_params(query.sql, pqxx::prepare::make_dynamic_params(params));
            std::vector<Room> rooms;
            rooms.reserve(rows.size());
            for (const pqxx::row& row : rows) rooms.push_back(read_room(row).room);
            return rooms;
        } catch (const std::exception& e) {
            return db_error("listing rooms", e);
        }
    }

    Result<std::int64_t> count_rooms(std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        try {
            pqxx::nontransaction tx(*m_connection);
            return tx.exec_prepared1("count_rooms", now_ms)[0].as<std::int64_t>();
        } catch (const std::exception& e) {
            return db_error("counting rooms", e);
        }
    }

    Result<int> expire(std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        try {
            // One transaction: a reader never sees the servers gone but their rooms still
            // there.
            pqxx::work tx(*m_connection);
            const int gone =
                static_cast<int>(tx.exec_prepared("expire_rooms", now_ms).affected_rows());
            tx.exec_prepared("expire_servers", now_ms);
            tx.commit();
            return gone;
        } catch (const std::exception& e) {
            return db_error("expiring", e);
        }
    }

    Status upsert_server(const RelayServer& s) override {
        std::lock_guard lock(m_mutex);
        try {
            pqxx::nontransaction tx(*m_connection);
            tx.exec_prepared("upsert_server", s.id, s.address, s.region, s.capacity, s.load,
                             s.updated_ms, s.expires_ms, s.token_hash);
            return {};
        } catch (const std::exception& e) {
            return db_error("storing a relay server", e);
        }
    }

    Result<std::optional<RelayServer>> get_server(const std::string& id,
                                                  std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        try {
            pqxx::nontransaction tx(*m_connection);
            return one_server(tx.exec_prepared("get_server", id, now_ms));
        } catch (const std::exception& e) {
            return db_error("reading a relay server", e);
        }
    }

    Result<std::vector<RelayServer>> list_servers(std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        try {
            pqxx::nontransaction tx(*m_connection);
            const pqxx::result rows = tx.exec_prepared("list_servers", now_ms);
            std::vector<RelayServer> servers;
            servers.reserve(rows.size());
            for (const pqxx::row& row : rows) servers.push_back(read_server(row));
            return servers;
        } catch (const std::exception& e) {
            return db_error("listing relay servers", e);
        }
    }

    Result<std::optional<RelayServer>> least_loaded_server(std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        try {
            pqxx::nontransaction tx(*m_connection);
            return one_server(tx.exec_prepared("least_loaded_server", now_ms));
        } catch (const std::exception& e) {
            return db_error("choosing a relay server", e);
        }
    }

  private:
    static int read_version(pqxx::transaction_base& tx) {
        return tx.exec1("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")[0].as<int>();
    }

    static std::optional<RelayServer> one_server(const pqxx::result& rows) {
        if (rows.empty()) return std::nullopt;
        return read_server(rows[0]);
    }

    Error db_error(const std::string& what, const std::exception& e) const {
        return make_error(ErrorCode::kIo,
                          "lobby store '" + m_url + "': " + what + ": " + one_line(e.what()));
    }

    std::mutex m_mutex;  // one connection: calls from several threads take turns
    std::unique_ptr<pqxx::connection> m_connection;
    std::string m_url;
};

}  // namespace

Result<std::unique_ptr<LobbyStore>> open_pg_store(const std::string& url) {
    const std::string shown = redact_store_url(url);
    try {
        auto connection = std::make_unique<pqxx::connection>(url);
        return std::unique_ptr<LobbyStore>(std::make_unique<PgStore>(std::move(connection), shown));
    } catch (const std::exception& e) {
        std::string detail = one_line(e.what());
        // libpq quotes the offending part of a malformed URL ("invalid percent-encoded
        // token: ..."), which may be the password.
        for (const auto& [pos, len] : url_password_spans(url)) {
            const std::string secret = url.substr(pos, len);
            if (secret.empty()) continue;
            for (std::size_t at = detail.find(secret); at != std::string::npos;
                 at = detail.find(secret, at + 3)) {
                detail.replace(at, secret.size(), "***");
            }
        }
        return make_error(ErrorCode::kConfig,
                          "lobby store '" + shown + "': cannot connect: " + detail);
    }
}

}  // namespace framelock::lobby
