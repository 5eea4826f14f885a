#include "lobby/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "lobby/connection_pool.h"
#include "lobby/schema.h"
#include "lobby/store_rows.h"

namespace framelock::lobby {
namespace {

// How long a call waits for another connection's write lock before failing. Writes are
// single short statements, so anything near this means the file is stuck, not busy.
constexpr int kBusyTimeoutMs = 5000;
// Connections a store opens at most: as many calls run at once, more wait for one. Beyond
// a few, parallel readers only share the same cores.
constexpr std::size_t kConnections = 8;

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

// One connection to the file and its prepared statements. Used by one caller at a time (the
// pool leases it out), so it needs no lock of its own.
class Connection {
  public:
    Connection(sqlite3* db, std::string url) : m_db(db), m_url(std::move(url)) {}
    ~Connection() {
        for (auto& entry : m_statements) sqlite3_finalize(entry.second);
        sqlite3_close_v2(m_db);
    }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

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
    // The statement of `query` with its values bound.
    Result<Statement> prepare(const rows::Query& query) {
        auto s = prepare(query.sql);
        if (!s) return s;
        for (std::size_t i = 0; i < query.params.size(); ++i) {
            s.value().bind(static_cast<int>(i + 1), query.params[i]);
        }
        return s;
    }

    // For statements without values only (transaction control, the schema).
    Status exec(const std::string& sql, const std::string& what) {
        if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
            return db_error(what);
        }
        return {};
    }
    void rollback() { sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr); }

    // Rows the last INSERT, UPDATE or DELETE on this connection changed.
    int changes() const { return sqlite3_changes(m_db); }
    int extended_errcode() const { return sqlite3_extended_errcode(m_db); }

    Error db_error(const std::string& what) const {
        return make_error(ErrorCode::kIo,
                          "lobby store '" + m_url + "': " + what + ": " + sqlite3_errmsg(m_db));
    }

  private:
    sqlite3* m_db;
    std::string m_url;
    std::unordered_map<std::string, sqlite3_stmt*> m_statements;
};

// A store on `connections` connections to one file: readers never wait for each other, nor
// (WAL) for a writer; writers queue on SQLite's own lock (the busy timeout).
class SqliteStore final : public LobbyStore {
  public:
    SqliteStore(std::unique_ptr<Connection> first, std::string url, std::size_t connections,
                ConnectionPool<Connection>::Opener open)
        : m_pool(std::move(first), connections, std::move(open)), m_url(std::move(url)) {}

    Status migrate() override {
        return with_connection([&](Connection& c) -> Status {
            // IMMEDIATE takes the write lock up front: two processes starting on one file
            // at once then queue (busy timeout) instead of both reading version 0 and both
            // trying to create the tables.
            if (Status s = c.exec("BEGIN IMMEDIATE", "starting the migration"); !s) return s;
            Status result = migrate_locked(c);
            if (result) result = c.exec("COMMIT", "committing the migration");
            if (!result) c.rollback();
            return result;
        });
    }

    int schema_version() override {
        auto version = with_connection([&](Connection& c) { return current_version(c); });
        return version ? version.value() : -1;
    }

    Status create_room(const StoredRoom& stored) override {
        return with_connection([&](Connection& c) -> Status {
            auto s = c.prepare(rows::insert(stored, "rooms", '?'));
            if (!s) return s.error();
            const Room& r = stored.room;
            const int rc = s.value().step();
            if (rc == SQLITE_DONE) return {};
            const int extended = c.extended_errcode();
            if (extended == SQLITE_CONSTRAINT_PRIMARYKEY || extended == SQLITE_CONSTRAINT_UNIQUE) {
                return make_error(ErrorCode::kConfig, "lobby store '" + m_url + "': room id '" +
                                                          r.id + "' or code '" + r.code +
                                                          "' is already taken");
            }
            return c.db_error("creating a room");
        });
    }

    Result<std::optional<StoredRoom>> get_room(const std::string& id_or_code,
                                               std::int64_t now_ms) override {
        return with_connection([&](Connection& c) -> Result<std::optional<StoredRoom>> {
            // Ids and codes never look alike, but should one ever equal another room's code
            // the id wins: ids are what the API hands back after a create.
            auto s = c.prepare(rows::select_all<StoredRoom>("rooms") +
                               " WHERE (id = ?1 OR code = ?1) AND expires_ms > ?2"
                               " ORDER BY id = ?1 DESC LIMIT 1");
            if (!s) return s.error();
            s.value().bind_all(id_or_code, now_ms);
            const int rc = s.value().step();
            if (rc == SQLITE_ROW)
                return std::optional<StoredRoom>(rows::read<StoredRoom>(s.value()));
            if (rc == SQLITE_DONE) return std::optional<StoredRoom>();
            return c.db_error("reading a room");
        });
    }

    Result<bool> update_room(const Room& r, std::int64_t now_ms) override {
        return change(rows::update_room(r, now_ms, '?'), "updating a room");
    }

    Result<bool> move_room(const std::string& id, const std::string& from_server_id,
                           const RelayServer& to, std::int64_t now_ms) override {
        return change(
            "UPDATE rooms SET server_address = ?3, server_id = ?4, server_key = ?6"
            " WHERE id = ?1 AND server_id = ?2 AND expires_ms > ?5",
            "moving a room", id, from_server_id, to.address, to.id, now_ms, to.server_key);
    }

    Result<bool> heartbeat_room(const std::string& id, std::int64_t now_ms,
                                std::int64_t expires_ms) override {
        // Only a live room: one that lapsed is gone for the players already, and bringing
        // it back would depend on whether expire() happened to run in between.
        return change(
            "UPDATE rooms SET updated_ms = ?2, expires_ms = ?3 WHERE id = ?1 AND expires_ms > ?2",
            "heartbeating a room", id, now_ms, expires_ms);
    }

    Result<bool> delete_room(const std::string& id) override {
        return change("DELETE FROM rooms WHERE id = ?1", "deleting a room", id);
    }

    Result<std::vector<Room>> list_rooms(const RoomFilter& filter, std::int64_t now_ms) override {
        return with_connection([&](Connection& c) -> Result<std::vector<Room>> {
            // Each shape of the query is prepared once and cached like the other statements.
            auto s = c.prepare(rows::room_list_query(filter, now_ms, '?'));
            if (!s) return s.error();
            std::vector<Room> rooms;
            int rc;
            while ((rc = s.value().step()) == SQLITE_ROW)
                rooms.push_back(rows::read<StoredRoom>(s.value()).room);
            if (rc != SQLITE_DONE) return c.db_error("listing rooms");
            return rooms;
        });
    }

    Result<std::int64_t> count_rooms(std::int64_t now_ms) override {
        return with_connection([&](Connection& c) -> Result<std::int64_t> {
            auto s = c.prepare("SELECT COUNT(*) FROM rooms WHERE expires_ms > ?1");
            if (!s) return s.error();
            s.value().bind_all(now_ms);
            if (s.value().step() != SQLITE_ROW) return c.db_error("counting rooms");
            return s.value().int64(0);
        });
    }

    Result<int> expire(std::int64_t now_ms) override {
        return with_connection([&](Connection& c) -> Result<int> {
            // One transaction: a reader never sees the servers gone but their rooms still
            // there.
            if (Status s = c.exec("BEGIN IMMEDIATE", "expiring"); !s) return s.error();
            auto result = expire_locked(c, now_ms);
            if (result) {
                if (Status s = c.exec("COMMIT", "expiring"); !s) result = s.error();
            }
            if (!result) c.rollback();
            return result;
        });
    }

    Status upsert_server(const RelayServer& server) override {
        return with_connection([&](Connection& c) -> Status {
            auto s = c.prepare(rows::upsert_server(server, '?'));
            if (!s) return s.error();
            if (s.value().step() != SQLITE_DONE) return c.db_error("storing a relay server");
            return {};
        });
    }

    Result<std::optional<RelayServer>> get_server(const std::string& id,
                                                  std::int64_t now_ms) override {
        return one_server(
            rows::select_all<RelayServer>("servers") + " WHERE id = ?1 AND expires_ms > ?2",
            "reading a relay server", id, now_ms);
    }

    Result<std::vector<RelayServer>> list_servers(std::int64_t now_ms) override {
        return with_connection([&](Connection& c) -> Result<std::vector<RelayServer>> {
            auto s = c.prepare(rows::select_all<RelayServer>("servers") +
                               " WHERE expires_ms > ?1 ORDER BY id");
            if (!s) return s.error();
            s.value().bind_all(now_ms);
            std::vector<RelayServer> servers;
            int rc;
            while ((rc = s.value().step()) == SQLITE_ROW)
                servers.push_back(rows::read<RelayServer>(s.value()));
            if (rc != SQLITE_DONE) return c.db_error("listing relay servers");
            return servers;
        });
    }

    Result<std::optional<RelayServer>> least_loaded_server(std::int64_t now_ms) override {
        // Ties go to the less busy server, then to a stable order so callers are
        // reproducible.
        return one_server(rows::select_all<RelayServer>("servers") +
                              " WHERE expires_ms > ?1 AND load < capacity"
                              " ORDER BY capacity - load DESC, load ASC, id ASC LIMIT 1",
                          "choosing a relay server", now_ms);
    }

  private:
    // `body(connection)` on a connection leased for the call; its result, or why no
    // connection could be had.
    template <class Body>
    auto with_connection(Body&& body) -> decltype(body(std::declval<Connection&>())) {
        auto lease = m_pool.acquire();
        if (!lease) return lease.error();
        return body(*lease.value());
    }

    // An INSERT, UPDATE or DELETE of `args`: whether it changed a row.
    template <class... Args>
    Result<bool> change(const std::string& sql, const char* what, const Args&... args) {
        return with_connection([&](Connection& c) -> Result<bool> {
            auto s = c.prepare(sql);
            if (!s) return s.error();
            s.value().bind_all(args...);
            return changed(c, s.value(), what);
        });
    }
    Result<bool> change(const rows::Query& query, const char* what) {
        return with_connection([&](Connection& c) -> Result<bool> {
            auto s = c.prepare(query);
            if (!s) return s.error();
            return changed(c, s.value(), what);
        });
    }
    static Result<bool> changed(Connection& c, Statement& s, const char* what) {
        if (s.step() != SQLITE_DONE) return c.db_error(what);
        return c.changes() > 0;
    }

    template <class... Args>
    Result<std::optional<RelayServer>> one_server(const std::string& sql, const char* what,
                                                  const Args&... args) {
        return with_connection([&](Connection& c) -> Result<std::optional<RelayServer>> {
            auto s = c.prepare(sql);
            if (!s) return s.error();
            s.value().bind_all(args...);
            const int rc = s.value().step();
            if (rc == SQLITE_ROW)
                return std::optional<RelayServer>(rows::read<RelayServer>(s.value()));
            if (rc == SQLITE_DONE) return std::optional<RelayServer>();
            return c.db_error(what);
        });
    }

    Status migrate_locked(Connection& c) {
        if (Status s = c.exec(std::string(kMigrationsTableSql), "creating schema_migrations"); !s) {
            return s;
        }
        auto current = current_version(c);
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
                if (Status s = c.exec(std::string(statement), what); !s) return s;
            }
            auto s =
                c.prepare("INSERT INTO schema_migrations (version, description) VALUES (?1, ?2)");
            if (!s) return s.error();
            s.value().bind_all(m.version, std::string(m.description));
            if (s.value().step() != SQLITE_DONE) return c.db_error("recording a migration");
        }
        return {};
    }

    // 0 when no migration ever ran (no schema_migrations table yet).
    static Result<int> current_version(Connection& c) {
        auto exists = c.prepare(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = "
            "'schema_migrations'");
        if (!exists) return exists.error();
        if (exists.value().step() != SQLITE_ROW) return c.db_error("reading the schema version");
        if (exists.value().integer(0) == 0) return 0;
        auto s = c.prepare("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
        if (!s) return s.error();
        if (s.value().step() != SQLITE_ROW) return c.db_error("reading the schema version");
        return s.value().integer(0);
    }

    static Result<int> expire_locked(Connection& c, std::int64_t now_ms) {
        auto rooms = c.prepare("DELETE FROM rooms WHERE expires_ms <= ?1");
        if (!rooms) return rooms.error();
        rooms.value().bind_all(now_ms);
        if (rooms.value().step() != SQLITE_DONE) return c.db_error("expiring rooms");
        const int gone = c.changes();
        auto servers = c.prepare("DELETE FROM servers WHERE expires_ms <= ?1");
        if (!servers) return servers.error();
        servers.value().bind_all(now_ms);
        if (servers.value().step() != SQLITE_DONE) return c.db_error("expiring relay servers");
        return gone;
    }

    ConnectionPool<Connection> m_pool;
    std::string m_url;
};

// A connection to `path` set up for the store: extended result codes, the busy timeout,
// WAL. `shown` is the URL for messages.
Result<std::unique_ptr<Connection>> open_connection(const std::string& path,
                                                    const std::string& shown) {
    sqlite3* db = nullptr;
    // NOMUTEX: a connection serves one caller at a time (the pool's lease).
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
    return std::make_unique<Connection>(db, shown);
}

}  // namespace

Result<std::unique_ptr<LobbyStore>> open_sqlite_store(const std::string& path,
                                                      const std::string& url) {
    const std::string shown = redact_store_url(url);
    auto first = open_connection(path, shown);
    if (!first) return first.error();
    // Every connection to ":memory:" is a database of its own: such a store keeps one.
    const bool in_memory = path == ":memory:" || path.find("mode=memory") != std::string::npos;
    return std::unique_ptr<LobbyStore>(
        std::make_unique<SqliteStore>(std::move(first).value(), shown, in_memory ? 1 : kConnections,
                                      [path, shown] { return open_connection(path, shown); }));
}

}  // namespace framelock::lobby
