// What the lobby store's tests share (lobby_store_test.cpp, lobby_store_open_test.cpp): the
// two backends, SQLite on a temp file and PostgreSQL on a real throwaway server this process
// starts, rooms and servers to store, and failures that print the rooms and servers compared
// (walked from their description, lobby/record_fields.h), not "{?}". Times are passed in,
// never slept.
#pragma once

#define CATCH_CONFIG_ENABLE_OPTIONAL_STRINGMAKER
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "lobby/record_fields.h"
#include "lobby/store.h"
#include "support/pg_cluster.h"
#include "support/temp_dir.h"

namespace lobby_store_test {

using namespace framelock;
using namespace framelock::lobby;
using framelock::test::PgCluster;
using framelock::test::TempDir;

// Prints "{column=value ...}" of every field of a record.
struct FieldPrinter {
    std::ostringstream out;
    void field(std::string_view column, const auto& value, unsigned = 0, PageColumn = {}) {
        out << (out.tellp() > 0 ? " " : "{") << column << "=" << value;
    }
    void thousandths(std::string_view column, const int& value, std::string_view, unsigned) {
        field(column, value);
    }
};

template <class Record>
std::string describe(const Record& record) {
    FieldPrinter printer;
    fields(printer, record);
    return printer.out.str() + "}";
}

}  // namespace lobby_store_test

namespace Catch {
template <>
struct StringMaker<framelock::lobby::Room> {
    static std::string convert(const framelock::lobby::Room& r) {
        return lobby_store_test::describe(r);
    }
};
template <>
struct StringMaker<framelock::lobby::StoredRoom> {
    static std::string convert(const framelock::lobby::StoredRoom& r) {
        return lobby_store_test::describe(r);
    }
};
template <>
struct StringMaker<framelock::lobby::RelayServer> {
    static std::string convert(const framelock::lobby::RelayServer& s) {
        return lobby_store_test::describe(s);
    }
};
}  // namespace Catch

namespace lobby_store_test {

inline constexpr std::int64_t kT0 = 1'700'000'000'000;  // a fixed "now", in ms
inline constexpr std::int64_t kLife = 30'000;           // how long a room lives without heartbeats

// A SQLite file in a temp dir, fresh for each test.
struct SQLite {
    TempDir dir{"lobby-sqlite"};
    std::string url() const { return "sqlite:" + dir.file("lobby.db"); }
};

// A fresh database on this process's PostgreSQL server, started on first use (about a
// second) and stopped when the process exits.
struct PostgreSQL {
    static PgCluster& cluster() {
        static PgCluster c;
        return c;
    }
    std::string db = cluster().create_database();
    std::string url() const { return db; }
};

inline std::unique_ptr<LobbyStore> open_migrated(const std::string& url) {
    auto store = open_store(url);
    INFO((store ? std::string() : store.error().message));
    REQUIRE(store.ok());
    const Status migrated = store.value()->migrate();
    INFO((migrated ? std::string() : migrated.error().message));
    REQUIRE(migrated.ok());
    return std::move(store).value();
}

template <class T>
inline T ok(Result<T> r) {
    INFO((r ? std::string() : r.error().message));
    REQUIRE(r.ok());
    return std::move(r).value();
}

inline void ok(const Status& s) {
    INFO((s ? std::string() : s.error().message));
    REQUIRE(s.ok());
}

// Room n: distinct id and code, everything else plausible, created at `created_ms`.
inline StoredRoom make_room(int n, std::int64_t created_ms) {
    static const char kCodeAlphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    StoredRoom s;
    Room& r = s.room;
    char id[33];
    std::snprintf(id, sizeof id, "%032x", n + 1);
    r.id = id;
    for (int i = 0, v = n; i < 6; ++i, v /= 32) r.code += kCodeAlphabet[v % 32];
    r.host_name = "host " + std::to_string(n);
    r.game_name = "Arcade";
    r.content_hash = "0123456789abcdef";
    r.core_name = "framelock_arcade";
    r.core_version = "1.0";
    r.mode = "framelock";
    r.players = 1;
    r.slots = 2;
    r.spectators = 0;
    r.region = "eu-west";
    r.server_address = "203.0.113.7:" + std::to_string(7000 + n);
    r.server_id = "";
    r.server_key = "room-key-" + std::to_string(n);
    r.host_probes = R"({"5e0010000000000000000000000000a1":23.5})";
    r.fps_milli = 57'500 + n;
    r.created_ms = created_ms;
    r.updated_ms = created_ms;
    r.expires_ms = created_ms + kLife;
    s.token_hash = "token-hash-" + std::to_string(n);
    return s;
}

inline RelayServer make_server(int n, int capacity, int load, std::int64_t now_ms) {
    RelayServer s;
    char id[33];
    std::snprintf(id, sizeof id, "%032x", 0x5e000 + n);
    s.id = id;
    s.address = "198.51.100." + std::to_string(n) + ":7000";
    s.region = "eu-west";
    s.server_key = "relay-key-" + std::to_string(n);
    s.capacity = capacity;
    s.load = load;
    s.updated_ms = now_ms;
    s.expires_ms = now_ms + kLife;
    s.token_hash = "server-token-" + std::to_string(n);
    return s;
}

// Gives the fields update_room() replaces new values, as of an update at kT0 + 1000.
inline void change_mutable_fields(Room& r) {
    r.players = 2;
    r.slots = 4;
    r.spectators = 5;
    r.game_name = "Arcade II";
    r.host_name = "renamed host";
    r.region = "us-east";
    r.server_address = "192.0.2.1:7100";
    r.updated_ms = kT0 + 1000;
    r.expires_ms = kT0 + 1000 + kLife;
}

inline std::vector<std::string> ids(const std::vector<Room>& rooms) {
    std::vector<std::string> out;
    for (const Room& r : rooms) out.push_back(r.id);
    return out;
}

}  // namespace lobby_store_test
