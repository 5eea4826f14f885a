// Opening and migrating the lobby's storage, on both backends as lobby_store_test.cpp: the
// schema's migrations (once, also from processes starting together), two stores on one
// database, the backend a URL names, and passwords kept out of the URLs shown.
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lobby/tests/store_test_support.h"
#include "support/process.h"

using namespace lobby_store_test;

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
