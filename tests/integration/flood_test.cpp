// A session under a flood of half-open connections, with real processes on 127.0.0.0/8:
// `framelock server` and its players on 127.0.0.1, an attacker (support/half_open_flood.h)
// holding 200 ENet connections from 127.0.0.2-21 that never say Hello, each reopened the
// moment the server drops it. The players play on, a new player is admitted within 2 s, a
// player killed with SIGKILL takes its slot back with its token within 2 s. The figures are
// printed as "[figure] ..." lines.
#include <catch2/catch.hpp>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "integration/netplay_session.h"
#include "support/half_open_flood.h"
#include "support/process.h"
#include "support/sanitized.h"

using namespace framelock::test;

namespace {

double ms_between(SteadyTime::time_point from, SteadyTime::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

std::uintmax_t size_of(const std::string& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    return ec ? 0 : size;
}

// The longest time a growing hash log stood still during `window` from now, in ms.
double longest_pause_ms(const std::string& path, std::chrono::milliseconds window) {
    const auto start = SteadyTime::now();
    auto last_growth = start;
    auto size = size_of(path);
    double longest = 0;
    for (auto now = start; now - start < window; now = SteadyTime::now()) {
        if (const auto current = size_of(path); current != size) {
            size = current;
            longest = std::max(longest, ms_between(last_growth, now));
            last_growth = now;
        }
        std::this_thread::sleep_for(2ms);
    }
    return std::max(longest, ms_between(last_growth, SteadyTime::now()));
}

// Waits until NAME's log says it joined the running session (or it ended).
void wait_joined(Session& session, const std::string& name, ChildProcess& child,
                 Deadline deadline) {
    while (read_text(session.dir().file(name + ".log")).find("joined at frame") ==
           std::string::npos) {
        INFO("waiting for " << name << " to join" << session.log_of(name)
                            << session.log_of("server"));
        REQUIRE(child.running());
        REQUIRE(SteadyTime::now() < deadline);
        std::this_thread::sleep_for(5ms);
    }
}

// Where each test below starts: the bundled arcade game for two players (the test skips
// without it, before any session directory is made), and a session whose server runs for
// `limit` with `server_args`.
struct ArcadeSession {
    ArcadeSession(const std::string& name, std::chrono::milliseconds limit,
                  const std::vector<std::string>& server_args)
        : core(required_arcade()), session(name) {
        session.start_server(2, limit, server_args);
    }
    static CoreCase required_arcade() {
        CoreCase c = two_player_arcade();
        require_core_case(c);
        return c;
    }
    const CoreCase core;
    Session session;
};

}  // namespace

TEST_CASE(
    "floods: 200 half-open connections from 20 addresses cost the players nothing (100 "
    "under sanitizers)",
    "[integration][netplay][floods]") {
    // Under sanitizers every process runs several times slower on the same 2 cores: half the
    // connections, and the windows a slow machine needs.
    constexpr int kAddresses = 20;
    const int kPerAddress = full_or_sanitized(10, 5);
    const int frames = full_or_sanitized(1500, 900);
    const double pause_limit_ms = full_or_sanitized(250.0, 1000.0);
    const double join_limit_s = full_or_sanitized(2.0, 6.0);
    const auto limit = session_time(frames);
    const Deadline deadline = after(limit);
    // Two players start it; a third slot for a newcomer while it runs.
    ArcadeSession arcade("floods-half-open", limit, {"--slots", "3"});
    const CoreCase& core = arcade.core;
    Session& session = arcade.session;
    ChildProcess& one = session.start_client("client1", core, 1, 71, frames);
    ChildProcess& two = session.start_client("client2", core, 2, 72, frames);
    wait_for_lines(session, "client2", 120, two, deadline);
    // What this machine's load alone does to the players' frames now, for comparison.
    const double pause_before_ms = longest_pause_ms(session.hashes("client1"), 2000ms);

    const std::string server = "127.0.0.1:" + read_lines(session.dir().file("server.port")).at(0);
    HalfOpenFlood flood(server, kAddresses, kPerAddress);
    // Under way once all 200 were tried and the server took a share of them.
    REQUIRE(poll_until(
        [&] {
            return (flood.attempts() >= kAddresses * kPerAddress && flood.accepted() >= 20) ||
                   !flood.error().empty();
        },
        kReadyLimit));
    REQUIRE(flood.error().empty());

    // The players under the flood, nobody joining: their frames keep coming.
    const double pause_flood_ms = longest_pause_ms(session.hashes("client1"), 2000ms);

    // A newcomer takes the free slot.
    const auto newcomer_at = SteadyTime::now();
    ChildProcess& three = session.start_client("client3", core, 3, 73, frames);
    wait_joined(session, "client3", three, deadline);
    const double newcomer_ms = ms_between(newcomer_at, SteadyTime::now());

    // A player killed with SIGKILL comes back with its rejoin token.
    two.send_signal(SIGKILL);
    REQUIRE(two.wait_until(after(5s)));
    session.wait_for_log("server", "client2 is away", session.server(), deadline);
    const auto rejoin_at = SteadyTime::now();
    ChildProcess& again = session.restart("client2", "client2-again");
    wait_joined(session, "client2-again", again, deadline);
    const double rejoin_ms = ms_between(rejoin_at, SteadyTime::now());
    const std::uint64_t accepted = flood.accepted(), attempts = flood.attempts();
    const int open_at_rejoin = flood.open_now();

    session.require_success(one, "client1", deadline);
    session.require_success(three, "client3", deadline);
    session.require_success(again, "client2-again", deadline);
    flood.stop();
    session.require_server_success(after(15s));

    const auto full = read_lines(session.hashes("client1"));
    REQUIRE(full.size() == static_cast<std::size_t>(frames));
    for (const char* late : {"client3", "client2"}) {
        const auto lines = read_lines(session.hashes(late));
        REQUIRE_FALSE(lines.empty());
        const std::uint32_t first = frame_of(lines.front());
        REQUIRE(first + lines.size() == full.size());
        for (std::size_t i = 0; i < lines.size(); ++i) {
            INFO(late << " frame " << first + i);
            REQUIRE(lines[i] == full[first + i]);
        }
    }
    const auto newcomer = read_json(session.stats("client3"));
    const auto rejoined = read_json(session.stats("client2"));
    const auto survivor = read_json(session.stats("client1"));
    const auto server_stats = read_json(session.dir().file("server.json"))["sessions"][0];
    const std::string server_log = session.log_of("server");
    std::printf(
        "[figure] floods: %d x %d half-open connections from 127.0.0.2-%d: %llu attempts, %llu "
        "accepted by ENet, %d open at the rejoin; the server: %s\n",
        kAddresses, kPerAddress, 1 + kAddresses, static_cast<unsigned long long>(attempts),
        static_cast<unsigned long long>(accepted), open_at_rejoin,
        ("half_open_refused " + std::to_string(server_stats.value("half_open_refused", 0)) +
         ", half_open_closed " + std::to_string(server_stats.value("half_open_closed", 0)))
            .c_str());
    std::printf(
        "[figure] floods: player 1's hash log stood still %.0f ms at most in 2 s of flood (%.0f "
        "ms in the 2 s before it); %llu stall frames in the whole session\n",
        pause_flood_ms, pause_before_ms,
        static_cast<unsigned long long>(survivor["stall_frames"].get<std::uint64_t>()));
    std::printf(
        "[figure] floods: newcomer joined %.0f ms after it started (%.0f ms from connecting), "
        "rejoin %.0f ms after the restart (%.0f ms from connecting)\n",
        newcomer_ms, newcomer["join_seconds"].get<double>() * 1000, rejoin_ms,
        rejoined["join_seconds"].get<double>() * 1000);
    std::fflush(stdout);
    INFO(server_log);
    // No stall: a frame at least every 15 frame periods, or no worse than the machine's own
    // hiccups before the flood.
    CHECK(pause_flood_ms < std::max(pause_limit_ms, 2 * pause_before_ms));
    CHECK(newcomer["join_seconds"].get<double>() < join_limit_s);
    CHECK(rejoined["join_seconds"].get<double>() < join_limit_s);
    CHECK_THAT(server_log, Catch::Contains("client2 rejoins"));
    // Counted, and named in the log by address.
    CHECK_THAT(server_log, Catch::Contains("from 127.0.0."));
    CHECK(server_stats.value("half_open_refused", 0) + server_stats.value("half_open_closed", 0) >
          0);
}

TEST_CASE(
    "floods: a relay's session serves game after game, and lets go of a stranger who holds "
    "it idle",
    "[integration][netplay][floods][relay]") {
    constexpr int kFrames = 240;
    // What `server --lobby` does, without a lobby: reuse, and a short idle limit.
    ArcadeSession arcade("floods-relay", session_time(3 * kFrames),
                         {"--reuse-sessions", "--idle-reset", "2"});
    const CoreCase& core = arcade.core;
    Session& session = arcade.session;
    // A stranger takes a slot and sits there: the game never starts.
    ChildProcess& stranger = session.start_client("stranger", core, 0, 80, kFrames);
    session.wait_for_log("server", "stranger joined", session.server(), ready_deadline());
    session.wait_for_log("server", "session opened again for the next game (its players started",
                         session.server(), ready_deadline());
    const auto stranger_end = stranger.wait_until(ready_deadline());
    REQUIRE(stranger_end);
    CHECK_FALSE(stranger_end->success());
    // Two games on the same port, one after the other.
    for (int game = 1; game <= 2; ++game) {
        const std::string a = "game" + std::to_string(game) + "a";
        const std::string b = "game" + std::to_string(game) + "b";
        const std::size_t from = session.log_size("server");
        ChildProcess& one = session.start_client(a, core, 1, 81, kFrames);
        ChildProcess& two = session.start_client(b, core, 2, 82, kFrames);
        session.require_success(one, a, ready_deadline());
        session.require_success(two, b, ready_deadline());
        require_identical_logs(session, a, b, kFrames);
        session.wait_for_log("server", "session opened again for the next game (the game ended)",
                             session.server(), ready_deadline(), from);
    }
    session.server().send_signal(SIGINT);
    session.require_server_success(ready_deadline());
    const auto server_stats = read_json(session.dir().file("server.json"))["sessions"][0];
    CHECK(server_stats["games"].get<int>() == 4);  // the idle one, two games, the next
}
