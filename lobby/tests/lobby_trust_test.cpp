// The lobby against strangers, as real processes on 127.0.0.0/8 (docs/lobby.md, "Security"):
// a fake relay cannot register, and no joiner's claim puts a room on a relay its host did
// not measure; a guesser beside a player does not keep the right password out, and guessers
// at 20 addresses get the room's budget of checks and no more. Each takes a few seconds
// (its password checks run on the lobby's one nice-10 Argon2id thread).
#include <catch2/catch.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.h"
#include "support/build_paths.h"
#include "support/lobby_pace.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/test_server_keys.h"

using namespace framelock;
using namespace std::chrono_literals;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// The relay key in this process's environment while it lives (the lobby and `lobby list`
// inherit it): FRAMELOCK_RELAY_KEY, the way an operator's service file would give it.
struct RelayKeyEnv {
    explicit RelayKeyEnv(const char* key) { ::setenv("FRAMELOCK_RELAY_KEY", key, 1); }
    ~RelayKeyEnv() { ::unsetenv("FRAMELOCK_RELAY_KEY"); }
};

// `framelock lobby serve` on 127.0.0.1, any port, its port read from "listening PORT".
struct Lobby {
    ChildProcess process;
    std::string log;
    int port = 0;

    static Lobby start(const test::TempDir& dir, std::vector<std::string> extra = {}) {
        std::vector<std::string> args = {test::build_paths::framelock_exe,
                                         "lobby",
                                         "serve",
                                         "--listen",
                                         "127.0.0.1:0",
                                         "--db",
                                         "sqlite:" + dir.file("lobby.db"),
                                         "--quiet",
                                         "--room-ttl",
                                         "3600"};
        args.insert(args.end(), extra.begin(), extra.end());
        const std::string out = dir.file("lobby.out"), log = dir.file("lobby.log");
        auto child = ChildProcess::spawn(args, out, log);
        REQUIRE(child);
        Lobby lobby{std::move(child).value(), log, 0};
        const auto deadline = test::ready_deadline();
        while (lobby.port == 0) {
            const std::string text = test::read_text(out);
            if (auto at = text.find("listening ");
                at != std::string::npos && text.find('\n', at) != std::string::npos)
                lobby.port = std::stoi(text.substr(at + 10));
            INFO(test::read_text(log));
            REQUIRE(lobby.process.running());
            REQUIRE(Clock::now() < deadline);
            std::this_thread::sleep_for(10ms);
        }
        return lobby;
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }

    // A client connecting from `from` (any address of 127/8 is this machine's).
    httplib::Client client(const std::string& from) const {
        httplib::Client c("127.0.0.1", port);
        c.set_interface(from);
        c.set_connection_timeout(test::kReadyLimit);
        c.set_read_timeout(test::kReadyLimit);
        return c;
    }
};

struct Answer {
    int status = 0;
    json body;
};

Answer post(httplib::Client& c, const std::string& path, const json& body,
            const std::string& bearer = "") {
    httplib::Headers headers;
    if (!bearer.empty()) headers.emplace("Authorization", "Bearer " + bearer);
    auto res = c.Post(path, headers, body.dump(), "application/json");
    REQUIRE(res);
    return {res->status, json::parse(res->body, nullptr, false)};
}

// From a guesser's thread (no Catch assertions there): the status, or minus httplib's error
// when three tries went unanswered. A connection the HTTP layer closed unanswered (it
// happened once in a few runs of 100 joins at once) is tried again, as a guesser would.
int status_of(httplib::Client& c, const std::string& path, const json& body) {
    int status = 0;
    for (int attempt = 0; attempt < 3 && status <= 0; ++attempt) {
        auto res = c.Post(path, body.dump(), "application/json");
        status = res ? res->status : -static_cast<int>(res.error());
    }
    return status;
}

// The lobby's own count of password checks that came out wrong (GET /metrics).
int wrong_checks(httplib::Client& c) {
    auto res = c.Get("/metrics");
    REQUIRE(res);
    const std::string name = "framelock_lobby_passwords_wrong ";
    const auto at = res->body.find("\n" + name);
    return at == std::string::npos ? -1 : std::atoi(res->body.c_str() + at + 1 + name.size());
}

json get(httplib::Client& c, const std::string& path) {
    auto res = c.Get(path);
    REQUIRE(res);
    REQUIRE(res->status == 200);
    return json::parse(res->body);
}

json room_body(const std::string& game) {
    return json{{"host_name", "alice"}, {"game_name", game},   {"content_hash", "0123456789abcdef"},
                {"core_name", "fbneo"}, {"core_version", "1"}, {"mode", "framelock"},
                {"slots", 2},           {"players", 0}};
}

}  // namespace

TEST_CASE(
    "lobby serve: a fake relay cannot register, and no joiner's claim puts a room on a relay "
    "its host did not measure",
    "[lobby][http][trust]") {
    constexpr const char* kKey = "operator-relay-key-0123";
    const RelayKeyEnv env(kKey);
    test::TempDir dir("lobby-fake-relay");
    Lobby lobby = Lobby::start(dir);
    auto operator_ = lobby.client("127.0.0.1");
    auto host = lobby.client("127.0.0.10");
    auto attacker = lobby.client("127.0.0.66");
    const std::string kFake = "127.0.0.66:7999";

    // The attacker's relay, huge, to draw every room: refused without the key and with a
    // guessed one.
    const json fake{
        {"address", kFake}, {"server_key", test::kRelayServerKey}, {"capacity", 100'000}};
    const Answer keyless = post(attacker, "/api/servers", fake);
    const Answer guessed = post(attacker, "/api/servers", fake, "guessed-relay-key-0000");
    std::printf("fake relay: registering without the key %d, with a guessed key %d\n",
                keyless.status, guessed.status);
    CHECK(keyless.status == 401);
    CHECK(guessed.status == 401);
    // An id for the attacker's probes: its relay's, were it registered.
    std::string fake_id(32, '6');
    if (keyless.status == 201) fake_id = keyless.body["server"]["id"];

    const auto relay = [&](const std::string& address) {
        const Answer made =
            post(operator_, "/api/servers",
                 json{{"address", address}, {"server_key", test::kRelayServerKey}, {"capacity", 1}},
                 kKey);
        REQUIRE(made.status == 201);
        return made.body["server"]["id"].get<std::string>();
    };
    const std::string near = relay("127.0.0.1:7101"), slow = relay("127.0.0.1:7102");
    const std::set<std::string> operators = {"127.0.0.1:7101", "127.0.0.1:7102"};
    std::set<std::string> listed;
    const json servers = get(host, "/api/servers");
    for (const auto& s : servers["servers"]) listed.insert(s["address"].get<std::string>());
    CHECK(listed == operators);

    // A room on the relay its host measured at 5 ms (80 ms to the other): an attacker's
    // join claiming 0 ms to the slow one, or to a relay the host never measured, moves it
    // nowhere.
    json on_relay = room_body("Relay Room");
    on_relay["probes"] = json{{near, 5}, {slow, 80}};
    const Answer created = post(host, "/api/rooms", on_relay);
    REQUIRE(created.status == 201);
    const std::string code = created.body["room"]["code"];
    CHECK(created.body["room"]["server_address"] == "127.0.0.1:7101");
    const json claims[] = {json{{slow, 0}}, json{{fake_id, 0}}, json{{fake_id, 0}, {slow, 0}}};
    for (const json& claim : claims) {
        const Answer joined = post(attacker, "/api/rooms/" + code + "/join", {{"probes", claim}});
        std::printf("relay room, a join claiming %s: sent to %s\n", claim.dump().c_str(),
                    joined.body.value("server_address", "?").c_str());
        CHECK(joined.body["server_address"] == "127.0.0.1:7101");
    }
    CHECK(get(host, "/api/rooms/" + code)["server_address"] == "127.0.0.1:7101");

    // A host's own room: a join claiming 0 ms is sent to the host's server; and a joiner
    // that "cannot reach the host": onto the relay the host measured nearest, whatever the
    // joiner claims.
    for (const json& claim : {json{{fake_id, 0}}, json{{fake_id, 0}, {slow, 0}}}) {
        json own = room_body("Own Room");
        own["server_address"] = "127.0.0.10:7845";
        own["server_key"] = test::kHostServerKey;
        own["probes"] = json{{near, 5}, {slow, 80}};
        const Answer made = post(host, "/api/rooms", own);
        REQUIRE(made.status == 201);
        const std::string own_code = made.body["room"]["code"];
        const Answer direct =
            post(attacker, "/api/rooms/" + own_code + "/join", {{"probes", claim}});
        std::printf("host's own room, a join claiming %s: sent to %s\n", claim.dump().c_str(),
                    direct.body.value("server_address", "?").c_str());
        CHECK(direct.body["server_address"] == "127.0.0.10:7845");
        const Answer relayed = post(attacker, "/api/rooms/" + own_code + "/join",
                                    {{"relay", true}, {"probes", claim}});
        std::printf("host's own room, relay: true claiming %s: sent to %s\n", claim.dump().c_str(),
                    relayed.body.value("server_address", "?").c_str());
        CHECK(relayed.body["server_address"] == "127.0.0.1:7101");
    }

    // A room placed without probes: on one of the operator's relays.
    const Answer blind = post(host, "/api/rooms", room_body("Blind Room"));
    REQUIRE(blind.status == 201);
    std::printf("a room without probes: on %s\n",
                blind.body["room"]["server_address"].get<std::string>().c_str());
    CHECK(operators.count(blind.body["room"]["server_address"].get<std::string>()) == 1);

    // `framelock lobby list` shows no address the operator did not register.
    for (const bool as_json : {false, true}) {
        std::vector<std::string> args = {test::build_paths::framelock_exe,
                                         "lobby",
                                         "list",
                                         "--lobby",
                                         lobby.url(),
                                         "--no-probe"};
        if (as_json) args.push_back("--json");
        const auto list = test::run_process(args);
        INFO(list.out << list.err);
        CHECK(list.exit_code == 0);
        CHECK_THAT(list.out, Catch::Contains("Relay Room") && !Catch::Contains("127.0.0.66"));
    }
    // The refusals are named in the log, the key never.
    const std::string log = test::read_text(lobby.log);
    CHECK_THAT(log, Catch::Contains("relay registration from 127.0.0.66 refused"));
    CHECK(log.find(kKey) == std::string::npos);
}

TEST_CASE(
    "lobby serve: a guesser beside a player leaves it its first try, and guessers at 20 "
    "addresses get the room's budget of checks",
    "[lobby][http][trust]") {
    const double work_s = test::lobby_password_work_s();
    test::TempDir dir("lobby-guessers");
    // The default budget: 10 wrong a minute per room, 5 per address, 3 per client.
    Lobby lobby = Lobby::start(dir);
    auto host = lobby.client("127.0.0.1");
    json body = room_body("Guarded");
    body["server_address"] = "127.0.0.1:7845";
    body["server_key"] = test::kHostServerKey;
    body["password"] = "s3cret";
    const auto make_room = [&] {
        const Answer made = post(host, "/api/rooms", body);
        REQUIRE(made.status == 201);
        return "/api/rooms/" + made.body["room"]["code"].get<std::string>() + "/join";
    };

    SECTION("a guesser at the player's address") {
        const std::string join = make_room();
        // The guesser: a wrong password every 100 ms from 127.0.0.1, as a script would (no
        // client key), under the lobby's request rate.
        std::atomic<bool> stop{false};
        std::atomic<int> checked{0}, refused{0};
        std::thread guesser([&] {
            auto c = lobby.client("127.0.0.1");
            for (int i = 0; !stop; ++i) {
                const int status = status_of(c, join, {{"password", "guess" + std::to_string(i)}});
                ++(status == 403 ? checked : refused);
                std::this_thread::sleep_for(100ms);
            }
        });
        // Once it has spent its share and met refusals, the player at the same address joins
        // with the right password and the client key `framelock join` sends.
        REQUIRE(test::poll_until([&] { return refused.load() >= 3; }, test::kReadyLimit));
        auto player = lobby.client("127.0.0.1");
        const auto sent = Clock::now();
        const Answer in =
            post(player, join, {{"password", "s3cret"}, {"client_key", "3b9f0c1d2e4a5b6c"}});
        const double took_s = std::chrono::duration<double>(Clock::now() - sent).count();
        // The baseline, in the same load: a player at an address no guesser shares joins
        // the same way while the guesser still runs. A check's time moves with the machine's
        // load (the workers run at nice 10; under TSan with the suite beside it one check
        // has taken 1.07 s where the measurement before took 0.18 s).
        auto elsewhere = lobby.client("127.0.0.77");
        const auto sent_elsewhere = Clock::now();
        const Answer in_elsewhere =
            post(elsewhere, join, {{"password", "s3cret"}, {"client_key", "5c0d1e2f3a4b5c6d"}});
        const double took_elsewhere_s =
            std::chrono::duration<double>(Clock::now() - sent_elsewhere).count();
        stop = true;
        guesser.join();
        std::printf(
            "guesser beside the player: %d checked (403), %d refused (429); the player's "
            "first try: %d in %.3f s; a player at another address: %d in %.3f s (a password "
            "check took %.3f s before)\n",
            checked.load(), refused.load(), in.status, took_s, in_elsewhere.status,
            took_elsewhere_s, work_s);
        CHECK(in.status == 200);
        CHECK(in_elsewhere.status == 200);
        // Issue 31's second: the guesser's address costs the player no wait of its own, so
        // its try takes about what the other address's took: within a second, or three
        // checks' time at this load if that is more.
        CHECK(took_s < std::max({1.0, 3 * work_s, 3 * took_elsewhere_s}));
        CHECK(checked.load() <= 3);        // the client's share
        CHECK(wrong_checks(player) == 3);  // as the lobby counted it
    }
    SECTION("guessers at 20 addresses") {
        const std::string join = make_room();
        std::mutex mutex;
        std::map<std::string, int> checked_from;
        std::map<int, int> others;  // status -> answers, for the failure's message
        std::atomic<int> checked{0}, refused{0}, other{0};
        std::vector<std::thread> guessers;
        for (int a = 2; a <= 21; ++a) {
            guessers.emplace_back([&, a] {
                const std::string from = "127.0.0." + std::to_string(a);
                auto c = lobby.client(from);
                for (int i = 0; i < 5; ++i) {
                    const int status =
                        status_of(c, join, {{"password", from + "/" + std::to_string(i)}});
                    ++(status == 403 ? checked : status == 429 ? refused : other);
                    if (status == 429) continue;
                    std::lock_guard lock(mutex);
                    ++(status == 403 ? checked_from[from] : others[status]);
                }
            });
        }
        for (auto& g : guessers) g.join();
        int most = 0;
        for (const auto& [from, n] : checked_from) most = std::max(most, n);
        for (const auto& [status, n] : others) std::printf("status %d: %d answers\n", status, n);
        std::printf(
            "20 addresses, 100 guesses: %d checked (403), %d refused unchecked (429), "
            "%d other; at most %d checked from one address\n",
            checked.load(), refused.load(), other.load(), most);
        // The room's budget a minute (the run is seconds long), as the lobby counted it; an
        // answer lost on the way and tried again comes back refused.
        const int wrong = wrong_checks(host);
        std::printf("the lobby checked %d wrong passwords\n", wrong);
        CHECK(wrong == 10);
        CHECK(checked.load() <= 10);
        CHECK(checked.load() + refused.load() == 100);
        CHECK(most <= 3);
        // The price, stated: with the budget spent the right password waits too, and is told
        // for how long.
        auto player = lobby.client("127.0.0.1");
        auto res = player.Post(join, json{{"password", "s3cret"}}.dump(), "application/json");
        REQUIRE(res);
        CHECK(res->status == 429);
        const std::string retry_after = res->get_header_value("Retry-After");
        CHECK(!retry_after.empty());
        CHECK(std::atoi(retry_after.c_str()) <= 60);
    }
}
