// What bounds a client of the lobby's API, and the parts that do it: the rate limit per
// address, the lockout of wrong passwords, and the password workers' bounded queue, which
// keeps lists and heartbeats answered while checks are pending.
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lobby/join_lockout.h"
#include "lobby/password_workers.h"
#include "lobby/secrets.h"
#include "lobby/tests/api_test_support.h"

using namespace lobby_api_test;

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
