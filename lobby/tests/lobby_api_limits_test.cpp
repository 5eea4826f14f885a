// What bounds a client of the lobby's API, and the parts that do it: the rate limit per
// address, the budget of wrong passwords, and the password workers' bounded queue, which
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

#include "lobby/password_budget.h"
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

TEST_CASE(
    "Lobby API: a room's budget of wrong passwords: a client's share, an address's, the room's",
    "[lobby][api][robustness]") {
    SqliteLobby lobby;
    ApiConfig config;
    config.guesses.window_ms = 60'000;
    config.guesses.room = 6;
    config.guesses.address = 4;
    config.guesses.client = 2;
    config.room_ttl_ms = 600'000;  // the room outlives the window without heartbeats
    LobbyApi api(*lobby.store, config);
    Client guesser{api, "10.6.6.6"}, neighbour{api, "10.6.6.6"}, player{api, "10.1.1.1"};
    json body = room_body("Garou");
    body["password"] = "s3cret";
    const json created = guesser.ok("POST", "/api/rooms", body);
    const std::string code = created["room"]["code"], token = created["token"];
    const std::string other = guesser.ok("POST", "/api/rooms", body)["room"]["code"];
    const std::string join = "/api/rooms/" + code + "/join";
    const auto attempt = [&](Client& c, const std::string& password, const std::string& key) {
        json b{{"password", password}};
        if (!key.empty()) b["client_key"] = key;
        return c.call("POST", join, b);
    };
    const std::string kNeighbour = "neighbour-key-0001", kForged = "forged-key-00000001";

    // The guesser (no client key) spends its client's share; its next try, right or not, is
    // refused unchecked, and the answer says for how long.
    for (int i = 0; i < 2; ++i) {
        const ApiResponse wrong = attempt(guesser, "guess", "");
        CHECK(wrong.status == 403);
        CHECK_THAT(wrong.body, Catch::Contains("wrong password"));
    }
    const ApiResponse waits = attempt(guesser, "s3cret", "");
    CHECK(waits.status == 429);
    CHECK(waits.retry_after_s == 60);
    CHECK(json::parse(waits.body)["retry_after_s"] == 60);
    CHECK_THAT(waits.body, Catch::Contains("room " + code +
                                           " had 2 wrong passwords in the last "
                                           "60 s from this client at 10.6.6.6") &&
                               Catch::Contains("try again in 60 s"));
    // A player at the same address, with a key of its own: checked, and in at the first try.
    CHECK(attempt(neighbour, "s3cret", kNeighbour).status == 200);
    // A guesser forging a key per guess spends the address's share, no more.
    CHECK(attempt(guesser, "guess", kForged).status == 403);
    CHECK(attempt(guesser, "guess", kForged + "2").status == 403);
    const ApiResponse address = attempt(neighbour, "s3cret", kNeighbour);
    CHECK(address.status == 429);
    CHECK_THAT(address.body, Catch::Contains("had 4 wrong passwords in the last 60 s from "
                                             "10.6.6.6"));
    // Other addresses still have the rest of the room's budget; the guesser may try other
    // rooms; the host's token needs no password.
    CHECK(attempt(player, "typo", "").status == 403);
    CHECK(attempt(player, "typo", "").status == 403);
    CHECK(guesser.call("POST", "/api/rooms/" + other + "/join", json{{"password", "s3cret"}})
              .status == 200);
    // Six wrong in the window: the room's budget is spent, the password is checked for
    // nobody (the price of capping guesses from any number of addresses)...
    const ApiResponse room = attempt(player, "s3cret", "");
    CHECK(room.status == 429);
    CHECK_THAT(room.body, Catch::Contains("had 6 wrong passwords in the last 60 s from all "
                                          "addresses"));
    Client third{api, "10.2.2.2"};
    CHECK(attempt(third, "s3cret", "").status == 429);
    // ... but for its host.
    CHECK(guesser.call("POST", join, json::object(), token).status == 200);
    // The first failures leave the window after 60 s: room again.
    player.now = third.now = guesser.now = kT0 + 45'000;
    CHECK(attempt(third, "s3cret", "").retry_after_s == 15);
    player.now = third.now = kT0 + 60'000;
    CHECK(attempt(third, "s3cret", "").status == 200);
    CHECK(attempt(player, "s3cret", "").status == 200);

    const ApiResponse metrics = player.call("GET", "/metrics");
    CHECK_THAT(metrics.body, Catch::Contains("framelock_lobby_passwords_wrong 6") &&
                                 Catch::Contains("framelock_lobby_password_budget_refused 5"));
}

TEST_CASE("Password budget: windows, checks still running, bounded memory",
          "[lobby][api][robustness]") {
    using Level = PasswordBudget::Level;
    PasswordBudgetLimits limits;
    limits.window_ms = 1000;
    limits.room = 3;
    limits.address = 2;
    limits.client = 2;
    limits.max_entries = 3;
    PasswordBudget budget(limits);
    const auto fail = [&](const std::string& room, const std::string& address, std::int64_t now) {
        REQUIRE(!budget.begin(room, address, "", now));
        budget.finish(room, address, "", now, false);
    };
    fail("r1", "a", 0);
    fail("r1", "a", 0);
    const auto wait = budget.begin("r1", "a", "", 10);
    REQUIRE(wait);
    CHECK(wait->ms == 990);
    CHECK(wait->wrong == 2);
    // A failure a whole window ago is forgotten.
    fail("r2", "a", 0);
    fail("r2", "a", 1000);
    CHECK(!budget.begin("r2", "a", "", 1000));
    budget.cancel("r2", "a", "");
    // The room's budget across addresses: three failures from three addresses fill it, and
    // a fourth address, with nothing against it, waits too.
    for (const char* address : {"b", "c", "e"}) fail("r3", address, 20);
    const auto room = budget.begin("r3", "d", "", 20);
    REQUIRE(room);
    CHECK(room->level == Level::kRoom);
    CHECK(room->wrong == 3);
    // Each level holds at most 3 entries: ("r1", "a") went first, and is checked again.
    CHECK(budget.size() <= 9);
    CHECK(!budget.begin("r1", "a", "", 30));
    budget.cancel("r1", "a", "");
    // Checks still running count: with one wrong and one pending, a third must wait.
    PasswordBudget pending(limits);
    REQUIRE(!pending.begin("r", "a", "", 0));
    pending.finish("r", "a", "", 0, false);
    REQUIRE(!pending.begin("r", "a", "", 0));
    const auto busy = pending.begin("r", "a", "", 0);
    REQUIRE(busy);
    CHECK(busy->ms == 1000);  // until the failure leaves the window
    CHECK(pending.refused() == 1);
    // A right one counts nowhere, and a filled level is named once.
    CHECK(!pending.finish("r", "a", "", 0, true));
    REQUIRE(!pending.begin("r", "a", "", 0));
    CHECK(pending.finish("r", "a", "", 0, false) == Level::kAddress);
    CHECK(pending.wrong() == 2);
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
