// No-wait sessions on the simulated network: the server confirms every frame on time, so a
// player on a bad link never stalls the others.
#include <catch2/catch.hpp>

#include <cstdio>

#include "netplay/sim/sim_session.h"

using namespace framelock::netplay;

TEST_CASE(
    "No-wait: one player at 300 ms and 10% loss, three at 30 ms: the three never stall, "
    "all four stay identical over 36,000 frames",
    "[netplay][nowait]") {
    SimScenario sc;
    sc.players = 4;
    sc.frames = 36'000;
    sc.seed = 31;
    sc.server.mode = SessionMode::kNoWait;
    sc.server.delay.fixed_delay = 4;
    const LinkParams fast{15'000, 2'000, 0.0, 0.0, 0};     // 30 ms round trip
    const LinkParams slow{150'000, 10'000, 0.10, 0.0, 0};  // 300 ms round trip, 10% loss
    sc.client_links = {slow, fast, fast, fast};
    const SimResult r = run_scenario(sc);
    REQUIRE(r.hashes_identical);
    for (std::size_t c = 0; c < r.clients.size(); ++c) {
        const auto& client = r.clients[c];
        INFO("client " << c + 1);
        CHECK(client.hashes.size() >= 36'000);
        if (c > 0) CHECK(client.stall_frames == 0);
        std::printf("no-wait client %zu: %u stall frames, %u frames fast-forwarded\n", c + 1,
                    client.stall_frames, client.frames_fast_forwarded);
    }
    // The slow player still plays: its pad reaches the game, late.
    int slow_changes = 0;
    const auto& inputs = r.clients[1].inputs;
    for (std::size_t f = 1; f < inputs.size(); ++f)
        slow_changes += inputs[f].pads[0] != inputs[f - 1].pads[0];
    CHECK(slow_changes > 1000);
    CHECK(r.min_delay == 4);
    CHECK(r.max_delay == 4);
}
