// The lobby's storage: one suite of behaviour run against both backends, SQLite on a
// temp file and PostgreSQL on a real throwaway server this process starts (skipped, exit
// 77, when the PostgreSQL server is not installed): rooms and relay servers stored, read,
// updated, moved, listed and expired. Opening and migrating a store:
// lobby_store_open_test.cpp.
#include <optional>
#include <string>
#include <vector>

#include "lobby/tests/store_test_support.h"

using namespace lobby_store_test;

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

    const auto relay = [](const char* address, const char* id, const char* key) {
        RelayServer s;
        s.address = address;
        s.id = id;
        s.server_key = key;
        return s;
    };
    CHECK(ok(store->move_room(
              original.room.id, original.room.server_id,
              relay("198.51.100.2:7000", "5e0010000000000000000000000000a2", "key-of-a2"),
              kT0 + 100)) == true);
    // Of two joiners moving it at once, the second finds it moved.
    CHECK(ok(store->move_room(
              original.room.id, original.room.server_id,
              relay("198.51.100.3:7000", "5e0010000000000000000000000000a3", "key-of-a3"),
              kT0 + 100)) == false);
    CHECK(ok(store->move_room(
              "00000000000000000000000000000bad", original.room.server_id,
              relay("198.51.100.3:7000", "5e0010000000000000000000000000a3", "key-of-a3"),
              kT0 + 100)) == false);

    // ... and writes after it: the players count lands, the move stays.
    CHECK(ok(store->update_room(stale, kT0 + 500)) == true);
    const auto moved = ok(store->get_room(original.room.code, kT0 + 600));
    REQUIRE(moved);
    CHECK(moved->room.server_address == "198.51.100.2:7000");
    CHECK(moved->room.server_id == "5e0010000000000000000000000000a2");
    CHECK(moved->room.server_key == "key-of-a2");  // the key follows the relay
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
    CHECK(ok(store->move_room(original.room.id, "5e0010000000000000000000000000a2",
                              relay("x:1", "y", "z"), kT0 + 500 + kLife)) == false);
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
