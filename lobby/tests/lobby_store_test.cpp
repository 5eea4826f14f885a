// The lobby's storage: one suite of behaviour run against both backends, SQLite on a
// temp file and PostgreSQL on a real throwaway server this process starts (skipped, exit
// 77, when the PostgreSQL server is not installed). Times are passed in, never slept.
// Failures print the optional rooms and servers compared, not "{?}".
#define CATCH_CONFIG_ENABLE_OPTIONAL_STRINGMAKER
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "lobby/store.h"
#include "support/pg_cluster.h"
#include "support/process.h"
#include "support/temp_dir.h"

using namespace framelock;
using namespace framelock::lobby;
using framelock::test::PgCluster;
using framelock::test::TempDir;

namespace Catch {
template <>
struct StringMaker<Room> {
    static std::string convert(const Room& r) {
        std::ostringstream s;
        s << "{id=" << r.id << " code=" << r.code << " host=" << r.host_name
          << " game=" << r.game_name << " hash=" << r.content_hash << " core=" << r.core_name << " "
          << r.core_version << " mode=" << r.mode << " players=" << r.players << "/" << r.slots
          << "+" << r.spectators << " pw=" << r.has_password << " region=" << r.region
          << " server=" << r.server_address << " " << r.server_id << " probes=" << r.host_probes
          << " fps_milli=" << r.fps_milli << " t=" << r.created_ms << "/" << r.updated_ms << "/"
          << r.expires_ms << "}";
        return s.str();
    }
};
template <>
struct StringMaker<StoredRoom> {
    static std::string convert(const StoredRoom& r) {
        return StringMaker<Room>::convert(r.room) + " password_hash=" + r.password_hash +
               " token_hash=" + r.token_hash;
    }
};
template <>
struct StringMaker<RelayServer> {
    static std::string convert(const RelayServer& s) {
        std::ostringstream o;
        o << "{id=" << s.id << " address=" << s.address << " region=" << s.region
          << " load=" << s.load << "/" << s.capacity << " t=" << s.updated_ms << "/" << s.expires_ms
          << " token_hash=" << s.token_hash << "}";
        return o.str();
    }
};
}  // namespace Catch

namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000;  // a fixed "now", in ms
constexpr std::int64_t kLife = 30'000;           // how long a room lives without heartbeats

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

std::unique_ptr<LobbyStore> open_migrated(const std::string& url) {
    auto store = open_store(url);
    INFO((store ? std::string() : store.error().message));
    REQUIRE(store.ok());
    const Status migrated = store.value()->migrate();
    INFO((migrated ? std::string() : migrated.error().message));
    REQUIRE(migrated.ok());
    return std::move(store).value();
}

template <class T>
T ok(Result<T> r) {
    INFO((r ? std::string() : r.error().message));
    REQUIRE(r.ok());
    return std::move(r).value();
}

void ok(const Status& s) {
    INFO((s ? std::string() : s.error().message));
    REQUIRE(s.ok());
}

// Room n: distinct id and code, everything else plausible, created at `created_ms`.
StoredRoom make_room(int n, std::int64_t created_ms) {
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
    r.host_probes = R"({"5e0010000000000000000000000000a1":23.5})";
    r.fps_milli = 57'500 + n;
    r.created_ms = created_ms;
    r.updated_ms = created_ms;
    r.expires_ms = created_ms + kLife;
    s.token_hash = "token-hash-" + std::to_string(n);
    return s;
}

RelayServer make_server(int n, int capacity, int load, std::int64_t now_ms) {
    RelayServer s;
    char id[33];
    std::snprintf(id, sizeof id, "%032x", 0x5e000 + n);
    s.id = id;
    s.address = "198.51.100." + std::to_string(n) + ":7000";
    s.region = "eu-west";
    s.capacity = capacity;
    s.load = load;
    s.updated_ms = now_ms;
    s.expires_ms = now_ms + kLife;
    s.token_hash = "server-token-" + std::to_string(n);
    return s;
}

// Gives the fields update_room() replaces new values, as of an update at kT0 + 1000.
void change_mutable_fields(Room& r) {
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

std::vector<std::string> ids(const std::vector<Room>& rooms) {
    std::vector<std::string> out;
    for (const Room& r : rooms) out.push_back(r.id);
    return out;
}

}  // namespace

TEMPLATE_TEST_CASE("lobby store: a room is created and read back by id and by code",
                   "[lobby][store]", SQLite, PostgreSQL) {
    TestType backend;
    auto store = open_migrated(backend.url());
    StoredRoom room = make_room(1, kT0);
    room.room.has_password = true;
    room.room.spectators = 3;
    room.room.server_id = "0123456789abcdef0123456789abcdef";
    room.password_hash = "password-hash";
    ok(store->create_room(room));

    CHECK(ok(store->get_room(room.room.id, kT0 + 1)) == room);
    CHECK(ok(store->get_room(room.room.code, kT0 + 1)) == room);
    CHECK(ok(store->get_room("ZZZZZZ", kT0 + 1)) == std::nullopt);
    CHECK(ok(store->count_rooms(kT0 + 1)) == 1);

    // Deleting is by id and says whether there was anything to delete.
    CHECK(ok(store->delete_room(room.room.code)) == false);
    CHECK(ok(store->delete_room(room.room.id)) == true);
    CHECK(ok(store->get_room(room.room.id, kT0 + 1)) == std::nullopt);
    CHECK(ok(store->delete_room(room.room.id)) == false);
}

TEMPLATE_TEST_CASE("lobby store: a taken id or code is refused", "[lobby][store]", SQLite,
                   PostgreSQL) {
    TestType backend;
    auto store = open_migrated(backend.url());
    const StoredRoom first = make_room(1, kT0);
    ok(store->create_room(first));

    StoredRoom same_id = make_room(2, kT0);
    same_id.room.id = first.room.id;
    const Status by_id = store->create_room(same_id);
    REQUIRE_FALSE(by_id.ok());
    CHECK(by_id.error().code == ErrorCode::kConfig);

    StoredRoom same_code = make_room(3, kT0);
    same_code.room.code = first.room.code;
    const Status by_code = store->create_room(same_code);
    REQUIRE_FALSE(by_code.ok());
    CHECK(by_code.error().code == ErrorCode::kConfig);

    // The refused creates changed nothing, and the store still works after them.
    CHECK(ok(store->get_room(first.room.id, kT0)) == first);
    CHECK(ok(store->count_rooms(kT0)) == 1);
    ok(store->create_room(make_room(4, kT0)));
    CHECK(ok(store->count_rooms(kT0)) == 2);
}

TEMPLATE_TEST_CASE("lobby store: an update replaces the mutable fields of a live room",
                   "[lobby][store]", SQLite, PostgreSQL) {
    TestType backend;
    auto store = open_migrated(backend.url());
    const StoredRoom original = make_room(1, kT0);
    ok(store->create_room(original));

    Room changed = original.room;
    change_mutable_fields(changed);
    // Not among the mutable fields: these stay as created.
    changed.code = "QQQQQQ";
    changed.core_name = "other_core";
    changed.mode = "rollback";
    changed.has_password = true;
    changed.created_ms = 1;
    CHECK(ok(store->update_room(changed, kT0 + 1000)) == true);

    StoredRoom expected = original;
    change_mutable_fields(expected.room);
    CHECK(ok(store->get_room(original.room.id, kT0 + 1000)) == expected);

    // No such room, or one that has lapsed: nothing to update.
    Room unknown = make_room(2, kT0).room;
    CHECK(ok(store->update_room(unknown, kT0 + 1000)) == false);
    CHECK(ok(store->update_room(changed, expected.room.expires_ms)) == false);
}

TEMPLATE_TEST_CASE("lobby store: a room moves to another relay once, and updates keep the move",
                   "[lobby][store]", SQLite, PostgreSQL) {
    TestType backend;
    auto store = open_migrated(backend.url());
    StoredRoom original = make_room(1, kT0);
    original.room.server_id = "5e0010000000000000000000000000a1";
    original.room.server_address = "198.51.100.1:7000";
    ok(store->create_room(original));

    // A heartbeat that read the room before the move (its copy says relay a1)...
    Room stale = original.room;
    stale.players = 1;
    stale.updated_ms = kT0 + 500;
    stale.expires_ms = kT0 + 500 + kLife;

    CHECK(ok(store->move_room(original.room.id, original.room.server_id, "198.51.100.2:7000",
                              "5e0010000000000000000000000000a2", kT0 + 100)) == true);
    // Of two joiners moving it at once, the second finds it moved.
    CHECK(ok(store->move_room(original.room.id, original.room.server_id, "198.51.100.3:7000",
                              "5e0010000000000000000000000000a3", kT0 + 100)) == false);
    CHECK(ok(store->move_room("00000000000000000000000000000bad", original.room.server_id,
                              "198.51.100.3:7000", "5e0010000000000000000000000000a3",
                              kT0 + 100)) == false);

    // ... and writes after it: the players count lands, the move stays.
    CHECK(ok(store->update_room(stale, kT0 + 500)) == true);
    const auto moved = ok(store->get_room(original.room.code, kT0 + 600));
    REQUIRE(moved);
    CHECK(moved->room.server_address == "198.51.100.2:7000");
    CHECK(moved->room.server_id == "5e0010000000000000000000000000a2");
    CHECK(moved->room.players == 1);
    CHECK(moved->room.expires_ms == kT0 + 500 + kLife);
    CHECK(moved->room.host_probes == original.room.host_probes);
    CHECK(moved->room.fps_milli == 57'501);

    // An update from a copy read after the move may change the address as before.
    Room fresh = moved->room;
    fresh.server_address = "198.51.100.9:7009";
    CHECK(ok(store->update_room(fresh, kT0 + 700)) == true);
    CHECK(ok(store->get_room(original.room.id, kT0 + 700))->room.server_address ==
          "198.51.100.9:7009");
    // A lapsed room does not move.
    CHECK(ok(store->move_room(original.room.id, "5e0010000000000000000000000000a2", "x:1", "y",
                              kT0 + 500 + kLife)) == false);
}

TEMPLATE_TEST_CASE("lobby store: heartbeats extend life, expiry removes rooms and servers",
                   "[lobby][store]", SQLite, PostgreSQL) {
    TestType backend;
    auto store = open_migrated(backend.url());
    const StoredRoom kept = make_room(1, kT0);
    const StoredRoom lapsing = make_room(2, kT0);
    ok(store->create_room(kept));
    ok(store->create_room(lapsing));
    ok(store->upsert_server(make_server(1, 10, 0, kT0)));
    RelayServer beating = make_server(2, 10, 0, kT0);
    ok(store->upsert_server(beating));

    // Just before the end of its life a heartbeat gives the room another one.
    const std::int64_t beat = kT0 + kLife - 1;
    CHECK(ok(store->heartbeat_room(kept.room.id, beat, beat + kLife)) == true);
    beating.updated_ms = beat;
    beating.expires_ms = beat + kLife;
    ok(store->upsert_server(beating));
    const auto after_beat = ok(store->get_room(kept.room.id, beat));
    REQUIRE(after_beat);
    CHECK(after_beat->room.updated_ms == beat);
    CHECK(after_beat->room.expires_ms == beat + kLife);

    // At its expiry time a room is gone from reads, before expire() ever runs...
    const std::int64_t later = kT0 + kLife;
    CHECK(ok(store->get_room(lapsing.room.id, later)) == std::nullopt);
    CHECK(ok(store->get_room(lapsing.room.code, later)) == std::nullopt);
    CHECK(ok(store->count_rooms(later)) == 1);
    CHECK(ids(ok(store->list_rooms({}, later))) == std::vector<std::string>{kept.room.id});
    CHECK(ok(store->get_server(make_server(1, 0, 0, 0).id, later)) == std::nullopt);
    CHECK(ok(store->list_servers(later)) == std::vector<RelayServer>{beating});
    // ...and a heartbeat cannot bring it back.
    CHECK(ok(store->heartbeat_room(lapsing.room.id, later, later + kLife)) == false);
    CHECK(ok(store->heartbeat_room("no-such-room", later, later + kLife)) == false);

    // expire() deletes the rows for good and counts the rooms.
    CHECK(ok(store->expire(later)) == 1);
    CHECK(ok(store->expire(later)) == 0);
    CHECK(ok(store->count_rooms(kT0)) == 1);  // gone even for a reader in the past
    CHECK(ok(store->list_servers(kT0)) == std::vector<RelayServer>{beating});

    // Everything goes once the heartbeats stop.
    CHECK(ok(store->expire(beat + kLife)) == 1);
    CHECK(ok(store->count_rooms(kT0)) == 0);
    CHECK(ok(store->list_servers(kT0)).empty());
}

TEMPLATE_TEST_CASE("lobby store: lists filter, page and put the newest first", "[lobby][store]",
                   SQLite, PostgreSQL) {
    TestType backend;
    auto store = open_migrated(backend.url());
    // Created one second apart, in an order unlike their ids.
    std::vector<StoredRoom> rooms;
    const int order[] = {3, 0, 5, 1, 4, 2};
    for (int i = 0; i < 6; ++i) rooms.push_back(make_room(order[i], kT0 + i * 1000));
    rooms[1].room.game_name = "Puzzle";
    rooms[4].room.game_name = "Puzzle";
    rooms[2].room.core_name = "nestopia";
    rooms[3].room.core_name = "nestopia";
    rooms[3].room.mode = "rollback";
    rooms[5].room.mode = "rollback";
    rooms[0].room.players = 2;  // full
    rooms[5].room.players = 2;  // full
    rooms[5].room.slots = 2;
    rooms[4].room.players = 3;  // room to spare
    rooms[4].room.slots = 4;
    for (const auto& r : rooms) ok(store->create_room(r));
    const std::int64_t now = kT0 + 10'000;
    auto id = [&](int i) { return rooms[static_cast<std::size_t>(i)].room.id; };
    using Ids = std::vector<std::string>;

    CHECK(ids(ok(store->list_rooms({}, now))) == Ids{id(5), id(4), id(3), id(2), id(1), id(0)});
    CHECK(ok(store->count_rooms(now)) == 6);

    RoomFilter game;
    game.game = "Puzzle";
    CHECK(ids(ok(store->list_rooms(game, now))) == Ids{id(4), id(1)});
    RoomFilter core;
    core.core = "nestopia";
    CHECK(ids(ok(store->list_rooms(core, now))) == Ids{id(3), id(2)});
    RoomFilter mode;
    mode.mode = "rollback";
    CHECK(ids(ok(store->list_rooms(mode, now))) == Ids{id(5), id(3)});
    RoomFilter slots;
    slots.has_slots = true;
    CHECK(ids(ok(store->list_rooms(slots, now))) == Ids{id(4), id(3), id(2), id(1)});
    RoomFilter combined;
    combined.core = "nestopia";
    combined.mode = "rollback";
    combined.has_slots = true;
    CHECK(ids(ok(store->list_rooms(combined, now))) == Ids{id(3)});
    RoomFilter none;
    none.game = "arcade";  // exact match: case matters
    CHECK(ok(store->list_rooms(none, now)).empty());

    RoomFilter page;
    page.limit = 2;
    CHECK(ids(ok(store->list_rooms(page, now))) == Ids{id(5), id(4)});
    page.offset = 2;
    CHECK(ids(ok(store->list_rooms(page, now))) == Ids{id(3), id(2)});
    page.offset = 5;
    CHECK(ids(ok(store->list_rooms(page, now))) == Ids{id(0)});
    page.offset = 6;
    CHECK(ok(store->list_rooms(page, now)).empty());
    page.limit = 0;
    page.offset = 0;
    CHECK(ok(store->list_rooms(page, now)).empty());
    // Nonsense paging from a caller reads as "none" / "from the start", not as an error.
    page.limit = -1;
    CHECK(ok(store->list_rooms(page, now)).empty());
    page.limit = 1;
    page.offset = -3;
    CHECK(ids(ok(store->list_rooms(page, now))) == Ids{id(5)});

    // Whole rooms come back, not just ids (hashes stay inside the store).
    const auto listed = ok(store->list_rooms(game, now));
    REQUIRE(listed.size() == 2);
    CHECK(listed[0] == rooms[4].room);

    // Only live rooms: the first two were created with an earlier expiry.
    const std::int64_t after_first_two = kT0 + 1000 + kLife;
    CHECK(ids(ok(store->list_rooms({}, after_first_two))) == Ids{id(5), id(4), id(3), id(2)});
    CHECK(ok(store->count_rooms(after_first_two)) == 4);
    CHECK(ids(ok(store->list_rooms(game, after_first_two))) == Ids{id(4)});
}

TEMPLATE_TEST_CASE("lobby store: the live server with the most free capacity is chosen",
                   "[lobby][store]", SQLite, PostgreSQL) {
    TestType backend;
    auto store = open_migrated(backend.url());
    CHECK(ok(store->least_loaded_server(kT0)) == std::nullopt);

    const RelayServer small_idle = make_server(1, 4, 0, kT0);    // 4 free
    const RelayServer big_busy = make_server(2, 100, 90, kT0);   // 10 free
    const RelayServer full = make_server(3, 50, 50, kT0);        // none free
    RelayServer expiring = make_server(4, 1000, 0, kT0 - 1000);  // most free, but lapses
    const RelayServer overfull = make_server(5, 10, 12, kT0);    // reported over capacity
    for (const auto& s : {small_idle, big_busy, full, expiring, overfull}) {
        ok(store->upsert_server(s));
    }
    const std::int64_t now = kT0 - 1000 + kLife;  // `expiring` just went
    CHECK(ok(store->least_loaded_server(kT0)) == expiring);
    CHECK(ok(store->least_loaded_server(now)) == big_busy);
    CHECK(ok(store->list_servers(now)).size() == 4);

    // An upsert replaces the server's row: now it is the busy one that is full.
    RelayServer busier = big_busy;
    busier.load = 100;
    busier.updated_ms = now;
    ok(store->upsert_server(busier));
    CHECK(ok(store->get_server(busier.id, now)) == busier);
    CHECK(ok(store->least_loaded_server(now)) == small_idle);
    CHECK(ok(store->list_servers(now)).size() == 4);

    // Nothing with room left: no server rather than a full one.
    RelayServer now_full = small_idle;
    now_full.load = 4;
    ok(store->upsert_server(now_full));
    CHECK(ok(store->least_loaded_server(now)) == std::nullopt);
}

TEMPLATE_TEST_CASE("lobby store: SQL metacharacters in every field come back verbatim",
                   "[lobby][store]", SQLite, PostgreSQL) {
    TestType backend;
    auto store = open_migrated(backend.url());
    const StoredRoom bystander = make_room(1, kT0);
    ok(store->create_room(bystander));

    const std::vector<std::string> nasty = {
        "'; DROP TABLE rooms; --",
        "\"; DROP TABLE servers; --",
        "It's a \"quoted\" 'name'",
        "back\\slash \\' \\\\ \\0 \\x27",
        "unicode: ñ 日本語 🎮 Ω",
        "right-to-left override: \xe2\x80\xae (written as bytes: GCC flags it in source)",
        "100% _like_ [wild*] cards?",
        "$1 ?1 :name @p $$ dollar $$",
        "line\nbreak\ttab\r",
        "E'\\x00' || chr(39) /* comment */",
    };
    int n = 0;
    for (const std::string& text : nasty) {
        ++n;
        INFO(text);
        StoredRoom s;
        Room& r = s.room;
        r.id = text + " id";
        r.code = text + " code";
        r.host_name = text;
        r.game_name = text + " game";
        r.content_hash = text + " hash";
        r.core_name = text + " core";
        r.core_version = text + " version";
        r.mode = text + " mode";
        r.players = n;
        r.slots = n + 1;
        r.region = text + " region";
        r.server_address = text + " address";
        r.server_id = text + " server";
        r.created_ms = kT0 + n;
        r.updated_ms = kT0 + n;
        r.expires_ms = kT0 + kLife;
        s.password_hash = text + " password";
        s.token_hash = text + " token";
        ok(store->create_room(s));
        CHECK(ok(store->get_room(r.id, kT0)) == s);
        CHECK(ok(store->get_room(r.code, kT0)) == s);

        RoomFilter filter;
        filter.game = r.game_name;
        filter.core = r.core_name;
        filter.mode = r.mode;
        CHECK(ok(store->list_rooms(filter, kT0)) == std::vector<Room>{r});

        Room renamed = r;
        renamed.host_name = text + " renamed";
        renamed.game_name = text + " game 2";
        CHECK(ok(store->update_room(renamed, kT0)) == true);
        CHECK(ok(store->get_room(r.id, kT0))->room == renamed);
        CHECK(ok(store->heartbeat_room(r.id, kT0, kT0 + kLife)) == true);

        RelayServer server;
        server.id = text + " server id";
        server.address = text + " address";
        server.region = text + " region";
        server.capacity = 10;
        server.load = n;  // the first is the least loaded
        server.updated_ms = kT0;
        server.expires_ms = kT0 + kLife;
        server.token_hash = text + " token";
        ok(store->upsert_server(server));
        CHECK(ok(store->get_server(server.id, kT0)) == server);
    }
    // The tables are all still there, with everything in them.
    CHECK(ok(store->count_rooms(kT0)) == static_cast<std::int64_t>(nasty.size() + 1));
    CHECK(ok(store->list_servers(kT0)).size() == nasty.size());
    CHECK(ok(store->get_room(bystander.room.id, kT0)) == bystander);
    CHECK(ok(store->least_loaded_server(kT0))->id == nasty[0] + " server id");
    CHECK(ok(store->delete_room(nasty[0] + " id")) == true);
    CHECK(ok(store->count_rooms(kT0)) == static_cast<std::int64_t>(nasty.size()));
}

TEMPLATE_TEST_CASE("lobby store: migrate twice is a no-op at the newest schema version",
                   "[lobby][store]", SQLite, PostgreSQL) {
    TestType backend;
    auto opened = open_store(backend.url());
    REQUIRE(opened.ok());
    auto store = std::move(opened).value();
    CHECK(store->schema_version() == 0);  // a new database: nothing applied yet

    ok(store->migrate());
    const int newest = store->schema_version();
    CHECK(newest >= 2);  // 2: the host's probes and fps
    const StoredRoom room = make_room(1, kT0);
    ok(store->create_room(room));

    ok(store->migrate());
    CHECK(store->schema_version() == newest);
    CHECK(ok(store->get_room(room.room.id, kT0)) == room);

    // A second process starting on the migrated database finds nothing left to do.
    auto other = open_migrated(backend.url());
    CHECK(other->schema_version() == newest);
    CHECK(ok(other->get_room(room.room.code, kT0)) == room);
}

TEMPLATE_TEST_CASE("lobby store: two store objects on one database see each other's rooms",
                   "[lobby][store]", SQLite, PostgreSQL) {
    TestType backend;
    // As two lobby processes would be: separate connections, both migrating at start.
    auto a = open_migrated(backend.url());
    auto b = open_migrated(backend.url());
    const StoredRoom from_a = make_room(1, kT0);
    const StoredRoom from_b = make_room(2, kT0 + 1);
    ok(a->create_room(from_a));
    ok(b->create_room(from_b));

    CHECK(ok(b->get_room(from_a.room.code, kT0 + 2)) == from_a);
    CHECK(ok(a->get_room(from_b.room.id, kT0 + 2)) == from_b);
    CHECK(ids(ok(a->list_rooms({}, kT0 + 2))) ==
          std::vector<std::string>{from_b.room.id, from_a.room.id});

    // Ids and codes are unique across both, not per connection.
    StoredRoom clash = make_room(3, kT0);
    clash.room.code = from_a.room.code;
    CHECK_FALSE(b->create_room(clash).ok());

    // One process's writes are the other's reads.
    CHECK(ok(a->heartbeat_room(from_b.room.id, kT0 + 10, kT0 + 10 + 5 * kLife)) == true);
    CHECK(ok(b->get_room(from_b.room.id, kT0 + 10))->room.expires_ms == kT0 + 10 + 5 * kLife);
    ok(b->upsert_server(make_server(1, 8, 2, kT0)));
    CHECK(ok(a->least_loaded_server(kT0 + 10)) == make_server(1, 8, 2, kT0));
    CHECK(ok(b->expire(kT0 + kLife)) == 1);
    CHECK(ok(a->get_room(from_a.room.id, kT0)) == std::nullopt);
    CHECK(ok(a->count_rooms(kT0)) == 1);
}

TEMPLATE_TEST_CASE("lobby store: lobby processes starting together migrate once", "[lobby][store]",
                   SQLite, PostgreSQL) {
    TestType backend;
    const std::string url = backend.url();
    // Connected first, then released together, so the migrations really overlap.
    constexpr int kProcesses = 6;
    std::vector<std::unique_ptr<LobbyStore>> stores;
    for (int i = 0; i < kProcesses; ++i) stores.push_back(ok(open_store(url)));
    std::vector<std::string> errors(kProcesses);
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int i = 0; i < kProcesses; ++i) {
        threads.emplace_back([&, i] {
            while (!go) std::this_thread::yield();
            const Status s = stores[static_cast<std::size_t>(i)]->migrate();
            if (!s) errors[static_cast<std::size_t>(i)] = s.error().message;
        });
    }
    go = true;
    for (auto& t : threads) t.join();
    for (const std::string& e : errors) CHECK(e == "");
    const int newest = stores[0]->schema_version();
    CHECK(newest >= 1);
    for (const auto& store : stores) CHECK(store->schema_version() == newest);
    ok(stores[1]->create_room(make_room(1, kT0)));
    CHECK(ok(stores[kProcesses - 1]->count_rooms(kT0)) == 1);
}

TEST_CASE("lobby store: open_store picks the backend from the URL", "[lobby][store]") {
    TempDir dir("lobby-open");

    // "sqlite:PATH" and a bare path are both files.
    ok(ok(open_store("sqlite:" + dir.file("a.db")))->migrate());
    CHECK(std::filesystem::exists(dir.file("a.db")));
    auto bare = open_migrated(dir.file("b.db"));
    CHECK(std::filesystem::exists(dir.file("b.db")));
    // WAL: the journal lives next to the database while a connection is open.
    ok(bare->create_room(make_room(1, kT0)));
    CHECK(std::filesystem::exists(dir.file("b.db-wal")));

    // A directory that does not exist: kConfig, naming the URL.
    const std::string missing = "sqlite:" + dir.file("no/such/dir/lobby.db");
    auto r = open_store(missing);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kConfig);
    CHECK_THAT(r.error().message, Catch::Contains(missing));

    // A file that is not a database is refused when opened, not at the first request.
    framelock::test::write_text(dir.file("notes.txt"),
                                std::string(4096, 'x') + " not an SQLite database");
    auto not_db = open_store(dir.file("notes.txt"));
    REQUIRE_FALSE(not_db.ok());
    CHECK_THAT(not_db.error().message, Catch::Contains(dir.file("notes.txt")));

    auto empty = open_store("sqlite:");
    REQUIRE_FALSE(empty.ok());
    CHECK(empty.error().code == ErrorCode::kConfig);

    auto unknown = open_store("mysql://root:hunter2@db.example/lobby");
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error().code == ErrorCode::kConfig);
    CHECK_THAT(unknown.error().message, Catch::Contains("mysql://root:***@db.example/lobby"));
    CHECK_THAT(unknown.error().message, !Catch::Contains("hunter2"));

    // PostgreSQL URLs go to libpq; one nobody listens on fails at once, password hidden.
    for (const std::string scheme : {"postgresql", "postgres"}) {
        const std::string url = scheme + "://lobby:hunter2@127.0.0.1:1/lobby?connect_timeout=5";
        auto pg = open_store(url);
        REQUIRE_FALSE(pg.ok());
        CHECK(pg.error().code == ErrorCode::kConfig);
        CHECK_THAT(pg.error().message,
                   Catch::Contains(scheme + "://lobby:***@127.0.0.1:1/lobby?connect_timeout=5"));
        CHECK_THAT(pg.error().message, !Catch::Contains("hunter2"));
    }
    // libpq quotes a malformed part of the URL back, here the password: scrubbed too.
    auto malformed = open_store("postgresql://lobby:%zzhunter2@127.0.0.1:1/lobby");
    REQUIRE_FALSE(malformed.ok());
    CHECK_THAT(malformed.error().message, Catch::Contains("percent"));
    CHECK_THAT(malformed.error().message, !Catch::Contains("hunter2"));
}

TEST_CASE("lobby store: passwords are hidden from URLs shown in messages", "[lobby][store]") {
    CHECK(redact_store_url("postgresql://lobby:s3cret@db.example:5432/lobby") ==
          "postgresql://lobby:***@db.example:5432/lobby");
    CHECK(redact_store_url("postgres://lobby:p@ss:w@rd@db.example/lobby") ==
          "postgres://lobby:***@db.example/lobby");
    CHECK(
        redact_store_url("postgresql://db.example/lobby?user=x&password=s3cret&sslmode=require") ==
        "postgresql://db.example/lobby?user=x&password=***&sslmode=require");
    CHECK(redact_store_url("postgresql://lobby:a@b/db?password=c") ==
          "postgresql://lobby:***@b/db?password=***");
    // Nothing secret: unchanged.
    CHECK(redact_store_url("postgresql://lobby@db.example/lobby") ==
          "postgresql://lobby@db.example/lobby");
    CHECK(redact_store_url("postgresql:///lobby?host=/run/postgresql") ==
          "postgresql:///lobby?host=/run/postgresql");
    CHECK(redact_store_url("sqlite:/var/lib/framelock/lobby.db") ==
          "sqlite:/var/lib/framelock/lobby.db");
    CHECK(redact_store_url("lobby@home.db") == "lobby@home.db");
}
