// `framelock lobby serve` as a real process on 127.0.0.1: the API over HTTP, the web page,
// /health and /metrics, JSON errors from the HTTP layer itself, a graceful stop on SIGTERM,
// and two lobby processes on one PostgreSQL behaving as one service. The web page is
// checked in a real headless Chromium (Debian: chromium): rooms show up, the URL's filters
// narrow the list, and an expired room leaves it.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "common/child_process.h"
#include "lobby/tests/lobby_process.h"
#include "support/build_paths.h"
#include "support/lobby_pace.h"
#include "support/pg_cluster.h"
#include "support/process.h"
#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/test_server_keys.h"

using namespace framelock;
using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

using test::read_text;
using Lobby = test::ServedLobby;

json room_body(const std::string& game, const std::string& mode = "nowait", int players = 0) {
    return json{{"host_name", "alice"},
                {"game_name", game},
                {"content_hash", "0123456789abcdef"},
                {"core_name", "fbneo"},
                {"core_version", "1.0"},
                {"mode", mode},
                {"slots", 2},
                {"players", players},
                {"server_address", "127.0.0.1:7845"},
                {"server_key", test::kHostServerKey}};
}

constexpr const char* kChromium = "/usr/bin/chromium";

// The DOM of `url` after Chromium ran the page's scripts for five seconds of virtual time
// (the page's first poll, and two more). Virtual time stops while a fetch is in flight, so
// the budget does not race the lobby's answer. Chromium runs in its own process group, so
// on a hang the browser and its helper processes all go; it gets a private profile dir so
// parallel runs share nothing.
std::string dump_dom(const test::TempDir& dir, const std::string& url) {
    static std::atomic<int> runs{0};
    const int run = runs++;
    const std::string out = dir.file("dom" + std::to_string(run) + ".html");
    const std::string err = dir.file("chromium" + std::to_string(run) + ".log");
    const std::vector<std::string> args = {
        kChromium,
        "--headless",
        "--no-sandbox",  // root cannot use the sandbox
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        "--user-data-dir=" + dir.file("profile" + std::to_string(run)),
        "--virtual-time-budget=5000",
        "--dump-dom",
        url};
    // Built before fork: the child of a threaded process (the heartbeat thread) must not
    // allocate.
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::setpgid(0, 0);
        const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out_fd < 0 || err_fd < 0) ::_exit(126);
        ::dup2(out_fd, 1);
        ::dup2(err_fd, 2);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::setpgid(pid, pid);  // also here: whichever runs first, the group exists before a kill
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(-pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            FAIL("chromium hung on " << url << "; its log:\n" << read_text(err));
        }
        std::this_thread::sleep_for(20ms);
    }
    // Helpers it left behind (none, normally) go with the group.
    ::kill(-pid, SIGKILL);
    INFO("chromium on " << url << "; its log:\n" << read_text(err));
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    const std::string dom = read_text(out);
    // The list was drawn from an answer: an absent code means filtered out, not "not yet".
    INFO(dom);
    REQUIRE_THAT(dom, Catch::Contains("data-state=\"ok\""));
    return dom;
}

// The room codes in the dumped list, from the rows' data-code hooks.
std::set<std::string> codes_in(const std::string& dom) {
    static const std::regex row(R"re(<tr data-code="([^"]+)")re");
    std::set<std::string> codes;
    for (auto it = std::sregex_iterator(dom.begin(), dom.end(), row); it != std::sregex_iterator();
         ++it)
        codes.insert((*it)[1]);
    return codes;
}

using test::create_room;
using test::CreatedRoom;

int heartbeat(httplib::Client& c, const CreatedRoom& room) {
    auto res = c.Post(("/api/rooms/" + room.id + "/heartbeat").c_str(),
                      httplib::Headers{{"Authorization", "Bearer " + room.token}}, "{}",
                      "application/json");
    return res ? res->status : 0;
}

}  // namespace

TEST_CASE(
    "lobby serve: the API, the page, health and metrics over HTTP, and SIGTERM stops it cleanly",
    "[lobby][http]") {
    test::TempDir dir("lobby-http");
    Lobby lobby = Lobby::start(dir, "lobby", "sqlite:" + dir.file("lobby.db"));
    auto c = lobby.client();

    auto created = c.Post("/api/rooms", room_body("Blazing Star").dump(), "application/json");
    REQUIRE(created);
    REQUIRE(created->status == 201);
    const json room = json::parse(created->body);
    const std::string token = room["token"];
    auto list = c.Get("/api/rooms?game=Blazing%20Star");
    REQUIRE(list);
    CHECK(json::parse(list->body)["rooms"].size() == 1);
    httplib::Headers auth = {{"Authorization", "Bearer " + token}};
    auto beat =
        c.Post(("/api/rooms/" + room["room"]["id"].get<std::string>() + "/heartbeat").c_str(), auth,
               json{{"players", 2}}.dump(), "application/json");
    REQUIRE(beat);
    CHECK(beat->status == 200);

    auto page = c.Get("/");
    REQUIRE(page);
    CHECK(page->status == 200);
    CHECK_THAT(page->get_header_value("Content-Type"), Catch::Contains("text/html"));
    CHECK_THAT(page->body, Catch::Contains("framelock lobby"));
    CHECK(page->body.find("http://") == std::string::npos);  // no external assets
    CHECK(page->body.find("https://") == std::string::npos);

    auto health = c.Get("/health");
    REQUIRE(health);
    CHECK(json::parse(health->body)["status"] == "ok");
    CHECK(json::parse(health->body)["rooms"] == 1);

    // Larger than the HTTP layer takes at all: still a JSON error.
    auto huge = c.Post("/api/rooms", std::string(100 * 1024, 'x'), "application/json");
    REQUIRE(huge);
    CHECK(huge->status == 413);
    CHECK(json::parse(huge->body, nullptr, false).contains("error"));
    auto wrong_type = c.Post("/api/rooms", json{{"slots", "2"}}.dump(), "application/json");
    REQUIRE(wrong_type);
    CHECK(wrong_type->status == 400);

    auto metrics = c.Get("/metrics");
    REQUIRE(metrics);
    CHECK_THAT(metrics->body,
               Catch::Contains("framelock_lobby_rooms 1") &&
                   Catch::Contains("framelock_lobby_request_seconds_bucket") &&
                   Catch::Contains(
                       "framelock_lobby_requests_total{route=\"create_room\",status=\"201\"} 1"));

    lobby.process.send_signal(SIGTERM);
    const auto ended = lobby.process.wait_until(test::ready_deadline());
    REQUIRE(ended);
    CHECK(ended->success());
    const std::string log = read_text(lobby.log);
    CHECK_THAT(log, Catch::Contains("lobby request method=POST path=/api/rooms status=201"));
    CHECK_THAT(log, Catch::Contains("lobby stopped"));
}

TEST_CASE("framelock-lobby: the same service and options without the player", "[lobby][http]") {
    test::TempDir dir("lobby-exe");
    Lobby lobby = Lobby::start_command({framelock::test::build_paths::lobby_exe}, dir, "lobby",
                                       "sqlite:" + dir.file("lobby.db"), {"--room-ttl", "60"});
    auto c = lobby.client();
    auto created = c.Post("/api/rooms", room_body("Blazing Star").dump(), "application/json");
    REQUIRE(created);
    CHECK(created->status == 201);
    auto list = c.Get("/api/rooms");
    REQUIRE(list);
    CHECK(json::parse(list->body)["rooms"].size() == 1);
    CHECK(json::parse(created->body)["heartbeat_ms"] == 20000);  // a third of --room-ttl

    lobby.process.send_signal(SIGTERM);
    const auto ended = lobby.process.wait_until(test::ready_deadline());
    REQUIRE(ended);
    CHECK(ended->success());
    CHECK_THAT(read_text(lobby.log), Catch::Contains("lobby stopped"));
}

TEST_CASE(
    "lobby serve: wrong passwords past a client's share wait with 429 and Retry-After, for "
    "--guess-window",
    "[lobby][http]") {
    // The lockout starts when the second wrong password arrives, and the third try must come
    // within it: after that check, its answer and the next request. A lockout of 1 s ran out
    // there under ThreadSanitizer on a busy machine. So the window is set from what this
    // machine measures: first five times the lobby's password work (a hash or a check on one
    // of its nice-10 password threads, support/lobby_pace.h), at least 1 s. The load of a busy
    // machine comes and goes, so when the third try came after that window anyway (a 200 is
    // then right), the run is repeated with a window four times what that try took: the
    // machine's pace measured by this very test. The room outlives any lockout.
    const double work_s = test::lobby_password_work_s();
    int lockout_s = std::max(1, static_cast<int>(std::ceil(5 * work_s)));
    INFO("the lobby's password work takes " << work_s << " s here");
    test::TempDir dir("lobby-lockout");
    std::optional<Lobby> lobby;
    std::string join;  // the room's join path
    const auto try_join = [&](httplib::Client& client, const std::string& password) {
        auto res =
            client.Post(join.c_str(), json{{"password", password}}.dump(), "application/json");
        REQUIRE(res);
        return *res;
    };
    httplib::Response locked;
    double within_s = 0;  // at most this long from the first wrong password to the third try
    std::chrono::steady_clock::time_point second_answered;
    for (int attempt = 1;; ++attempt) {
        const std::string name = "lobby" + std::to_string(attempt);
        lobby.emplace(Lobby::start(dir, name, "sqlite:" + dir.file(name + ".db"),
                                   {"--quiet", "--guess-client-share", "2", "--guess-window",
                                    std::to_string(lockout_s), "--room-ttl", "3600"}));
        auto c = lobby->client();
        json body = room_body("Garou");
        body["password"] = "s3cret";
        join = "/api/rooms/" + create_room(c, body).code + "/join";
        // Each wrong password counts for the window from when it was checked: the third try
        // waits for the first one's to end, which began after it was sent.
        const auto first_sent = std::chrono::steady_clock::now();
        CHECK(try_join(c, "guess").status == 403);
        CHECK(try_join(c, "guess").status == 403);
        second_answered = std::chrono::steady_clock::now();
        locked = try_join(c, "s3cret");
        within_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - first_sent).count();
        std::printf("lockout %d s: the third try came at most %.3f s into it (attempt %d)\n",
                    lockout_s, within_s, attempt);
        if (locked.status == 429 || within_s < lockout_s || attempt == 3) break;
        lockout_s = static_cast<int>(std::ceil(4 * within_s));
    }
    INFO("--guess-window " << lockout_s << ": the third try came at most " << within_s
                           << " s into it");
    CHECK(locked.status == 429);
    // Retry-After: the lockout's rest in whole seconds, rounded up.
    const std::string retry_text = locked.get_header_value("Retry-After");
    const int retry_after = retry_text.empty() ? 0 : std::stoi(retry_text);
    CHECK(retry_after <= lockout_s);
    CHECK(retry_after >= std::max(1, static_cast<int>(std::ceil(lockout_s - within_s))));
    CHECK(json::parse(locked.body)["retry_after_s"] == retry_after);
    // Another address of this machine (all of 127/8 is loopback) is not locked out.
    httplib::Client other("127.0.0.1", lobby->port);
    other.set_interface("127.0.0.2");
    other.set_connection_timeout(test::kReadyLimit);
    other.set_read_timeout(test::kReadyLimit);
    CHECK(try_join(other, "s3cret").status == 200);
    // After the lockout (it began before the second answer came; 1 s more for the lobby's
    // wall clock against this steady one) the first address joins.
    std::this_thread::sleep_until(second_answered + std::chrono::seconds(lockout_s + 1));
    auto c = lobby->client();
    CHECK(try_join(c, "s3cret").status == 200);
}

TEST_CASE("lobby serve: two lobby processes on one PostgreSQL are one service", "[lobby][http]") {
    test::TempDir dir("lobby-pg");
    test::PgCluster cluster;
    const std::string url = cluster.create_database();
    Lobby a = Lobby::start(dir, "a", url);
    Lobby b = Lobby::start(dir, "b", url);
    auto ca = a.client();
    auto cb = b.client();
    auto created = ca.Post("/api/rooms", room_body("Garou").dump(), "application/json");
    REQUIRE(created);
    REQUIRE(created->status == 201);
    const json room = json::parse(created->body);
    const std::string code = room["room"]["code"];
    auto seen = cb.Get(("/api/rooms/" + code).c_str());
    REQUIRE(seen);
    CHECK(seen->status == 200);
    CHECK(json::parse(seen->body)["game_name"] == "Garou");
    // The token a gave works on b.
    auto gone = cb.Delete(
        ("/api/rooms/" + room["room"]["id"].get<std::string>()).c_str(),
        httplib::Headers{{"Authorization", "Bearer " + room["token"].get<std::string>()}});
    REQUIRE(gone);
    CHECK(gone->status == 204);
    auto list = ca.Get("/api/rooms");
    REQUIRE(list);
    CHECK(json::parse(list->body)["rooms"].empty());
}

TEST_CASE("lobby web page in headless Chromium: new rooms show, the URL's filters narrow the list",
          "[lobby][http][web]") {
    FRAMELOCK_SKIP_UNLESS_FILE(kChromium, "Debian: apt-get install chromium");
    test::TempDir dir("lobby-web");
    // The rooms (never heartbeated) live as long as the test: on a busy machine its seven
    // Chromium runs took longer than the default TTL of 30 s.
    // The relay below registers with the operator's key.
    constexpr const char* kRelayKey = "web-page-test-relay-key";
    {
        std::ofstream key(dir.file("relay.key"));
        key << kRelayKey << "\n";
    }
    Lobby lobby =
        Lobby::start(dir, "lobby", "sqlite:" + dir.file("lobby.db"),
                     {"--quiet", "--room-ttl", "3600", "--relay-key-file", dir.file("relay.key")});
    auto c = lobby.client();
    const std::string base = "http://127.0.0.1:" + std::to_string(lobby.port) + "/";

    const CreatedRoom blazing = create_room(c, room_body("Blazing Star", "nowait"));
    const CreatedRoom garou = create_room(c, room_body("Garou", "rollback"));
    const CreatedRoom garou_full = create_room(c, room_body("Garou", "rollback", 2));

    // Created just before, no filter: every room is in the list.
    const std::string all = dump_dom(dir, base);
    CHECK(codes_in(all) == std::set<std::string>{blazing.code, garou.code, garou_full.code});
    CHECK_THAT(all, Catch::Contains("<span id=\"count\">3</span>"));

    CHECK(codes_in(dump_dom(dir, base + "?game=Blazing%20Star")) ==
          std::set<std::string>{blazing.code});
    CHECK(codes_in(dump_dom(dir, base + "?mode=rollback")) ==
          std::set<std::string>{garou.code, garou_full.code});
    // has_slots drops the full room; the filters combine.
    CHECK(codes_in(dump_dom(dir, base + "?mode=rollback&has_slots=1")) ==
          std::set<std::string>{garou.code});
    const std::string none = dump_dom(dir, base + "?game=Metal%20Slug");
    CHECK(codes_in(none).empty());
    CHECK_THAT(none, Catch::Contains("<span id=\"count\">0</span>"));

    // The delay column: a hint until this network's probes are in; then, for a room on a
    // relay, the delay this browser's address would get there (rooms on their host's own
    // server get no estimate).
    CHECK_THAT(all,
               Catch::Contains("title=\"run framelock lobby list on this network to measure\""));
    CHECK_THAT(all, !Catch::Contains(" frames ("));
    auto server = c.Post(
        "/api/servers", httplib::Headers{{"Authorization", std::string("Bearer ") + kRelayKey}},
        json{{"address", "127.0.0.1:7990"}, {"server_key", test::kRelayServerKey}, {"capacity", 1}}
            .dump(),
        "application/json");
    REQUIRE(server);
    REQUIRE(server->status == 201);
    const std::string relay_id = json::parse(server->body)["server"]["id"];
    json relayed = room_body("Relay Game", "framelock");
    relayed.erase("server_address");
    relayed["probes"] = json{{relay_id, 30}};
    const CreatedRoom on_relay = create_room(c, relayed);
    // "framelock lobby list" from this address (Chromium's too) stored its probes.
    auto probes =
        c.Post("/api/probes", json{{"probes", {{relay_id, 40.2}}}}.dump(), "application/json");
    REQUIRE(probes);
    REQUIRE(probes->status == 200);
    const std::string measured = dump_dom(dir, base + "?game=Relay%20Game");
    CHECK(codes_in(measured) == std::set<std::string>{on_relay.code});
    // The worse of 30 and 40.2 ms, + 1 ms: 3 frames at 60 fps.
    CHECK_THAT(measured, Catch::Contains("<td data-col=\"delay\">3 frames (40 ms)</td>"));
    const std::string direct = dump_dom(dir, base + "?game=Blazing%20Star");
    CHECK_THAT(direct,
               Catch::Contains("title=\"run framelock lobby list on this network to measure\""));
}

TEST_CASE("lobby web page in headless Chromium: a room without heartbeats leaves the list",
          "[lobby][http][web]") {
    FRAMELOCK_SKIP_UNLESS_FILE(kChromium, "Debian: apt-get install chromium");
    // Heartbeats every 250 ms keep a room alive, also while Chromium runs: 12 per TTL, so a
    // beat may come 2.75 s late (Chromium starting takes the CPU of a busy 2-core machine
    // for a second or more) before the kept room would expire. A TTL of 1 s left 0.75 s.
    constexpr int kTtlS = 3;
    test::TempDir dir("lobby-web-ttl");
    Lobby lobby = Lobby::start(dir, "lobby", "sqlite:" + dir.file("lobby.db"),
                               {"--quiet", "--room-ttl", std::to_string(kTtlS)});
    auto c = lobby.client();
    const std::string base = "http://127.0.0.1:" + std::to_string(lobby.port) + "/";
    const CreatedRoom kept = create_room(c, room_body("Garou"));
    const CreatedRoom dropped = create_room(c, room_body("Blazing Star"));

    // `dropped` gets heartbeats only until the first look; when its last one was sent (a
    // steady_clock count), for the lower bound of its expiry.
    using Steady = std::chrono::steady_clock;
    std::atomic<bool> beat_dropped{true}, stop{false};
    std::atomic<int> failed_beats{0};
    std::atomic<Steady::rep> last_dropped_beat{Steady::now().time_since_epoch().count()};
    std::atomic<Steady::rep> longest_gap{0};
    std::thread beater([&] {
        auto hc = lobby.client();
        auto previous = Steady::now();
        while (!stop) {
            if (heartbeat(hc, kept) != 200) ++failed_beats;
            const auto now = Steady::now();
            longest_gap = std::max(longest_gap.load(), (now - previous).count());
            previous = now;
            if (beat_dropped) {
                last_dropped_beat = Steady::now().time_since_epoch().count();
                if (heartbeat(hc, dropped) != 200) ++failed_beats;
            }
            std::this_thread::sleep_for(250ms);
        }
    });
    struct Join {
        std::atomic<bool>& stop;
        std::thread& t;
        ~Join() {
            stop = true;
            t.join();
        }
    } join{stop, beater};

    CHECK(codes_in(dump_dom(dir, base)) == std::set<std::string>{kept.code, dropped.code});
    beat_dropped = false;
    // The API is asked until the room is gone (a wait for an answer, bounded generously);
    // never before the TTL after its last heartbeat.
    const auto deadline = Steady::now() + std::chrono::seconds(kTtlS) + test::kReadyLimit;
    for (;;) {
        auto res = c.Get(("/api/rooms/" + dropped.code).c_str());
        REQUIRE(res);
        if (res->status == 404) break;
        REQUIRE(res->status == 200);
        REQUIRE(Steady::now() < deadline);
        std::this_thread::sleep_for(50ms);
    }
    const Steady::time_point last_beat{Steady::duration(last_dropped_beat.load())};
    CHECK(Steady::now() - last_beat >= std::chrono::seconds(kTtlS));
    // The page agrees: the room is gone from the list, the kept one is still there.
    CHECK(codes_in(dump_dom(dir, base)) == std::set<std::string>{kept.code});
    INFO("the longest gap between heartbeats of the kept room: "
         << std::chrono::duration<double>(Steady::duration(longest_gap.load())).count() << " s");
    CHECK(failed_beats == 0);
}

// The core atlas compiled into the lobby (docs/cores.json) answers for each room's core in
// its mode: Nestopia 1.52.0 is safe in the frame lock only (its savestates leave out the
// turbo counter), the bundled arcade core everywhere, fbneo is not in it. The page and
// `lobby list` both say so before anyone joins; the unsafe room says why.
TEST_CASE(
    "lobby web page in headless Chromium and lobby list: each room's core check, the "
    "unsafe one saying why",
    "[lobby][http][web]") {
    FRAMELOCK_SKIP_UNLESS_FILE(kChromium, "Debian: apt-get install chromium");
    test::TempDir dir("lobby-core-check");
    Lobby lobby = Lobby::start(dir, "lobby", "sqlite:" + dir.file("lobby.db"),
                               {"--quiet", "--room-ttl", "3600"});
    auto c = lobby.client();
    const auto room = [](const char* game, const char* core, const char* version,
                         const char* mode) {
        json body = room_body(game, mode);
        body["core_name"] = core;
        body["core_version"] = version;
        return body;
    };
    const CreatedRoom unsafe = create_room(c, room("Turbo Hybrid", "Nestopia", "1.52.0", "hybrid"));
    const CreatedRoom locked =
        create_room(c, room("Turbo Lock", "Nestopia", "1.52.0", "framelock"));
    const CreatedRoom arcade =
        create_room(c, room("Arcade", "framelock-arcade", "1.0", "rollback"));
    const CreatedRoom unknown = create_room(c, room("Unknown", "fbneo", "1.0", "framelock"));

    auto listed = c.Get("/api/rooms");
    REQUIRE(listed);
    const json rooms = json::parse(listed->body)["rooms"];
    std::map<std::string, json> by_code;
    for (const auto& r : rooms) by_code[r["code"].get<std::string>()] = r;
    CHECK(by_code[unsafe.code]["core_verdict"] == "unsafe");
    CHECK_THAT(by_code[unsafe.code]["core_verdict_reason"].get<std::string>(),
               Catch::StartsWith("the core atlas found Nestopia 1.52.0 safe in the frame lock "
                                 "only: roundtrip"));
    CHECK(by_code[locked.code]["core_verdict"] == "safe");
    CHECK(by_code[locked.code]["core_verdict_reason"] == "");
    CHECK(by_code[arcade.code]["core_verdict"] == "safe");
    CHECK(by_code[unknown.code]["core_verdict"] == "unknown");
    CHECK(by_code[unknown.code]["core_verdict_reason"] == "fbneo is not in the core atlas");

    const std::string dom = dump_dom(dir, "http://127.0.0.1:" + std::to_string(lobby.port) + "/");
    CHECK(codes_in(dom) ==
          std::set<std::string>{unsafe.code, locked.code, arcade.code, unknown.code});
    CHECK_THAT(dom, Catch::Contains("<td data-col=\"check\" class=\"check-unsafe\">unsafe in "
                                    "hybrid: the core atlas found Nestopia 1.52.0 safe in the "
                                    "frame lock only: roundtrip"));
    CHECK_THAT(dom, Catch::Contains("<td data-col=\"check\" class=\"check-safe\">safe in frame "
                                    "lock</td>"));
    CHECK_THAT(dom, Catch::Contains("<td data-col=\"check\" class=\"check-safe\">safe in "
                                    "rollback</td>"));
    CHECK_THAT(dom, Catch::Contains("<td data-col=\"check\" class=\"check-unknown\">unknown: "
                                    "fbneo is not in the core atlas</td>"));

    const auto list =
        test::run_process({test::build_paths::framelock_exe, "lobby", "list", "--lobby",
                           "http://127.0.0.1:" + std::to_string(lobby.port), "--no-probe"},
                          60s);
    INFO(list.out << list.err);
    REQUIRE(list.exit_code == 0);
    CHECK_THAT(list.out, Catch::Contains("CHECK"));
    CHECK_THAT(list.out, Catch::Contains("Nestopia 1.52.0       UNSAFE "));
    CHECK_THAT(list.out, Catch::Contains("\n        ! the core atlas found Nestopia 1.52.0 safe "
                                         "in the frame lock only: roundtrip"));
    CHECK_THAT(list.out, Catch::Contains("framelock-arcade 1.0  safe "));
    CHECK_THAT(list.out, Catch::Contains("fbneo 1.0             unknown "));
}
