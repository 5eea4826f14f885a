#include "frontend/lobby/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "frontend/lobby/schema.h"
#include "frontend/lobby/store_rows.h"

namespace framelock::lobby {
namespace {

// How long a call waits for another connection's write lock before failing. Writes are
// single short statements, so anything near this means the file is stuck, not busy.
constexpr int kBusyTimeoutMs = 5000;

using rows::kRoomColumns;
using rows::kServerColumns;
using rows::Param;

// A cached prepared statement in use. Resetting it when the scope ends matters beyond
// tidiness: a statement left mid-result keeps its read transaction open, which would pin
// the WAL and block checkpoints.
class Statement {
  public:
    explicit Statement(sqlite3_stmt* stmt) : m_stmt(stmt) {}
    ~Statement() {
        if (m_stmt) {
            sqlite3_reset(m_stmt);
            sqlite3_clear_bindings(m_stmt);
        }
    }
    Statement(Statement&& other) noexcept
        : m_stmt(std::exchange(other.m_stmt, nullptr)), m_rc(other.m_rc) {}
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    Statement& operator=(Statement&&) = delete;

    // Values only ever reach SQLite through these: bound, never spliced into SQL text.
    void bind(int index, const std::string& value) {
        note(sqlite3_bind_text(m_stmt, index, value.data(), static_cast<int>(value.size()),
                               SQLITE_TRANSIENT));
    }
    void bind(int index, std::int64_t value) { note(sqlite3_bind_int64(m_stmt, index, value)); }
    void bind(int index, int value) { note(sqlite3_bind_int(m_stmt, index, value)); }
    void bind(int index, bool value) { note(sqlite3_bind_int(m_stmt, index, value ? 1 : 0)); }
    // A string literal would otherwise convert to bool, silently.
    void bind(int index, const char* value) = delete;
    void bind(int index, const Param& value) {
        std::visit([&](const auto& v) { bind(index, v); }, value);
    }
    template <class... Args>
    void bind_all(const Args&... args) {
        int index = 0;
        (bind(++index, args), ...);
    }

    // SQLITE_ROW, SQLITE_DONE or an error (a failed bind included).
    int step() { return m_rc != SQLITE_OK ? m_rc : sqlite3_step(m_stmt); }

    std::string text(int column) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
        const int n = sqlite3_column_bytes(m_stmt, column);
        return p ? std::string(p, static_cast<std::size_t>(n)) : std::string();
    }
    std::int64_t int64(int column) const { return sqlite3_column_int64(m_stmt, column); }
    int integer(int column) const { return sqlite3_column_int(m_stmt, column); }
    bool flag(int column) const { return integer(column) != 0; }

  private:
    void note(int rc) {
        if (m_rc == SQLITE_OK) m_rc = rc;
    }

    sqlite3_stmt* m_stmt;
    int m_rc = SQLITE_OK;
};

class SqliteStore final : public LobbyStore {
  public:
    SqliteStore(sqlite3* db, std::string url) : m_db(db), m_url(std::move(url)) {}
    ~SqliteStore() override {
        for (auto& entry : m_statements) sqlite3_finalize(entry.second);
        sqlite3_close_v2(m_db);
    }
    SqliteStore(const SqliteStore&) = delete;
    SqliteStore& operator=(const SqliteStore&) = delete;

    Status migrate() override {
        std::lock_guard lock(m_mutex);
        // IMMEDIATE takes the write lock up front: two processes starting on one file at
        // once then queue (busy timeout) instead of both reading version 0 and both
        // trying to create the tables.
        if (Status s = exec("BEGIN IMMEDIATE", "starting the migration"); !s) return s;
        Status result = migrate_locked();
        if (result) {
            result = exec("COMMIT", "committing the migration");
        }
        if (!result) sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
        return result;
    }

    int schema_version() override {
        std::lock_guard lock(m_mutex);
        auto version = current_version();
        return version ? version.value() : -1;
    }

    Status create_room(const StoredRoom& stored) override {
        std::lock_guard lock(m_mutex);
        auto s = prepare("INSERT INTO rooms (" + std::string(kRoomColumns) +
                         ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                         "?15, ?16, ?17, ?18, ?19, ?20)");
        if (!s) return s.error();
        const Room& r = stored.room;
        s.value().bind_all(r.id, r.code, r.host_name, r.game_name, r.content_hash, r.core_name,
                           r.core_version, r.mode, r.players, r.slots, r.spectators, r.has_password,
                           r.region, r.server_address, r.server_id, r.created_ms, r.updated_ms,
                           r.expires_ms, stored.password_hash, stored.token_hash);
        const int rc = s.value().step();
        if (rc == SQLITE_DONE) return {};
        const int extended = sqlite3_extended_errcode(m_db);
        if (extended == SQLITE_CONSTRAINT_PRIMARYKEY || extended == SQLITE_CONSTRAINT_UNIQUE) {
            return make_error(ErrorCode::kConfig, "lobby store '" + m_url + "': room id '" + r.id +
                                                      "' or code '" + r.code +
                                                      "' is already taken");
        }
        return db_error("creating a room");
    }

    Result<std::optional<StoredRoom>> get_room(const std::string& id_or_code,
                                               std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        // Ids and codes never look alike, but should one ever equal another room's code
        // the id wins: ids are what the API hands back after a create.
        auto s = prepare("SELECT " + std::string(kRoomColumns) +
                         " FROM rooms WHERE (id = ?1 OR code = ?1) AND expires_ms > ?2"
                         " ORDER BY id = ?1 DESC LIMIT 1");
        if (!s) return s.error();
        s.value().bind_all(id_or_code, now_ms);
        const int rc = s.value().step();
        if (rc == SQLITE_ROW) return std::optional<StoredRoom>(rows::read_room(s.value()));
        if (rc == SQLITE_DONE) return std::optional<StoredRoom>();
        return db_error("reading a room");
    }

    Result<bool> update_room(const Room& r, std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        auto s = prepare(
            "UPDATE rooms SET players = ?2, slots = ?3, spectators = ?4, game_name = ?5,"
            " host_name = ?6, region = ?7, server_address = ?8, updated_ms = ?9,"
            " expires_ms = ?10 WHERE id = ?1 AND expires_ms > ?11");
        if (!s) return s.error();
        s.value().bind_all(r.id, r.players, r.slots, r.spectators, r.game_name, r.host_name,
                           r.region, r.server_address, r.updated_ms, r.expires_ms, now_ms);
        return changed(s.value(), "updating a room");
    }

    Result<bool> heartbeat_room(const std::string& id, std::int64_t now_ms,
                                std::int64_t expires_ms) override {
        std::lock_guard lock(m_mutex);
        // Only a live room: one that lapsed is gone for the players already, and bringing
        // it back would depend on whether expire() happened to run in between.
        auto s = prepare(
            "UPDATE rooms SET updated_ms = ?2, expires_ms = ?3 WHERE id = ?1 AND expires_ms > ?2");
        if (!s) return s.error();
        s.value().bind_all(id, now_ms, expires_ms);
        return changed(s.value(), "heartbeating a room");
    }

    Result<bool> delete_room(const std::string& id) override {
        std::lock_guard lock(m_mutex);
        auto s = prepare("DELETE FROM rooms WHERE id = ?1");
        if (!s) return s.error();
        s.value().bind_all(id);
        return changed(s.value(), "deleting a room");
    }

    Result<std::vector<Room>> list_rooms(const RoomFilter& filter, std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        // Each shape of the query is prepared once and cached like the other statements.
        const rows::RoomListQuery query = rows::room_list_query(filter, now_ms, '?');
        auto s = prepare(query.sql);
        if (!s) return s.error();
        for (std::size_t i = 0; i < query.params.size(); ++i) {
            s.value().bind(static_cast<int>(i + 1), query.params[i]);
        }
        std::vector<Room> rooms;
        int rc;
        while ((rc = s.value().step()) == SQLITE_ROW)
            rooms.push_back(rows::read_room(s.value()).room);
        if (rc != SQLITE_DONE) return db_error("listing rooms");
        return rooms;
    }

    Result<std::int64_t> count_rooms(std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        auto s = prepare("SELECT COUNT(*) FROM rooms WHERE expires_ms > ?1");
        if (!s) return s.error();
        s.value().bind_all(now_ms);
        if (s.value().step() != SQLITE_ROW) return db_error("counting rooms");
        return s.value().int64(0);
    }

    Result<int> expire(std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        // One transaction: a reader never sees the servers gone but their rooms still
        // there.
        if (Status s = exec("BEGIN IMMEDIATE", "expiring"); !s) return s.error();
        auto result = expire_locked(now_ms);
        if (result) {
            if (Status s = exec("COMMIT", "expiring"); !s) result = s.error();
        }
        if (!result) sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
        return result;
    }

    Status upsert_server(const RelayServer& server) override {
        std::lock_guard lock(m_mutex);
        auto s = prepare("INSERT INTO servers (" + std::string(kServerColumns) +
                         ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
                         " ON CONFLICT (id) DO UPDATE SET address = excluded.address,"
                         " region = excluded.region, capacity = excluded.capacity,"
                         " load = excluded.load, updated_ms = excluded.updated_ms,"
                         " expires_ms = excluded.expires_ms, token_hash = excluded.token_hash");
        if (!s) return s.error();
        s.value().bind_all(server.id, server.address, server.region, server.capacity, server.load,
                           server.updated_ms, server.expires_ms, server.token_hash);
        if (s.value().step() != SQLITE_DONE) return db_error("storing a relay server");
        return {};
    }

    Result<std::optional<RelayServer>> get_server(const std::string& id,
                                                  std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        auto s = prepare("SELECT " + std::string(kServerColumns) +
                         " FROM servers WHERE id = ?1 AND expires_ms > ?2");
        if (!s) return s.error();
        s.value().bind_all(id, now_ms);
        return one_server(s.value(), "reading a relay server");
    }

    Result<std::vector<RelayServer>> list_servers(std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        auto s = prepare("SELECT " + std::string(kServerColumns) +
                         " FROM servers WHERE expires_ms > ?1 ORDER BY id");
        if (!s) return s.error();
        s.value().bind_all(now_ms);
        std::vector<RelayServer> servers;
        int rc;
        while ((rc = s.value().step()) == SQLITE_ROW)
            servers.push_back(rows::read_server(s.value()));
        if (rc != SQLITE_DONE) return db_error("listing relay servers");
        return servers;
    }

    Result<std::optional<RelayServer>> least_loaded_server(std::int64_t now_ms) override {
        std::lock_guard lock(m_mutex);
        // Ties go to the less busy server, then to a stable order so callers are
        // reproducible.
        auto s = prepare("SELECT " + std::string(kServerColumns) +
                         " FROM servers WHERE expires_ms > ?1 AND load < capacity"
                         " ORDER BY capacity - load DESC, load ASC, id ASC LIMIT 1");
        if (!s) return s.error();
        s.value().bind_all(now_ms);
        return one_server(s.value(), "choosing a relay server");
    }

  private:
    Status migrate_locked() {
        if (Status s = exec(std::string(kMigrationsTableSql), "creating schema_migrations"); !s) {
            return s;
        }
        auto current = current_version();
        if (!current) return current.error();
        const int newest = newest_schema_version();
        if (current.value() > newest) {
            // A newer lobby migrated this file; running old code against it could
            // misread or clobber what the new columns mean.
            return make_error(ErrorCode::kConfig,
                              "lobby store '" + m_url + "': the database is at schema version " +
                                  std::to_string(current.value()) + ", newer than this lobby's " +
                                  std::to_string(newest) + " (upgrade the lobby)");
        }
        for (const Migration& m : schema_migrations()) {
            if (m.version <= current.value()) continue;
            for (std::string_view statement : m.statements) {
                const std::string what = "migrating to schema version " + std::to_string(m.version);
                if (Status s = exec(std::string(statement), what); !s) return s;
            }
            auto s =
                prepare("INSERT INTO schema_migrations (version, description) VALUES (?1, ?2)");
            if (!s) return s.error();
            s.value().bind_all(m.version, std::string(m.description));
            if (s.value().step() != SQLITE_DONE) return db_error("recording a migration");
        }
        return {};
    }

    // 0 when no migration ever ran (no schema_migrations table yet).
    Result<int> current_version() {
        auto exists = prepare(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = "
            "'schema_migrations'");
        if (!exists) return exists.error();
        if (exists.value().step() != SQLITE_ROW) return db_error("reading the schema version");
        if (exists.value().integer(0) == 0) return 0;
        auto s = prepare("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
        if (!s) return s.error();
        if (s.value().step() != SQLITE_ROW) return db_error("reading the schema version");
        return s.value().integer(0);
    }

    Result<int> expire_locked(std::int64_t now_ms) {
        auto rooms = prepare("DELETE FROM rooms WHERE expires_ms <= ?1");
        if (!rooms) return rooms.error();
        rooms.value().bind_all(now_ms);
        if (rooms.value().step() != SQLITE_DONE) return db_error("expiring rooms");
        const int gone = sqlite3_changes(m_db);
        auto servers = prepare("DELETE FROM servers WHERE expires_ms <= ?1");
        if (!servers) return servers.error();
        servers.value().bind_all(now_ms);
        if (servers.value().step() != SQLITE_DONE) return db_error("expiring relay servers");
        return gone;
    }

    Result<bool> changed(Statement& s, const char* what) {
        if (s.step() != SQLITE_DONE) return db_error(what);
        return sqlite3_changes(m_db) > 0;
    }

    Result<std::optional<RelayServer>> one_server(Statement& s, const char* what) {
        const int rc = s.step();
        if (rc == SQLITE_ROW) return std::optional<RelayServer>(rows::read_server(s));
        if (rc == SQLITE_DONE) return std::optional<RelayServer>();
        return db_error(what);
    }

    // The statement for `sql`, prepared on first use and kept for the connection's life
    // (SQLite re-prepares it by itself should the schema change underneath).
    Result<Statement> prepare(const std::string& sql) {
        auto it = m_statements.find(sql);
        if (it == m_statements.end()) {
            sqlite3_stmt* stmt = nullptr;
            if (sqlite3_prepare_v3(m_db, sql.c_str(), static_cast<int>(sql.size() + 1),
                                   SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK) {
                return db_error("preparing a statement");
            }
            it = m_statements.emplace(sql, stmt).first;
        }
        return Statement(it->second);
    }

    // For statements without values only (transaction control, the schema).
    Status exec(const std::string& sql, const std::string& what) {
        if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
            return db_error(what);
        }
        return {};
    }

    Error db_error(const std::string& what) const {
        return make_error(ErrorCode::kIo,
                          "lobby store '" + m_url + "': " + what + ": " + sqlite3_errmsg(m_db));
    }

    std::mutex m_mutex;  // one connection: calls from several threads take turns
    sqlite3* m_db;
    std::string m_url;
    std::unordered_map<std::string, sqlite3_stmt*> m_statements;
};

}  // namespace

Result<std::unique_ptr<LobbyStore>> open_sqlite_store(const std::string& path,
                                                      const std::string& url) {
    const std::string shown = redact_store_url(url);
    sqlite3* db = nullptr;
    // NOMUTEX: the store's own mutex already serialises every use of the connection.
    const int rc =
        sqlite3_open_v2(path.c_str(), &db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    auto fail = [&](const std::string& what) -> Error {
        std::string message = "lobby store '" + shown + "': " + what;
        if (db) message += std::string(": ") + sqlite3_errmsg(db);
        sqlite3_close_v2(db);
        return make_error(ErrorCode::kConfig, message);
    };
    if (rc != SQLITE_OK) return fail("cannot open the database file");
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, kBusyTimeoutMs);
    // WAL: lists and gets (most of the traffic) read a snapshot while a heartbeat writes.
    // synchronous=NORMAL is safe with WAL (an application crash loses nothing; a power
    // cut may lose the last commits, which for rooms that heartbeat anyway is harmless).
    // Also the first statement to read the file, so "not a database" shows up here.
    if (sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr) != SQLITE_OK) {
        return fail("cannot switch to the WAL journal");
    }
    if (sqlite3_exec(db, "PRAGMA synchronous = NORMAL", nullptr, nullptr, nullptr) != SQLITE_OK) {
        return fail("cannot set synchronous mode");
    }
    return std::unique_ptr<LobbyStore>(std::make_unique<SqliteStore>(db, shown));
}

}  // namespace framelock::lobby
