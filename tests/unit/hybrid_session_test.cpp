// The hybrid on the simulated network: rollback over the frame lock's adaptive delay. The
// delay a player feels stays at most 2 frames while prediction covers the rest of the path,
// corrections stay within the frames prediction may cover, and the final frames are
// identical everywhere; the frame lock on the same trace for comparison.
#include <catch2/catch.hpp>

#include <cstdio>

#include "netplay/server/hybrid_guard.h"
#include "netplay/server/server_config.h"
#include "netplay/sim/sim_session.h"
#include "support/sanitized.h"
#include "unit/sim_events.h"

using namespace framelock::netplay;
using framelock::ErrorCode;
using framelock::make_error;
using framelock::Status;

namespace {

SimScenario trace(Micros round_trip_us, Micros jitter_us, double loss, std::uint32_t frames) {
    SimScenario sc;
    sc.players = 2;
    sc.frames = frames;
    sc.seed = 3200 + static_cast<std::uint64_t>(round_trip_us / 1000);
    sc.link.latency_us = round_trip_us / 2;
    sc.link.jitter_us = jitter_us / 2;
    sc.link.loss = loss;
    return sc;
}

SimScenario hybrid(SimScenario sc) {
    sc.server.mode = SessionMode::kRollback;
    sc.server.delay.hybrid = true;
    sc.server.prediction_window = kHybridPredictionWindow;
    return sc;
}

struct Figures {
    double mean_delay = 0;
    std::uint32_t stalls = 0;  // summed over the clients, after the warm-up
    std::uint32_t depth_p99 = 0, longest = 0;
    Micros time_p99_us = 0;
    double rerun_per_frame = 0;
};

Figures figures_of(const SimResult& r, std::uint32_t frames) {
    Figures f;
    f.mean_delay = r.mean_delay_after_warmup;
    f.stalls = r.total_stalls_after_warmup;
    std::uint64_t rerun = 0;
    for (const auto& c : r.clients) {
        f.depth_p99 = std::max(f.depth_p99, c.stats.correction_depth_p99);
        f.longest = std::max(f.longest, c.stats.longest_rollback);
        f.time_p99_us = std::max(f.time_p99_us, c.stats.correction_time_p99_us);
        rerun += c.stats.frames_resimulated;
    }
    f.rerun_per_frame =
        static_cast<double>(rerun) / (static_cast<double>(r.clients.size()) * frames);
    return f;
}

}  // namespace

TEST_CASE(
    "Hybrid: at 80 and 150 ms round trips with 1% loss the local delay stays at most 2 "
    "frames, corrections within the window, stalls within 0.1%, final frames identical",
    "[netplay][rollback][hybrid]") {
    constexpr std::uint32_t kFrames = framelock::test::full_or_sanitized(7'200u, 3'600u);
    for (const Micros rtt : {80'000, 150'000}) {
        INFO(rtt / 1000 << " ms");
        const SimScenario sc = trace(rtt, 4'000, 0.01, kFrames);
        const SimResult lock = run_scenario(sc);
        const SimResult r = run_scenario(hybrid(sc));
        REQUIRE(lock.hashes_identical);
        REQUIRE(r.hashes_identical);
        for (const auto& c : r.clients) CHECK(c.hashes.size() >= kFrames - 60);
        const Figures h = figures_of(r, kFrames), l = figures_of(lock, kFrames);
        std::printf(
            "[figure] hybrid at %lld ms +-2, 1%% loss, %u frames: mean delay %.2f (frame lock "
            "%.2f, path floor %d), stall frames %u (frame lock %u), corrections p99 %u frames "
            "deep (longest %u, window %u), %.2f frames re-run per frame\n",
            static_cast<long long>(rtt / 1000), kFrames, h.mean_delay, l.mean_delay, r.path_floor,
            h.stalls, l.stalls, h.depth_p99, h.longest, unsigned{kHybridPredictionWindow},
            h.rerun_per_frame);
        CHECK(h.mean_delay <= 2.0);
        CHECK(r.max_delay <= 2);
        CHECK(l.mean_delay >= r.path_floor - 1);  // the frame lock pays the path
        // Prediction covers at most the window less a frame: the delay never leaves more.
        CHECK(h.depth_p99 <= kHybridPredictionWindow - 1u);
        CHECK(h.longest <= kHybridPredictionWindow);
        CHECK(h.depth_p99 >= static_cast<std::uint32_t>(r.path_floor) - 3);  // it did predict
        // Stalls within 0.1 % of the frames each client ran after the warm-up.
        CHECK(h.stalls <= 2 * kFrames / 1000 + 2);
    }
}

TEST_CASE(
    "Hybrid: on a short path it is the frame lock (a frame of delay, nothing to correct), "
    "and past what prediction covers the delay rises frame for frame",
    "[netplay][rollback][hybrid]") {
    constexpr std::uint32_t kFrames = framelock::test::full_or_sanitized(3'600u, 1'800u);
    const SimResult near = run_scenario(hybrid(trace(4'000, 500, 0.0, kFrames)));
    REQUIRE(near.hashes_identical);
    CHECK(near.max_delay == 1);
    const Figures n = figures_of(near, kFrames);
    CHECK(n.rerun_per_frame < 0.05);
    // 300 ms: a frame lock's 19-20 frames; prediction covers 11 of them, the delay the rest.
    const SimScenario far_trace = trace(300'000, 4'000, 0.0, kFrames);
    const SimResult far_lock = run_scenario(far_trace);
    const SimResult far = run_scenario(hybrid(far_trace));
    REQUIRE(far.hashes_identical);
    const Figures f = figures_of(far, kFrames);
    std::printf(
        "[figure] hybrid at 4 ms: delay %d..%d, %.3f frames re-run per frame; at 300 ms: "
        "mean delay %.2f (frame lock %.2f), corrections p99 %u deep\n",
        near.min_delay, near.max_delay, n.rerun_per_frame, f.mean_delay,
        figures_of(far_lock, kFrames).mean_delay, f.depth_p99);
    CHECK(f.mean_delay ==
          Approx(figures_of(far_lock, kFrames).mean_delay - (kHybridPredictionWindow - 1))
              .margin(1.0));
    CHECK(f.depth_p99 <= kHybridPredictionWindow - 1u);
}

TEST_CASE(
    "Hybrid: a player whose corrections cost 2 ms a frame gets at most 4 predicted frames (a "
    "correction within half a frame) and the delay covers the rest, and one claiming 50 ms gets "
    "the frame lock's delay, no more",
    "[netplay][rollback][hybrid][budget]") {
    constexpr std::uint32_t kFrames = framelock::test::full_or_sanitized(3'600u, 1'800u);
    const SimScenario base = hybrid(trace(150'000, 4'000, 0.01, kFrames));
    const SimResult light = run_scenario(base);
    const SimResult lock = run_scenario(trace(150'000, 4'000, 0.01, kFrames));
    // Client 2 says what re-running a frame costs it (the simulator's emulators take no time).
    const auto costing = [&](std::uint16_t frame_cost_us) {
        SimScenario sc = base;
        sc.tamper_client = 2;
        sc.tamper_stats = [frame_cost_us](ClientStats& stats) {
            stats.rerun_frame_us = frame_cost_us;
        };
        return run_scenario(sc);
    };
    const SimResult heavy = costing(2'000);
    const SimResult liar = costing(50'000);
    REQUIRE(heavy.hashes_identical);
    REQUIRE(liar.hashes_identical);
    const Figures l = figures_of(light, kFrames), h = figures_of(heavy, kFrames),
                  x = figures_of(liar, kFrames), f = figures_of(lock, kFrames);
    std::printf(
        "[figure] hybrid at 150 ms, 1%% loss: light core mean delay %.2f, corrections p99 %u "
        "deep; a core re-running a frame in 2 ms: mean delay %.2f, p99 %u deep, %u prediction "
        "changes said; a client claiming 50 ms: %.2f, p99 %u deep; the frame lock %.2f\n",
        l.mean_delay, l.depth_p99, h.mean_delay, h.depth_p99,
        heavy.server_events_of(ServerEvent::Type::kPrediction), x.mean_delay, x.depth_p99,
        f.mean_delay);
    // 8.3 ms of budget at 2 ms a frame: 4 frames predicted, the delay 4 below the lock's.
    CHECK(h.depth_p99 <= 4);
    CHECK(h.mean_delay == Approx(f.mean_delay - 4).margin(0.6));
    CHECK(heavy.server_events_of(ServerEvent::Type::kPrediction) >= 1);
    // The light core's session predicts the whole path, as before.
    CHECK(l.mean_delay <= 2.0);
    // A claim of any cost makes the hybrid wait as long as the frame lock: no longer.
    CHECK(x.depth_p99 <= 1);
    CHECK(x.mean_delay <= f.mean_delay + 0.6);
    CHECK(x.mean_delay >= f.mean_delay - 0.6);
}

TEST_CASE(
    "Hybrid: a desync turns the session into the frame lock for good: every player is told "
    "why, the delay covers the path again, and the divergent player is repaired",
    "[netplay][rollback][hybrid][desync]") {
    constexpr std::uint32_t kFrames = framelock::test::full_or_sanitized(3'600u, 2'400u);
    SimScenario sc = hybrid(trace(80'000, 4'000, 0.01, kFrames));
    sc.players = 3;  // a majority to repair from
    sc.diverging_client = 2;
    sc.diverge_frame = 1000;
    const SimResult r = run_scenario(sc);
    const ServerEvent* desync = find_event(r, ServerEvent::Type::kDesync);
    REQUIRE(desync != nullptr);
    CHECK(desync->differing_slots == 0b010);
    REQUIRE(count_events(r, ServerEvent::Type::kModeChanged) == 1);
    const ServerEvent* changed = find_event(r, ServerEvent::Type::kModeChanged);
    CHECK(changed->differing_slots == 0b010);
    CHECK_THAT(changed->message,
               Catch::Contains("desync at frame " + std::to_string(desync->frame)) &&
                   Catch::Contains("frame lock from now on"));
    // Every player heard it, with the reason.
    for (const auto& c : r.clients) {
        int told = 0;
        for (const auto& e : c.events) {
            if (e.type == ClientEvent::Type::kModeChanged) {
                ++told;
                CHECK(e.message == changed->message);
            }
        }
        CHECK(told == 1);
    }
    // The hybrid's delay before, the frame lock's (the path) from a second after.
    const std::uint32_t switched = changed->frame;
    int before = 0, after = 99;
    for (std::uint32_t f = 300; f < desync->frame; ++f) before = std::max(before, r.delay_at(f));
    for (std::uint32_t f = switched + 60; f < kFrames; ++f) after = std::min(after, r.delay_at(f));
    // Repaired as in the frame lock: identical from the reference state on, one desync, one
    // repair.
    const ServerEvent* repaired = find_event(r, ServerEvent::Type::kResynced, 2);
    REQUIRE(repaired != nullptr);
    std::uint32_t stalls = 0;
    for (const auto& c : r.clients) stalls = std::max(stalls, c.stall_frames_after_warmup);
    std::printf(
        "[figure] hybrid to frame lock at 80 ms, 1%% loss: desync at frame %u, frame lock from "
        "frame %u (server), repaired at frame %u; delay %d before, at least %d from a second "
        "after (path floor %d); at most %u stall frames per client in %u\n",
        desync->frame, switched, repaired->frame, before, after, r.path_floor, stalls, kFrames);
    CHECK(before <= 2);
    CHECK(after >= r.path_floor - 1);
    CHECK(repaired->frame > desync->frame);
    CHECK(SimResult::first_difference(r.clients[0], r.clients[1], repaired->frame) == -1);
    CHECK(SimResult::first_difference(r.clients[0], r.clients[2]) == -1);
    CHECK(count_events(r, ServerEvent::Type::kDesync) == 1);
    CHECK(count_events(r, ServerEvent::Type::kResynced) == 1);
    for (const auto& c : r.clients) CHECK(c.hashes.size() >= kFrames - 60);
}

TEST_CASE(
    "Hybrid on a server without a core: it plays the hybrid when every player vouches for its "
    "savestates, and the frame lock from frame 0 when one fails its check or says nothing",
    "[netplay][rollback][hybrid][vouch]") {
    constexpr std::uint32_t kFrames = framelock::test::full_or_sanitized(1'800u, 1'200u);
    SimScenario sc = hybrid(trace(80'000, 4'000, 0.01, kFrames));
    sc.server.hybrid_if_vouched = true;
    const SimResult vouched = run_scenario(sc);
    REQUIRE(vouched.hashes_identical);
    CHECK(count_events(vouched, ServerEvent::Type::kModeChanged) == 0);
    CHECK(vouched.max_delay <= 2);

    sc.savestate_check = [](int client) -> std::optional<Status> {
        if (client != 2) return Status{};
        return make_error(ErrorCode::kState, "rollback refused: the turbo counter differs");
    };
    const SimResult failed = run_scenario(sc);
    REQUIRE(failed.hashes_identical);
    REQUIRE(count_events(failed, ServerEvent::Type::kModeChanged) == 1);
    const ServerEvent* changed = find_event(failed, ServerEvent::Type::kModeChanged);
    CHECK(changed->frame == 0);  // before the start
    CHECK(changed->differing_slots == 0b10);
    CHECK_THAT(changed->message, Catch::Contains("player 2 (") &&
                                     Catch::Contains("the turbo counter differs") &&
                                     Catch::Contains("frame lock from now on"));
    CHECK(failed.min_delay >= failed.path_floor - 1);  // the frame lock's delay from frame 0
    for (const auto& c : failed.clients) CHECK(c.stats.frames_resimulated == 0);

    sc.savestate_check = [](int client) -> std::optional<Status> {
        if (client == 1) return Status{};
        return std::nullopt;  // still checking, for ever
    };
    const SimResult silent = run_scenario(sc);
    REQUIRE(silent.hashes_identical);
    const ServerEvent* waited = find_event(silent, ServerEvent::Type::kModeChanged);
    REQUIRE(waited != nullptr);
    CHECK_THAT(waited->message, Catch::Contains("player(s) 2 said nothing of their savestates"));
    std::printf(
        "[figure] hybrid without a core at 80 ms: every player vouched: delay %d..%d; player 2 "
        "failed its check: delay %d..%d (path floor %d), \"%s\"; player 2 silent: the start "
        "waited %.1f s\n",
        vouched.min_delay, vouched.max_delay, failed.min_delay, failed.max_delay, failed.path_floor,
        changed->message.c_str(),
        static_cast<double>(silent.start_offset_us - vouched.start_offset_us) / 1e6);
    CHECK(silent.start_offset_us - vouched.start_offset_us >=
          HybridGuard::kVouchWaitUs - 1'000'000);
}
