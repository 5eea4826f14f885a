// Rollback sessions on the simulated network with real cores: the bundled arcade game and
// Debian's mednafen_pce_fast with the project's PCE ROM, each peer its own private copy of
// the core. Every verified frame's state hash goes to the server (a hash every frame), which
// compares them: identical confirmed frames on every peer.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>

#include "frontend/host/retro_emulator.h"
#include "integration/cores.h"
#include "integration/sim_cores.h"
#include "netplay/sim/sim_session.h"
#include "support/sanitized.h"

using namespace framelock;
using namespace framelock::test;

namespace {

struct Case {
    const char* core;
    int players;
    std::uint32_t frames;
};

void run_rollback_case(const Case& k) {
    const CoreCase c = core_case(k.core);
    require_core_case(c);
    netplay::SimScenario sc;
    sc.players = k.players;
    sc.frames = k.frames;
    sc.seed = 9100 + static_cast<std::uint64_t>(k.players);
    sc.link.latency_us = 50'000;  // 100 ms round trip
    sc.link.jitter_us = 10'000;   // +-20 ms
    sc.link.loss = 0.02;
    sc.server.mode = netplay::SessionMode::kRollback;
    sc.server.delay.fixed_delay = 1;
    sc.server.prediction_window = 8;
    sc.server.hash_interval = 1;  // the debug setting: every frame compared
    // Players who hold a pad state 4..40 frames (a fighting-game player's inputs change a few
    // times a second); the twitchier 1..8 frame bots are netplay/'s rollback test.
    sc.hold_min = 4;
    sc.hold_max = 40;
    frontend::HostConfig host = sim_host(c, k.players);
    host.savestate_context = RETRO_SAVESTATE_CONTEXT_ROLLBACK_NETPLAY;
    sc.make_emulator = [&](int) -> std::unique_ptr<netplay::Emulator> {
        return sim_emulator(host);
    };
    const auto start = std::chrono::steady_clock::now();
    const netplay::SimResult r = netplay::run_scenario(sc);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(k.core << ", " << k.players << " players");
    for (const auto& e : r.server_events) CHECK(e.type != netplay::ServerEvent::Type::kDesync);
    // Every frame but the last few (still unconfirmed when the run ended) compared equal.
    CHECK(r.hash_frames_matched >= k.frames - 120);
    CHECK(r.min_delay == 1);
    CHECK(r.max_delay == 1);
    std::uint64_t rollbacks = 0;
    for (const auto& client : r.clients) {
        CHECK(client.stats.frames_run >= k.frames);
        CHECK(client.stats.longest_rollback <= 8);
        CHECK(client.stats.rollbacks > 0);
        rollbacks += client.stats.rollbacks;
    }
    std::printf(
        "rollback %s, %d players, %u frames: %llu frames compared equal, %.1f rollbacks/s "
        "per peer (%.0f s)\n",
        k.core, k.players, k.frames, static_cast<unsigned long long>(r.hash_frames_matched),
        static_cast<double>(rollbacks) / r.clients.size() / (k.frames / 60.0), seconds);
}

}  // namespace

TEST_CASE(
    "Rollback with the bundled arcade core: 2 and 4 peers, 36,000 frames (3,600 under "
    "sanitizers), 100 +- 20 ms, 2% loss, identical confirmed frames",
    "[rollback][cores]") {
    const std::uint32_t frames = framelock::test::full_or_sanitized(36'000u, 3'600u);
    run_rollback_case({"arcade", 2, frames});
    run_rollback_case({"arcade", 4, frames});
}

TEST_CASE(
    "Rollback with mednafen_pce_fast + PCE ROM: 2 and 4 peers, 36,000 frames (3,600 under "
    "sanitizers), identical confirmed frames",
    "[rollback][cores]") {
    const std::uint32_t frames = framelock::test::full_or_sanitized(36'000u, 3'600u);
    run_rollback_case({"pce_fast", 2, frames});
    run_rollback_case({"pce_fast", 4, frames});
}
