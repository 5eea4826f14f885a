// The lobby's API: the same suite against SQLite and a real PostgreSQL (a throwaway server
// this process starts; skipped with exit 77 without the PostgreSQL server). Requests go
// straight to LobbyApi::handle with the time passed in; lobby_http_test.cpp covers the
// HTTP layer with real processes.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lobby/api.h"
#include "lobby/join_lockout.h"
#include "lobby/password_workers.h"
#include "lobby/secrets.h"
#include "lobby/store.h"
#include "support/pg_cluster.h"
#include "support/temp_dir.h"

using namespace framelock;
using namespace framelock::lobby;
using json = nlohmann::json;

namespace {

constexpr std::int64_t kT0 = 1'800'000'000'000;  // a fixed "now" (2027)

struct Client {
    LobbyApi& api;
    std::string ip = "10.0.0.1";
    std::int64_t now = kT0;
    ApiResponse call(const std::string& method, const std::string& path, const json& body = {},
                     const std::string& token = "", std::map<std::string, std::string> query = {}) {
        ApiRequest r;
        r.method = method;
        r.path = path;
        r.body = body.is_null() ? "" : body.dump();
        r.bearer = token;
        r.client = ip;
        r.now_ms = now;
        r.query = std::move(query);
        return api.handle(r);
    }
    json ok(const std::string& method, const std::string& path, const json& body = {},
            const std::string& token = "", std::map<std::string, std::string> query = {}) {
        const ApiResponse res = call(method, path, body, token, std::move(query));
        INFO(method << " " << path << " -> " << res.status << " " << res.body);
        REQUIRE(res.status >= 200);
        REQUIRE(res.status < 300);
        return res.body.empty() ? json{} : json::parse(res.body);
    }
};

json room_body(const std::string& game, int slots = 2) {
    return json{{"host_name", "alice"},
                {"game_name", game},
                {"content_hash", "0123456789abcdef"},
                {"core_name", "fbneo"},
                {"core_version", "1.0.0.03"},
                {"mode", "framelock"},
                {"slots", slots},
                {"players", 1},
                {"region", "eu-west"},
                {"server_address", "203.0.113.7:7845"}};
}

// The store at `url`, its schema migrated.
std::unique_ptr<LobbyStore> migrated_store(const std::string& url) {
    auto store = open_store(url);
    REQUIRE(store);
    REQUIRE(store.value()->migrate());
    return std::move(store).value();
}

// A SQLite store for the tests that are about the API, not the backends.
struct SqliteLobby {
    test::TempDir dir{"lobby-api"};
    std::unique_ptr<LobbyStore> store = migrated_store("sqlite:" + dir.file("lobby.db"));
};

// Runs `body` with a client of a LobbyApi set up by `config`, once on every backend this
// machine can provide; what the body reports names the backend.
void for_each_store(const ApiConfig& config, const std::function<void(Client&)>& body) {
    const auto run = [&](LobbyStore& store, const char* backend) {
        INFO(backend);
        LobbyApi api(store, config);
        Client c{api};
        body(c);
    };
    SECTION("SQLite") {
        SqliteLobby lobby;
        run(*lobby.store, "sqlite");
    }
    SECTION("PostgreSQL") {
        static test::PgCluster cluster;  // one server for the whole test process
        run(*migrated_store(cluster.create_database()), "postgresql");
    }
}

}  // namespace

TEST_CASE(
    "Lobby API: rooms are created, listed with filters, found by code, joined, kept "
    "alive by heartbeats, and expire",
    "[lobby][api]") {
    for_each_store(ApiConfig{}, [](Client& c) {
        const json created = c.ok("POST", "/api/rooms", room_body("Blazing Star"));
        const std::string id = created["room"]["id"], code = created["room"]["code"];
        const std::string token = created["token"];
        CHECK(id.size() == 32);
        CHECK(code.size() == 6);
        CHECK(token.size() == 64);
        CHECK(created["room"]["has_password"] == false);
        CHECK(created["room"]["expires_ms"] == kT0 + 30'000);
        c.ok("POST", "/api/rooms", [] {
            json b = room_body("Metal Slug", 4);
            b["mode"] = "rollback";
            b["password"] = "hunter2";
            b["core_name"] = "mame";
            return b;
        }());
        json full = room_body("Blazing Star");
        full["players"] = 2;
        c.ok("POST", "/api/rooms", full);

        CHECK(c.ok("GET", "/api/rooms")["rooms"].size() == 3);
        CHECK(c.ok("GET", "/api/rooms", {}, "", {{"game", "Blazing Star"}})["rooms"].size() == 2);
        CHECK(c.ok("GET", "/api/rooms", {}, "", {{"core", "mame"}})["rooms"].size() == 1);
        CHECK(c.ok("GET", "/api/rooms", {}, "", {{"mode", "rollback"}})["rooms"].size() == 1);
        CHECK(c.ok("GET", "/api/rooms", {}, "",
                   {{"game", "Blazing Star"}, {"has_slots", "1"}})["rooms"]
                  .size() == 1);
        CHECK(c.ok("GET", "/api/rooms", {}, "", {{"limit", "1"}})["rooms"].size() == 1);
        // The password never leaves the lobby, not even hashed.
        const json listed = c.ok("GET", "/api/rooms");
        for (const auto& r : listed["rooms"]) {
            CHECK_FALSE(r.contains("password"));
            CHECK_FALSE(r.contains("password_hash"));
            CHECK_FALSE(r.contains("token_hash"));
        }

        const json by_code = c.ok("GET", "/api/rooms/" + code);
        CHECK(by_code["id"] == id);
        const json joined = c.ok("POST", "/api/rooms/" + code + "/join", json::object());
        CHECK(joined["server_address"] == "203.0.113.7:7845");
        CHECK(joined["full"] == false);

        // Heartbeats keep a room; without them it is gone after the TTL.
        c.now = kT0 + 25'000;
        const json beat =
            c.ok("POST", "/api/rooms/" + id + "/heartbeat", json{{"players", 2}}, token);
        CHECK(beat["players"] == 2);
        c.now = kT0 + 40'000;
        CHECK(c.ok("GET", "/api/rooms")["rooms"].size() == 1);  // only the heartbeated one
        CHECK(c.call("GET", "/api/rooms/" + code).status == 200);
        c.now = kT0 + 56'000;
        CHECK(c.ok("GET", "/api/rooms")["rooms"].empty());
        const ApiResponse gone = c.call("GET", "/api/rooms/" + code);
        CHECK(gone.status == 404);
        CHECK(json::parse(gone.body)["error"].get<std::string>().find(code) != std::string::npos);
    });
}

TEST_CASE("Lobby API: only the host's token updates or deletes a room; passwords are checked",
          "[lobby][api]") {
    for_each_store(ApiConfig{}, [](Client& c) {
        json body = room_body("KOF 98");
        body["password"] = "s3cret";
        const json created = c.ok("POST", "/api/rooms", body);
        const std::string id = created["room"]["id"], code = created["room"]["code"];
        const std::string token = created["token"];
        CHECK(created["room"]["has_password"] == true);

        CHECK(c.call("PATCH", "/api/rooms/" + id, json{{"players", 2}}).status == 401);
        CHECK(c.call("PATCH", "/api/rooms/" + id, json{{"players", 2}}, std::string(64, 'a'))
                  .status == 403);
        CHECK(c.call("DELETE", "/api/rooms/" + id, {}, "wrong").status == 403);
        CHECK(c.ok("PATCH", "/api/rooms/" + id, json{{"players", 2}, {"game_name", "KOF 98 UM"}},
                   token)["game_name"] == "KOF 98 UM");

        const ApiResponse no_pw = c.call("POST", "/api/rooms/" + code + "/join", json::object());
        CHECK(no_pw.status == 403);
        CHECK_THAT(no_pw.body, Catch::Contains("needs a password"));
        const ApiResponse bad_pw =
            c.call("POST", "/api/rooms/" + code + "/join", json{{"password", "guess"}});
        CHECK(bad_pw.status == 403);
        CHECK_THAT(bad_pw.body, Catch::Contains("wrong password"));
        const json in = c.ok("POST", "/api/rooms/" + code + "/join", json{{"password", "s3cret"}});
        CHECK(in["server_address"] == "203.0.113.7:7845");
        CHECK(in["full"] == true);

        CHECK(c.call("DELETE", "/api/rooms/" + id, {}, token).status == 204);
        CHECK(c.call("GET", "/api/rooms/" + id).status == 404);
    });
}

TEST_CASE(
    "Lobby API: relay servers register and heartbeat; a room without an address goes to "
    "the least-loaded live server",
    "[lobby][api]") {
    for_each_store(ApiConfig{}, [](Client& c) {
        json body = room_body("1941");
        body.erase("server_address");
        const ApiResponse none = c.call("POST", "/api/rooms", body);
        CHECK(none.status == 409);
        CHECK_THAT(none.body, Catch::Contains("no relay server"));

        const json a = c.ok("POST", "/api/servers",
                            json{{"address", "10.1.0.1:7845"}, {"capacity", 10}, {"load", 8}});
        const json b = c.ok("POST", "/api/servers",
                            json{{"address", "10.1.0.2:7845"}, {"capacity", 10}, {"load", 3}});
        CHECK(c.ok("POST", "/api/rooms", body)["room"]["server_address"] == "10.1.0.2:7845");
        // b fills up: a is the least loaded now.
        c.ok("POST", "/api/servers/" + b["server"]["id"].get<std::string>() + "/heartbeat",
             json{{"load", 10}}, b["token"]);
        CHECK(c.ok("POST", "/api/rooms", body)["room"]["server_address"] == "10.1.0.1:7845");
        CHECK(c.call("POST", "/api/servers/" + a["server"]["id"].get<std::string>() + "/heartbeat",
                     json{{"load", 1}}, b["token"])
                  .status == 403);
        CHECK(c.ok("GET", "/api/servers")["servers"].size() == 2);
        // Servers that stop heartbeating are gone.
        c.now = kT0 + 31'000;
        CHECK(c.ok("GET", "/api/servers")["servers"].empty());
        CHECK(c.call("POST", "/api/rooms", body).status == 409);
    });
}

TEST_CASE("Lobby API: bad input gets a 4xx with a JSON error, never a 5xx, and changes nothing",
          "[lobby][api][robustness]") {
    ApiConfig config;
    config.burst = 1000;
    for_each_store(config, [](Client& c) {
        const json created = c.ok("POST", "/api/rooms", room_body("Garou"));
        const std::string id = created["room"]["id"];
        const auto refused = [&](const std::string& method, const std::string& path,
                                 const std::string& raw_body, int status, const char* words) {
            ApiRequest r;
            r.method = method;
            r.path = path;
            r.body = raw_body;
            r.client = c.ip;
            r.now_ms = c.now;
            const ApiResponse res = c.api.handle(r);
            INFO(method << " " << path << " " << raw_body.substr(0, 80) << " -> " << res.status
                        << " " << res.body);
            CHECK(res.status == status);
            const json j = json::parse(res.body, nullptr, false);
            REQUIRE(j.is_object());
            CHECK_THAT(j.value("error", std::string()), Catch::Contains(words));
        };
        refused("POST", "/api/rooms", std::string(9000, 'x'), 413, "limit is 8192");
        refused("POST", "/api/rooms", "{not json", 400, "not valid JSON");
        refused("POST", "/api/rooms", "[1,2]", 400, "JSON object");
        // A good room body with one field made bad, and what the refusal says.
        struct BadField {
            const char* field;
            json value;
            const char* words;
        };
        const BadField bad_fields[] = {
            {"slots", "two", "\"slots\" must be an integer"},
            {"slots", 99, "between 1 and 8"},
            {"game_name", std::string(200, 'g'), "\"game_name\" must be 1 to 128"},
            {"host_name", "bell\x07", "printable"},
            {"content_hash", "'; DROP TABLE--", "content_hash"},
            {"server_address", "evil host:99999", "host:port"},
            {"mode", "turbo", "framelock, nowait or rollback"},
        };
        for (const BadField& bad : bad_fields) {
            json wrong = room_body("Garou");
            wrong[bad.field] = bad.value;
            refused("POST", "/api/rooms", wrong.dump(), 400, bad.words);
        }
        refused("GET", "/api/rooms/ZZZZZZ", "", 404, "no live room ZZZZZZ");
        refused("GET", "/api/rooms/'%20OR%201=1", "", 400, "id or its 6-character code");
        refused("POST", "/api/rooms/" + id + "/heartbeat", "", 401, "token");
        refused("DELETE", "/api/nothing", "", 404, "no such endpoint");
        // Bytes that are not UTF-8, echoed in the error, still make a 4xx with valid JSON.
        refused("GET\xff", "/api/\xc3", "", 404, "no such endpoint");
        refused("GET", "/nothing/" + std::string(90, 'a') + "\xe2\x82\xac", "", 404,
                "no such endpoint");  // the echo cuts the path at 100 bytes, inside the euro sign
        const ApiResponse bad_limit = c.call("GET", "/api/rooms", {}, "", {{"limit", "abc"}});
        CHECK(bad_limit.status == 400);
        CHECK_THAT(json::parse(bad_limit.body)["error"].get<std::string>(),
                   Catch::Contains("\"limit\" must be a number"));

        // SQL metacharacters in text are data, stored and returned as they are.
        json sly = room_body("Robert'); DROP TABLE rooms;--");
        sly["host_name"] = "\"quoted\" \\ back\\slash ünïcödé";
        const json made = c.ok("POST", "/api/rooms", sly);
        const json got = c.ok("GET", "/api/rooms/" + made["room"]["code"].get<std::string>());
        CHECK(got["game_name"] == "Robert'); DROP TABLE rooms;--");
        CHECK(got["host_name"] == "\"quoted\" \\ back\\slash ünïcödé");
        CHECK(c.ok("GET", "/api/rooms", {}, "", {{"game", "x' OR '1'='1"}})["rooms"].empty());
        CHECK(c.ok("GET", "/api/rooms")["rooms"].size() == 2);  // nothing else changed
    });
}

TEST_CASE("Lobby API: a client flooding requests is slowed down with 429, others are not",
          "[lobby][api][robustness]") {
    SqliteLobby lobby;
    ApiConfig config;
    config.rate_per_s = 10;
    config.burst = 20;
    LobbyApi api(*lobby.store, config);
    Client flood{api, "10.9.9.9"}, calm{api, "10.1.1.1"};
    int ok = 0, limited = 0;
    for (int i = 0; i < 200; ++i) {
        const ApiResponse r = flood.call("GET", "/api/rooms");
        (r.status == 429 ? limited : ok) += 1;
        if (r.status == 429) CHECK_THAT(r.body, Catch::Contains("too many requests"));
    }
    CHECK(ok == 20);
    CHECK(limited == 180);
    CHECK(calm.call("GET", "/api/rooms").status == 200);
    flood.now += 1000;  // a second later: 10 more
    int later = 0;
    for (int i = 0; i < 20; ++i) later += flood.call("GET", "/api/rooms").status == 200;
    CHECK(later == 10);
    // The flood shows in the metrics.
    const ApiResponse metrics = calm.call("GET", "/metrics");
    CHECK_THAT(metrics.body,
               Catch::Contains(
                   "framelock_lobby_requests_total{route=\"rate_limited\",status=\"429\"} 190"));
}

namespace {

// Runs `action` when the scope ends, also when a REQUIRE leaves it early.
struct OnExit {
    std::function<void()> action;
    ~OnExit() { action(); }
};

// A door the slow jobs below wait at until the test opens it.
class Gate {
  public:
    void wait() {
        std::unique_lock lock(m_mutex);
        m_opened.wait(lock, [&] { return m_open; });
    }
    void open() {
        {
            std::lock_guard lock(m_mutex);
            m_open = true;
        }
        m_opened.notify_all();
    }

  private:
    std::mutex m_mutex;
    std::condition_variable m_opened;
    bool m_open = false;
};

// Polls `done` every 5 ms for up to 60 s (a shared 2-core machine, maybe under TSan).
void wait_until(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!done()) {
        REQUIRE(std::chrono::steady_clock::now() < deadline);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

}  // namespace

TEST_CASE("Lobby API: wrong passwords lock one address out of one room for a while",
          "[lobby][api][robustness]") {
    SqliteLobby lobby;
    ApiConfig config;
    config.lockout.failures = 5;
    config.lockout.lockout_ms = 60'000;
    config.room_ttl_ms = 600'000;  // the room outlives the lockout without heartbeats
    LobbyApi api(*lobby.store, config);
    Client guesser{api, "10.6.6.6"}, player{api, "10.1.1.1"};
    json body = room_body("Garou");
    body["password"] = "s3cret";
    const std::string code = guesser.ok("POST", "/api/rooms", body)["room"]["code"];
    const std::string other = guesser.ok("POST", "/api/rooms", body)["room"]["code"];
    const std::string join = "/api/rooms/" + code + "/join";

    for (int i = 0; i < 5; ++i) {
        const ApiResponse wrong = guesser.call("POST", join, json{{"password", "guess"}});
        CHECK(wrong.status == 403);
        CHECK_THAT(wrong.body, Catch::Contains("wrong password"));
    }
    // Locked: even the right password is not checked, and the answer says for how long.
    const ApiResponse locked = guesser.call("POST", join, json{{"password", "s3cret"}});
    CHECK(locked.status == 429);
    CHECK(locked.retry_after_s == 60);
    CHECK(json::parse(locked.body)["retry_after_s"] == 60);
    CHECK_THAT(locked.body, Catch::Contains("too many wrong passwords for room " + code) &&
                                Catch::Contains("try again in 60 s"));
    guesser.now += 45'000;
    CHECK(json::parse(guesser.call("POST", join, json{{"password", "x"}}).body)["retry_after_s"] ==
          15);
    // Another address joins the same room; the guesser may still try another room.
    CHECK(player.ok("POST", join, json{{"password", "s3cret"}})["server_address"] ==
          "203.0.113.7:7845");
    CHECK(guesser.call("POST", "/api/rooms/" + other + "/join", json{{"password", "s3cret"}})
              .status == 200);
    // The lockout ends after its period.
    guesser.now += 15'000;
    CHECK(guesser.call("POST", join, json{{"password", "s3cret"}}).status == 200);

    // A right password clears the failures before it: 4 wrong, right, 4 wrong is no lockout.
    player.now = guesser.now;
    for (int round = 0; round < 2; ++round) {
        for (int i = 0; i < 4; ++i)
            CHECK(player.call("POST", join, json{{"password", "typo"}}).status == 403);
        if (round == 0)
            CHECK(player.call("POST", join, json{{"password", "s3cret"}}).status == 200);
    }
    CHECK(player.call("POST", join, json{{"password", "s3cret"}}).status == 200);

    const ApiResponse metrics = player.call("GET", "/metrics");
    CHECK_THAT(metrics.body, Catch::Contains("framelock_lobby_join_lockout_refused 2"));
}

TEST_CASE("Join lockout: memory stays bounded, the least recently used pair is forgotten",
          "[lobby][api][robustness]") {
    JoinLockout lockout(LockoutLimits{2, 1000, 3});
    const auto fail = [&](const std::string& room, const std::string& address, std::int64_t now) {
        REQUIRE(lockout.begin(room, address, now) == 0);
        lockout.finish(room, address, now, false);
    };
    fail("r1", "a", 0);
    fail("r1", "a", 0);
    CHECK(lockout.begin("r1", "a", 10) == 990);
    // A failure a whole period ago is forgotten.
    fail("r2", "a", 0);
    fail("r2", "a", 1000);
    CHECK(lockout.begin("r2", "a", 1000) == 0);
    lockout.cancel("r2", "a");
    // Three more pairs: the table holds 3, so ("r1", "a"), the oldest, goes.
    for (const char* address : {"b", "c", "d"}) fail("r3", address, 20);
    CHECK(lockout.size() == 3);
    CHECK(lockout.begin("r1", "a", 20) == 0);
    CHECK(lockout.size() == 3);
    // Checks still running count: with one wrong and one pending, a third must wait.
    JoinLockout pending(LockoutLimits{2, 1000, 10});
    REQUIRE(pending.begin("r", "a", 0) == 0);
    pending.finish("r", "a", 0, false);
    REQUIRE(pending.begin("r", "a", 0) == 0);
    CHECK(pending.begin("r", "a", 0) > 0);
    CHECK(pending.refused() == 1);
}

TEST_CASE("Password workers: a full queue refuses at once, nothing waits without bound",
          "[lobby][api][robustness]") {
    PasswordWorkers workers(1, 1);
    Gate gate;
    std::atomic<int> first{0}, second{0};
    std::thread a, b;
    // Before `workers` goes (declared after it), also after a failed REQUIRE: the slow jobs
    // are let go and their callers joined.
    OnExit finish{[&] {
        gate.open();
        if (a.joinable()) a.join();
        if (b.joinable()) b.join();
    }};
    // A caller whose job holds its worker until the gate opens, then answers `value`.
    const auto slow_caller = [&](std::atomic<int>& answer, int value) {
        return std::thread([&answer, &workers, &gate, value] {
            answer = workers
                         .run<int>([&gate, value] {
                             gate.wait();
                             return value;
                         })
                         .value_or(-1);
        });
    };
    a = slow_caller(first, 1);
    wait_until([&] { return workers.in_flight() == 1; });
    b = slow_caller(second, 2);
    wait_until([&] { return workers.in_flight() == 2; });
    // One running, one waiting: full. The refusal comes at once, nothing ran.
    CHECK_FALSE(workers.run<int>([] { return 3; }));
    CHECK(workers.refused() == 1);
    finish.action();
    CHECK(first == 1);
    CHECK(second == 2);
    CHECK(workers.run<int>([] { return 4; }) == 4);
}

TEST_CASE("Lobby API: lists and heartbeats are answered while password checks are pending",
          "[lobby][api][robustness]") {
    SqliteLobby lobby;
    ApiConfig config;
    config.password_threads = 2;
    config.password_queue = 4;
    config.burst = 1000;  // the host's 60 requests below all come at one instant
    // Checks that hold their worker until the test lets them go: "slow" without timing.
    Gate gate;
    config.check_password = [&gate](const std::string& hash, const std::string& password) {
        gate.wait();
        return check_password(hash, password);
    };
    LobbyApi api(*lobby.store, config);
    Client host{api, "10.1.1.1"};
    json body = room_body("Windjammers");
    body["password"] = "s3cret";
    const json created = host.ok("POST", "/api/rooms", body);
    const std::string id = created["room"]["id"], token = created["token"];

    // Six joins with a wrong password, from six addresses: two checks run, four wait.
    std::array<std::atomic<int>, 6> statuses{};
    std::vector<std::thread> joins;
    // Whatever happens below, the checks go on and the joins end before `api` goes.
    OnExit finish{[&] {
        gate.open();
        for (auto& j : joins)
            if (j.joinable()) j.join();
    }};
    for (int i = 0; i < 6; ++i) {
        joins.emplace_back([&, i] {
            Client guesser{api, "10.7.0." + std::to_string(i)};
            statuses[i] =
                guesser.call("POST", "/api/rooms/" + id + "/join", json{{"password", "no"}}).status;
        });
    }
    wait_until([&] { return api.password_jobs() == 6; });

    // A seventh finds the queue full: refused at once with Retry-After.
    Client late{api, "10.7.1.1"};
    const ApiResponse busy =
        late.call("POST", "/api/rooms/" + id + "/join", json{{"password", "no"}});
    CHECK(busy.status == 503);
    CHECK(busy.retry_after_s == 1);
    CHECK_THAT(busy.body, Catch::Contains("busy checking passwords"));

    // Lists, lookups and heartbeats all come back while the six checks are still pending.
    int answered_while_pending = 0;
    for (int i = 0; i < 20; ++i) {
        const json list = host.ok("GET", "/api/rooms");
        CHECK(list["rooms"].size() == 1);
        host.ok("POST", "/api/rooms/" + id + "/heartbeat", json{{"players", 1}}, token);
        host.ok("GET", "/api/rooms/" + id);
        if (api.password_jobs() == 6) ++answered_while_pending;
    }
    CHECK(answered_while_pending == 20);
    for (const auto& status : statuses) CHECK(status == 0);  // no join answered yet

    finish.action();
    for (const auto& status : statuses) CHECK(status == 403);
    CHECK(api.password_jobs() == 0);
    // The refused join was not counted against its address: the right password goes in.
    CHECK(late.call("POST", "/api/rooms/" + id + "/join", json{{"password", "s3cret"}}).status ==
          200);
}

namespace {

// A relay session registered with the lobby (capacity 1, as `framelock server` registers
// each session port): its id.
std::string register_relay(Client& c, const std::string& address, int load = 0) {
    const json made =
        c.ok("POST", "/api/servers", json{{"address", address}, {"capacity", 1}, {"load", load}});
    return made["server"]["id"];
}

json probes_json(const std::vector<std::pair<std::string, double>>& probes) {
    json out = json::object();
    for (const auto& [id, ms] : probes) out[id] = ms;
    return out;
}

json relay_room_body(const json& probes) {
    json body = room_body("Blazing Star");
    body.erase("server_address");
    body["players"] = 0;
    body["probes"] = probes;
    return body;
}

struct Moves {
    std::mutex mutex;
    std::vector<std::pair<std::string, std::string>> seen;  // room id, new address
};

}  // namespace

TEST_CASE(
    "Lobby API: the relay that minimises the worst player's round trip; a join moves a room "
    "still waiting for its second player there",
    "[lobby][api][relay]") {
    ApiConfig config;
    config.burst = 1000;
    auto moves = std::make_shared<Moves>();
    config.on_room_moved = [moves](const std::string& room, const std::string& address) {
        std::lock_guard lock(moves->mutex);
        moves->seen.emplace_back(room, address);
    };
    for_each_store(config, [&](Client& c) {
        moves->seen.clear();
        const std::string r20 = register_relay(c, "198.51.100.20:7000");
        const std::string r60 = register_relay(c, "198.51.100.60:7000");
        const std::string r120 = register_relay(c, "198.51.100.120:7000");

        SECTION("both players near the same relay: it is chosen, and the room stays there") {
            const json host = probes_json({{r20, 20}, {r60, 60}, {r120, 120}});
            const json created = c.ok("POST", "/api/rooms", relay_room_body(host));
            CHECK(created["room"]["server_address"] == "198.51.100.20:7000");
            CHECK(created["room"]["fps"] == 60.0);
            const std::string code = created["room"]["code"];

            Client joiner{c.api, "10.0.0.2", c.now};
            CHECK(joiner.ok("POST", "/api/probes",
                            json{{"probes",
                                  probes_json({{r20, 21.5}, {r60, 59}, {r120, 118}})}})["stored"] ==
                  3);
            const json listed = joiner.ok("GET", "/api/rooms");
            REQUIRE(listed["rooms"].size() == 1);
            // 21.5 ms (the worse of 20 and 21.5) + 1 ms margin: 2 frames at 60 fps.
            CHECK(listed["rooms"][0]["expected_delay"] == 2);
            CHECK(listed["rooms"][0]["expected_rtt_ms"] == 21.5);
            // The host's own list, without probes of its own: no estimate.
            CHECK(!c.ok("GET", "/api/rooms")["rooms"][0].contains("expected_delay"));

            const json joined =
                joiner.ok("POST", "/api/rooms/" + code + "/join",
                          json{{"probes", probes_json({{r20, 21.5}, {r60, 59}, {r120, 118}})}});
            CHECK(joined["server_address"] == "198.51.100.20:7000");
            CHECK(joined["expected_delay"] == 2);
            CHECK(moves->seen.empty());
        }
        SECTION("crossed latencies: the middle relay, the room moves, the host hears of it") {
            const json host = probes_json({{r20, 20}, {r60, 60}, {r120, 120}});
            json body = relay_room_body(host);
            body["fps"] = 30;
            const json created = c.ok("POST", "/api/rooms", body);
            const std::string id = created["room"]["id"], code = created["room"]["code"];
            const std::string token = created["token"];
            CHECK(created["room"]["server_address"] == "198.51.100.20:7000");
            CHECK(created["room"]["fps"] == 30.0);
            // The host connected to its relay session: that relay now reports itself full.
            c.ok("POST", "/api/rooms/" + id + "/heartbeat", json{{"players", 1}}, token);

            Client joiner{c.api, "10.0.0.2", c.now};
            const json mine = probes_json({{r20, 120}, {r60, 60}, {r120, 20}});
            // The estimate before joining: the relay the join would pick (60 ms for both;
            // 61 ms at 30 fps: 2 frames), from probes in the query.
            const json listed =
                joiner.ok("GET", "/api/rooms", {}, "",
                          {{"probes", r20 + ":120," + r60 + ":60," + r120 + ":20"}});
            REQUIRE(listed["rooms"].size() == 1);
            CHECK(listed["rooms"][0]["expected_delay"] == 2);
            CHECK(listed["rooms"][0]["expected_rtt_ms"] == 60.0);
            const json one = joiner.ok("GET", "/api/rooms/" + code, {}, "",
                                       {{"probes", r20 + ":120," + r60 + ":60"}});
            CHECK(one["expected_rtt_ms"] == 60.0);

            const json joined =
                joiner.ok("POST", "/api/rooms/" + code + "/join", json{{"probes", mine}});
            CHECK(joined["server_address"] == "198.51.100.60:7000");
            CHECK(joined["room"]["server_address"] == "198.51.100.60:7000");
            CHECK(joined["expected_delay"] == 2);
            {
                std::lock_guard lock(moves->mutex);
                REQUIRE(moves->seen.size() == 1);
                CHECK(moves->seen[0].first == id);
                CHECK(moves->seen[0].second == "198.51.100.60:7000");
            }
            // The host's next heartbeat answer carries the new address, and keeps it.
            const json beat =
                c.ok("POST", "/api/rooms/" + id + "/heartbeat", json{{"players", 1}}, token);
            CHECK(beat["server_address"] == "198.51.100.60:7000");
            CHECK(c.ok("GET", "/api/rooms/" + code)["server_address"] == "198.51.100.60:7000");

            // Once two play, a third player's probes move nothing.
            c.ok("POST", "/api/rooms/" + id + "/heartbeat", json{{"players", 2}}, token);
            Client late{c.api, "10.0.0.3", c.now};
            const json stays = late.ok("POST", "/api/rooms/" + code + "/join",
                                       json{{"probes", probes_json({{r20, 5}, {r60, 90}})}});
            CHECK(stays["full"] == true);  // 2 of 2
            CHECK(stays["server_address"] == "198.51.100.60:7000");
            std::lock_guard lock(moves->mutex);
            CHECK(moves->seen.size() == 1);
        }
        SECTION("a room whose host runs its own server: no estimate, unless relay: true") {
            json body = room_body("Garou");  // server_address given: the host's own
            body["probes"] = probes_json({{r20, 20}, {r60, 60}, {r120, 120}});
            const json created = c.ok("POST", "/api/rooms", body);
            const std::string code = created["room"]["code"];
            Client joiner{c.api, "10.0.0.2", c.now};
            joiner.ok("POST", "/api/probes",
                      json{{"probes", probes_json({{r20, 150}, {r60, 70}, {r120, 30}})}});
            CHECK(!joiner.ok("GET", "/api/rooms")["rooms"][0].contains("expected_delay"));
            const json direct = joiner.ok("POST", "/api/rooms/" + code + "/join",
                                          json{{"probes", probes_json({{r20, 150}})}});
            CHECK(direct["server_address"] == "203.0.113.7:7845");
            CHECK(!direct.contains("expected_delay"));
            CHECK(moves->seen.empty());
            // "I cannot reach the host": onto the relay best for both (max 70 on r60).
            const json relayed =
                joiner.ok("POST", "/api/rooms/" + code + "/join",
                          json{{"probes", probes_json({{r20, 150}, {r60, 70}, {r120, 30}})},
                               {"relay", true}});
            CHECK(relayed["server_address"] == "198.51.100.60:7000");
            CHECK(relayed["expected_rtt_ms"] == 70.0);
            CHECK(relayed["expected_delay"] == 5);  // 71 ms at 60 fps
            std::lock_guard lock(moves->mutex);
            REQUIRE(moves->seen.size() == 1);
            CHECK(moves->seen[0].second == "198.51.100.60:7000");
        }
    });
}

TEST_CASE("Lobby API: relay probes and flags are validated; relay: true with every relay busy",
          "[lobby][api][relay][robustness]") {
    ApiConfig config;
    config.burst = 1000;
    for_each_store(config, [](Client& c) {
        const std::string busy = register_relay(c, "198.51.100.9:7000", 1);
        const json created = c.ok("POST", "/api/rooms", room_body("Garou"));
        const std::string code = created["room"]["code"];
        const auto refused = [&](const std::string& method, const std::string& path,
                                 const json& body, int status, const char* words,
                                 std::map<std::string, std::string> query = {}) {
            const ApiResponse res = c.call(method, path, body, "", std::move(query));
            INFO(method << " " << path << " " << body.dump().substr(0, 120) << " -> " << res.status
                        << " " << res.body);
            CHECK(res.status == status);
            const json j = json::parse(res.body, nullptr, false);
            REQUIRE(j.is_object());
            CHECK_THAT(j.value("error", std::string()), Catch::Contains(words));
        };
        const std::string id32(32, 'a');
        json many = json::object();
        for (int i = 0; i < 65; ++i) {
            char id[33];
            std::snprintf(id, sizeof id, "%032x", i);
            many[id] = 10;
        }
        const json bad_probes[] = {json::array({1, 2}),
                                   json{{"short", 10}},
                                   json{{std::string(32, 'G'), 10}},
                                   json{{id32, -1}},
                                   json{{id32, 10'001}},
                                   json{{id32, "ten"}},
                                   many};
        const char* bad_words[] = {"must be an object", "32-digit id",   "32-digit id",
                                   "0 to 10000 ms",     "0 to 10000 ms", "must be a number",
                                   "at most 64"};
        for (std::size_t i = 0; i < std::size(bad_probes); ++i) {
            json room = room_body("Garou");
            room["probes"] = bad_probes[i];
            refused("POST", "/api/rooms", room, 400, bad_words[i]);
            refused("POST", "/api/rooms/" + code + "/join", json{{"probes", bad_probes[i]}}, 400,
                    bad_words[i]);
            refused("POST", "/api/probes", json{{"probes", bad_probes[i]}}, 400, bad_words[i]);
        }
        refused("POST", "/api/probes", json{{"other", 1}}, 400, "\"probes\" is required");
        for (const json& fps : {json(0), json(1001), json("60")}) {
            json room = room_body("Garou");
            room["fps"] = fps;
            refused("POST", "/api/rooms", room, 400, "\"fps\" must be a number from 1 to 1000");
        }
        refused("POST", "/api/rooms/" + code + "/join", json{{"relay", "yes"}}, 400,
                "\"relay\" must be true or false");
        for (const std::string& q : std::vector<std::string>{
                 "abc", id32 + ":", id32 + ":-3", id32 + ":1e9", "x:5", id32 + ":20000"}) {
            refused("GET", "/api/rooms", {}, 400, "probes", {{"probes", q}});
        }
        // A joiner that cannot reach the host, with every relay busy: said so, nothing moves.
        refused("POST", "/api/rooms/" + code + "/join",
                json{{"relay", true}, {"probes", json{{busy, 10}}}}, 409,
                "no relay server has room");
        CHECK(c.ok("GET", "/api/rooms/" + code)["server_address"] == "203.0.113.7:7845");
        CHECK(c.ok("GET", "/api/rooms")["rooms"].size() == 1);
    });
}
