// Late join and reconnect with every real core the tests install, on the simulated network:
// a third player joins a running session from the state the others hold, and a player whose
// process died comes back into its slot; both are compared with the others every frame from
// their first one, and every player ends on the same state. The cores that pass the rollback
// check do the same in a rollback and a hybrid session.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "frontend/host/retro_emulator.h"
#include "integration/cores.h"
#include "integration/sim_cores.h"
#include "netplay/server/server_config.h"
#include "netplay/sim/sim_session.h"

using namespace framelock;
using namespace framelock::test;

namespace {

enum class Mode { kFrameLock, kRollback, kHybrid };

void run_join_case(const char* core_name, Mode mode = Mode::kFrameLock) {
    const CoreCase c = core_case(core_name);
    require_core_case(c);
    netplay::SimScenario sc;
    if (mode != Mode::kFrameLock) sc.server.mode = netplay::SessionMode::kRollback;
    if (mode == Mode::kRollback) sc.server.delay.fixed_delay = 0;  // `--mode rollback`'s own
    sc.server.delay.hybrid = mode == Mode::kHybrid;
    if (mode == Mode::kHybrid) sc.server.prediction_window = netplay::kHybridPredictionWindow;
    sc.players = 2;
    sc.slots = 3;
    sc.frames = 1800;
    sc.seed = 83;
    sc.link.latency_us = 30'000;
    sc.link.jitter_us = 3'000;
    sc.server.hash_interval = 1;  // every frame compared, the joiners' from their first
    sc.hold_min = 4;
    sc.hold_max = 40;
    sc.bot_buttons = bot_buttons(c);
    sc.joiners = {{600, false, 3}};
    sc.drop_client = 2;
    sc.drop_frame = 1000;
    sc.rejoin_after_us = 1'000'000;
    frontend::HostConfig host = sim_host(c, 3);
    if (mode != Mode::kFrameLock) host.savestate_context = RETRO_SAVESTATE_CONTEXT_ROLLBACK_NETPLAY;
    sc.make_emulator = [&](int) { return sim_emulator(host); };
    const netplay::SimResult r = netplay::run_scenario(sc);
    const char* mode_name = mode == Mode::kFrameLock  ? "frame lock"
                            : mode == Mode::kRollback ? "rollback"
                                                      : "hybrid";
    INFO(core_name << ", " << mode_name);
    REQUIRE(r.clients.size() == 4);  // two players, the joiner, the rejoined process
    int desyncs = 0;
    std::string evidence;  // what the loads moved, if anything
    for (const auto& e : r.server_events) {
        desyncs += e.type == netplay::ServerEvent::Type::kDesync;
        if (e.type == netplay::ServerEvent::Type::kEvidence) evidence += e.message + "; ";
    }
    CHECK(desyncs == 0);
    const auto& joiner = r.clients[2];
    const auto& rejoined = r.clients[3];
    // A snapshot the players had confirmed: at zero delay a rollback session's final frames
    // trail its present by the path, and its newest snapshot may be one before.
    CHECK(joiner.first_frame + (mode == Mode::kRollback ? 60 : 0) >= 600);
    CHECK(joiner.first_frame < 700);
    CHECK(rejoined.first_frame > 1000);
    for (const netplay::SimClientResult* client : {&joiner, &rejoined}) {
        CHECK(client->stats.frames_run >= sc.frames - client->first_frame);
        CHECK(client->final_state_hash == r.clients[0].final_state_hash);
    }
    if (mode != Mode::kFrameLock) {
        // They ran as rollback players: predicting the others, correcting.
        CHECK(joiner.stats.rollbacks > 0);
        CHECK(rejoined.stats.rollbacks > 0);
    }
    // Frames compared equal: all but the last few, unreported when the run ended.
    CHECK(r.hash_frames_matched + 60 >= sc.frames);
    std::printf(
        "[figure] join and reconnect, %s (%s): joined at frame %u, rejoined at frame %u, "
        "%llu frames compared equal, %d desyncs; evidence: %s\n",
        core_name, mode_name, joiner.first_frame, rejoined.first_frame,
        static_cast<unsigned long long>(r.hash_frames_matched), desyncs,
        evidence.empty() ? "the whole state" : evidence.c_str());
}

}  // namespace

TEST_CASE("Late join and reconnect with the bundled arcade core", "[netplay][join][cores]") {
    run_join_case("arcade");
}

// The cores whose savestates pass the rollback check (`host --mode auto` picks the hybrid).
TEST_CASE("Late join and reconnect in rollback and the hybrid with the bundled arcade core",
          "[netplay][join][cores][rollback]") {
    run_join_case("arcade", Mode::kRollback);
    run_join_case("arcade", Mode::kHybrid);
}

TEST_CASE("Late join and reconnect in the hybrid with mednafen_pce_fast + PCE ROM",
          "[netplay][join][cores][rollback]") {
    run_join_case("pce_fast", Mode::kHybrid);
}

TEST_CASE("Late join and reconnect with nestopia + NES ROM", "[netplay][join][cores]") {
    run_join_case("nestopia");
}

TEST_CASE("Late join and reconnect with mednafen_pce_fast + PCE ROM", "[netplay][join][cores]") {
    run_join_case("pce_fast");
}

TEST_CASE("Late join and reconnect with gambatte + Game Boy ROM", "[netplay][join][cores]") {
    run_join_case("gambatte");
}

TEST_CASE("Late join and reconnect with mgba (Game Boy) + Game Boy ROM", "[netplay][join][cores]") {
    run_join_case("mgba_gb");
}
