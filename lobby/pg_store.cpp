#include "lobby/pg_store.h"

#include <algorithm>
#include <cstdint>
#include <pqxx/pqxx>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "lobby/connection_pool.h"
#include "lobby/schema.h"
#include "lobby/store_rows.h"
#include "lobby/store_url.h"

namespace framelock::lobby {
namespace {

// Key of the advisory lock migrations hold: any constant works as long as every lobby
// uses the same one and nothing else in the database does ("FLlobby1" in ASCII).
constexpr std::int64_t kMigrationLockKey = 0x464c6c6f62627931;
// Connections a store opens at most (each one a backend process on the server): as many
// calls run at once, more wait for one.
constexpr std::size_t kConnections = 4;

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
    return rows::read<StoredRoom>(PgRow{row});
}
RelayServer read_server(const pqxx::row& row) {
    return rows::read<RelayServer>(PgRow{row});
}

// A query's values as libpqxx sends every parameter: as text, the way pqxx::to_string writes
// it.
std::vector<std::string> text_params(const rows::Query& query) {
    std::vector<std::string> params;
    params.reserve(query.params.size());
    for (const rows::Param& p : query.params) {
        params.push_back(std::visit(
            [](const auto& v) {
                if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>) {
                    return v;
                } else {
                    return pqxx::to_string(v);
                }
            },
            p));
    }
    return params;
}

// The fixed statements, prepared on the server once per connection (pqxx prepares each
// on first use and again by itself after a reconnect).
struct Prepared {
    const char* name;
    std::string sql;
};

const std::vector<Prepared>& prepared_statements() {
    static const std::vector<Prepared> statements = {
        {"create_room", rows::insert(StoredRoom{}, "rooms", '$').sql},
        // Ids and codes never look alike, but should one ever equal another room's code
        // the id wins: ids are what the API hands back after a create.
        {"get_room", rows::select_all<StoredRoom>("rooms") +
                         " WHERE (id = $1 OR code = $1) AND expires_ms > $2"
                         " ORDER BY id = $1 DESC LIMIT 1"},
        {"update_room", rows::update_room(Room{}, 0, '$').sql},
        // Only from the relay the caller read: of two joiners moving a room at once, one wins.
        {"move_room",
         "UPDATE rooms SET server_address = $3, server_id = $4, server_key = $6"
         " WHERE id = $1 AND server_id = $2 AND expires_ms > $5"},
        // Only a live room: one that lapsed is gone for the players already, and bringing
        // it back would depend on whether expire() happened to run in between.
        {"heartbeat_room",
         "UPDATE rooms SET updated_ms = $2, expires_ms = $3 WHERE id = $1 AND expires_ms > $2"},
        {"delete_room", "DELETE FROM rooms WHERE id = $1"},
        {"count_rooms", "SELECT COUNT(*) FROM rooms WHERE expires_ms > $1"},
        {"expire_rooms", "DELETE FROM rooms WHERE expires_ms <= $1"},
        {"expire_servers", "DELETE FROM servers WHERE expires_ms <= $1"},
        {"upsert_server", rows::upsert_server(RelayServer{}, '$').sql},
        {"get_server",
         rows::select_all<RelayServer>("servers") + " WHERE id = $1 AND expires_ms > $2"},
        {"list_servers",
         rows::select_all<RelayServer>("servers") + " WHERE expires_ms > $1 ORDER BY id"},
        // Ties go to the less busy server, then to a stable order so callers are
        // reproducible.
        {"least_loaded_server", rows::select_all<RelayServer>("servers") +
                                    " WHERE expires_ms > $1 AND load < capacity"
                                    " ORDER BY capacity - load DESC, load ASC, id ASC LIMIT 1"},
    };
    return statements;
}

// A connection with the fixed statements declared on it.
Result<std::unique_ptr<pqxx::connection>> connect(const std::string& url,
                                                  const std::string& shown) {
    try {
        auto connection = std::make_unique<pqxx::connection>(url);
        for (const Prepared& p : prepared_statements()) connection->prepare(p.name, p.sql);
        return connection;
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

// What PgStore::run() returns for a body returning T: T as a Result (a Result as it is).
template <class T>
struct AsResult {
    using type = Result<T>;
};
template <class T>
struct AsResult<Result<T>> {
    using type = Result<T>;
};
template <class Body>
using RunResult = typename AsResult<std::invoke_result_t<Body&, pqxx::connection&>>::type;

class PgStore final : public LobbyStore {
  public:
    PgStore(std::unique_ptr<pqxx::connection> first, const std::string& url, std::string shown)
        : m_pool(std::move(first), kConnections, [url, shown] { return connect(url, shown); }),
          m_url(std::move(shown)) {}

    Status migrate() override {
        return run_status("migrating the schema", [&](pqxx::connection& c) -> Result<bool> {
            // Everything in one transaction behind a lock every lobby process takes:
            // processes starting together queue here, and the later ones find the
            // migrations done. The lock ends with the transaction, also on a crash.
            pqxx::work tx(c);
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
            return true;
        });
    }

    int schema_version() override {
        auto version = run("reading the schema version", [&](pqxx::connection& c) -> Result<int> {
            pqxx::nontransaction tx(c);
            // to_regclass: NULL instead of an error when the table is not there yet.
            const pqxx::row exists =
                tx.exec1("SELECT to_regclass('schema_migrations') IS NOT NULL");
            if (!exists[0].as<bool>()) return 0;
            return read_version(tx);
        });
        return version ? version.value() : -1;
    }

    Status create_room(const StoredRoom& stored) override {
        const Room& r = stored.room;
        const std::vector<std::string> params = text_params(rows::insert(stored, "rooms", '$'));
        return run_status("creating a room", [&](pqxx::connection& c) -> Result<bool> {
            try {
                pqxx::nontransaction tx(c);
                tx.exec_prepared("create_room", pqxx::prepare::make_dynamic_params(params));
                return true;
            } catch (const pqxx::unique_violation&) {
                return make_error(ErrorCode::kConfig, "lobby store '" + m_url + "': room id '" +
                                                          r.id + "' or code '" + r.code +
                                                          "' is already taken");
            }
        });
    }

    Result<std::optional<StoredRoom>> get_room(const std::string& id_or_code,
                                               std::int64_t now_ms) override {
        return run("reading a room", [&](pqxx::connection& c) {
            pqxx::nontransaction tx(c);
            const pqxx::result rows = tx.exec_prepared("get_room", id_or_code, now_ms);
            if (rows.empty()) return std::optional<StoredRoom>();
            return std::optional<StoredRoom>(read_room(rows[0]));
        });
    }

    Result<bool> update_room(const Room& r, std::int64_t now_ms) override {
        const std::vector<std::string> params = text_params(rows::update_room(r, now_ms, '$'));
        return run("updating a room", [&](pqxx::connection& c) {
            pqxx::nontransaction tx(c);
            const pqxx::result done =
                tx.exec_prepared("update_room", pqxx::prepare::make_dynamic_params(params));
            return done.affected_rows() > 0;
        });
    }

    Result<bool> move_room(const std::string& id, const std::string& from_server_id,
                           const RelayServer& to, std::int64_t now_ms) override {
        return run("moving a room", [&](pqxx::connection& c) {
            pqxx::nontransaction tx(c);
            return tx.exec_prepared("move_room", id, from_server_id, to.address, to.id, now_ms,
                                    to.server_key)
                       .affected_rows() > 0;
        });
    }

    Result<bool> heartbeat_room(const std::string& id, std::int64_t now_ms,
                                std::int64_t expires_ms) override {
        return run("heartbeating a room", [&](pqxx::connection& c) {
            pqxx::nontransaction tx(c);
            return tx.exec_prepared("heartbeat_room", id, now_ms, expires_ms).affected_rows() > 0;
        });
    }

    Result<bool> delete_room(const std::string& id) override {
        return run("deleting a room", [&](pqxx::connection& c) {
            pqxx::nontransaction tx(c);
            return tx.exec_prepared("delete_room", id).affected_rows() > 0;
        });
    }

    Result<std::vector<Room>> list_rooms(const RoomFilter& filter, std::int64_t now_ms) override {
        // Sent unnamed, so the planner sees the actual values and can pick the index that
        // suits the filter.
        const rows::Query query = rows::room_list_query(filter, now_ms, '$');
        const std::vector<std::string> params = text_params(query);
        return run("listing rooms", [&](pqxx::connection& c) {
            pqxx::nontransaction tx(c);
            const pqxx::result rows =
                tx.exec_params(query.sql, pqxx::prepare::make_dynamic_params(params));
            std::vector<Room> rooms;
            rooms.reserve(rows.size());
            for (const pqxx::row& row : rows) rooms.push_back(read_room(row).room);
            return rooms;
        });
    }

    Result<std::int64_t> count_rooms(std::int64_t now_ms) override {
        return run("counting rooms", [&](pqxx::connection& c) {
            pqxx::nontransaction tx(c);
            return tx.exec_prepared1("count_rooms", now_ms)[0].as<std::int64_t>();
        });
    }

    Result<int> expire(std::int64_t now_ms) override {
        return run("expiring", [&](pqxx::connection& c) {
            // One transaction: a reader never sees the servers gone but their rooms still
            // there.
            pqxx::work tx(c);
            const int gone =
                static_cast<int>(tx.exec_prepared("expire_rooms", now_ms).affected_rows());
            tx.exec_prepared("expire_servers", now_ms);
            tx.commit();
            return gone;
        });
    }

    Status upsert_server(const RelayServer& s) override {
        const std::vector<std::string> params = text_params(rows::upsert_server(s, '$'));
        return run_status("storing a relay server", [&](pqxx::connection& c) {
            pqxx::nontransaction tx(c);
            tx.exec_prepared("upsert_server", pqxx::prepare::make_dynamic_params(params));
            return true;
        });
    }

    Result<std::optional<RelayServer>> get_server(const std::string& id,
                                                  std::int64_t now_ms) override {
        return run("reading a relay server", [&](pqxx::connection& c) {
            pqxx::nontransaction tx(c);
            return one_server(tx.exec_prepared("get_server", id, now_ms));
        });
    }

    Result<std::vector<RelayServer>> list_servers(std::int64_t now_ms) override {
        return run("listing relay servers", [&](pqxx::connection& c) {
            pqxx::nontransaction tx(c);
            const pqxx::result rows = tx.exec_prepared("list_servers", now_ms);
            std::vector<RelayServer> servers;
            servers.reserve(rows.size());
            for (const pqxx::row& row : rows) servers.push_back(read_server(row));
            return servers;
        });
    }

    Result<std::optional<RelayServer>> least_loaded_server(std::int64_t now_ms) override {
        return run("choosing a relay server", [&](pqxx::connection& c) {
            pqxx::nontransaction tx(c);
            return one_server(tx.exec_prepared("least_loaded_server", now_ms));
        });
    }

  private:
    // `body(connection)` on a connection leased for the call, as a Result: a failure to get
    // a connection, or a database exception, becomes an error naming `what`.
    template <class Body>
    RunResult<Body> run(const char* what, Body&& body) {
        using Out = RunResult<Body>;
        auto lease = m_pool.acquire();
        if (!lease) return Out(lease.error());
        try {
            return Out(body(*lease.value()));
        } catch (const std::exception& e) {
            return Out(db_error(what, e));
        }
    }
    // run() for a body that only succeeds or fails (its value, true, says nothing): the
    // outcome as a Status.
    template <class Body>
    Status run_status(const char* what, Body&& body) {
        auto done = run(what, std::forward<Body>(body));
        if (!done) return done.error();
        return {};
    }
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

    ConnectionPool<pqxx::connection> m_pool;
    std::string m_url;
};

}  // namespace

Result<std::unique_ptr<LobbyStore>> open_pg_store(const std::string& url) {
    const std::string shown = redact_store_url(url);
    auto first = connect(url, shown);
    if (!first) return first.error();
    return std::unique_ptr<LobbyStore>(
        std::make_unique<PgStore>(std::move(first).value(), url, shown));
}

}  // namespace framelock::lobby
