// Rollback sessions on the simulated network: zero-delay local input, predictions corrected
// by re-running, final frames identical everywhere.
#include <catch2/catch.hpp>

#include <cstdio>

#include "netplay/sim/sim_session.h"
#include "support/sanitized.h"

using namespace framelock::netplay;

namespace {

SimScenario rollback_scenario(int players, std::uint32_t frames, int local_delay) {
    SimScenario sc;
    sc.players = players;
    sc.frames = frames;
    sc.seed = 7000 + static_cast<std::uint64_t>(players);
    sc.link.latency_us = 50'000;  // 100 ms round trip
    sc.link.jitter_us = 10'000;   // +-20 ms on the round trip
    sc.link.loss = 0.02;
    sc.server.mode = SessionMode::kRollback;
    sc.server.delay.fixed_delay = local_delay;
    sc.server.prediction_window = 8;
    return sc;
}

}  // namespace

TEST_CASE(
    "Rollback: 2 and 4 players at 100 +- 20 ms, 2% loss, 36,000 frames (7,200 under "
    "sanitizers), identical final frames, local delay as configured, no rollback beyond the "
    "window",
    "[netplay][rollback]") {
    constexpr std::uint32_t kFrames = framelock::test::full_or_sanitized(36'000u, 7'200u);
    for (int players : {2, 4}) {
        for (int delay : {0, 2}) {
            const SimResult r = run_scenario(rollback_scenario(players, kFrames, delay));
            INFO(players << " players, local delay " << delay);
            REQUIRE(r.hashes_identical);
            std::uint64_t rollbacks = 0, resimulated = 0, predicted = 0, right = 0;
            for (const auto& c : r.clients) {
                // Every client's final frames cover (nearly) the whole run.
                CHECK(c.hashes.size() >= kFrames - 60);
                CHECK(c.stats.longest_rollback <= 8);
                CHECK(c.stats.longest_rollback >= 5);  // 100 ms is 6 frames of prediction
                rollbacks += c.stats.rollbacks;
                resimulated += c.stats.frames_resimulated;
                predicted += c.stats.predicted_frames;
                right += c.stats.predicted_right;
                CHECK(c.stall_frames_after_warmup < kFrames / 200);  // < 0.5%
            }
            CHECK(r.min_delay == delay);
            CHECK(r.max_delay == delay);
            // The local pad acts after exactly `delay` frames on every emulator.
            for (std::size_t c = 0; c < r.clients.size(); ++c) {
                const auto& sampled = r.clients[c].sampled;
                for (const auto& other : r.clients) {
                    int mismatches = 0;
                    for (std::size_t f = 0; f + delay < other.inputs.size() && f < sampled.size();
                         ++f)
                        mismatches += other.inputs[f + delay].pads[c] != sampled[f];
                    CHECK(mismatches == 0);
                }
            }
            std::printf(
                "rollback: %d players, delay %d: %.1f rollbacks/s per client, %.2f frames "
                "re-run per frame, prediction right %.1f%% of %llu predicted frames\n",
                players, delay, rollbacks / (r.clients.size() * (kFrames / 60.0)),
                static_cast<double>(resimulated) /
                    (r.clients.size() * static_cast<double>(kFrames)),
                100.0 * static_cast<double>(right) / static_cast<double>(predicted),
                static_cast<unsigned long long>(predicted));
            CHECK(rollbacks > 0);
            CHECK(right < predicted);
        }
    }
}

TEST_CASE("Rollback: a near and a far player predict equally deep and neither waits",
          "[netplay][rollback]") {
    // One-way 10 ms for client 1, 90 ms for client 2: the shared timeline makes each one's
    // prediction depth the same sum (10 + 90 ms); the far one's own round trip does not count.
    SimScenario sc = rollback_scenario(2, 6000, 0);
    sc.link = {};
    sc.client_links = {{10'000, 2'000, 0.01, 0.0, 0}, {90'000, 10'000, 0.01, 0.0, 0}};
    const SimResult r = run_scenario(sc);
    REQUIRE(r.hashes_identical);
    double advantage[2];
    for (int c = 0; c < 2; ++c) {
        const auto& s = r.clients[c].stats;
        advantage[c] = static_cast<double>(s.advantage_total) / s.frames_run;
        CHECK(r.clients[c].stall_frames_after_warmup < 6000 / 200);  // < 0.5%
        CHECK(s.longest_rollback <= 8);
    }
    std::printf("rollback: near/far player frame advantage %.2f / %.2f\n", advantage[0],
                advantage[1]);
    CHECK(advantage[0] == Approx(advantage[1]).margin(0.5));
    CHECK(advantage[0] > 5.0);  // 100 ms of prediction: 6 frames
}
