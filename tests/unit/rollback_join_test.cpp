// Late and returning players in a running rollback session (plain rollback and the hybrid),
// on the simulated network: the joiner starts from a state every player had confirmed,
// plays from its join on like anyone, and the final frames are identical everywhere; nobody
// stalls more than the frame lock's late join makes them.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "netplay/server/server_config.h"
#include "netplay/sim/sim_session.h"
#include "unit/sim_events.h"

using namespace framelock::netplay;

namespace {

enum class Kind { kFrameLock, kRollback, kHybrid };

const char* name_of(Kind kind) {
    return kind == Kind::kFrameLock  ? "frame lock"
           : kind == Kind::kRollback ? "rollback"
                                     : "hybrid";
}

// 80 ms round trip (+-4 ms), 1% loss, 2 players.
SimScenario trace(Kind kind, std::uint32_t frames) {
    SimScenario sc;
    sc.players = 2;
    sc.frames = frames;
    sc.seed = 3280;
    sc.link.latency_us = 40'000;
    sc.link.jitter_us = 2'000;
    sc.link.loss = 0.01;
    if (kind == Kind::kRollback) {
        sc.server.mode = SessionMode::kRollback;
        sc.server.delay.fixed_delay = 0;  // `--mode rollback`'s default local delay
    } else if (kind == Kind::kHybrid) {
        sc.server.mode = SessionMode::kRollback;
        sc.server.delay.hybrid = true;
        sc.server.prediction_window = kHybridPredictionWindow;
    }
    return sc;
}

// Frames at which `slot`'s pad changed in a client's confirmed inputs, from `from` on.
int pad_changes(const SimClientResult& c, int slot, std::uint32_t from) {
    int changes = 0;
    for (std::size_t f = std::max<std::size_t>(from, 1); f < c.inputs.size(); ++f)
        changes += c.inputs[f].pads[slot - 1] != c.inputs[f - 1].pads[slot - 1];
    return changes;
}

std::uint32_t most_stalls(const SimResult& r, std::size_t players) {
    std::uint32_t most = 0;
    for (std::size_t c = 0; c < players; ++c)
        most = std::max(most, r.clients[c].stall_frames_after_warmup);
    return most;
}

}  // namespace

TEST_CASE(
    "Rollback late join: a third player joins a running rollback and hybrid session at frame "
    "600 (80 ms, 1% loss), from a confirmed state, frame-identical from its first frame",
    "[netplay][rollback][hybrid][join]") {
    constexpr std::uint32_t kFrames = 2400;
    const auto run = [&](Kind kind) {
        SimScenario sc = trace(kind, kFrames);
        sc.slots = 3;
        sc.joiners = {{600, false, 3}};
        return run_scenario(sc);
    };
    const SimResult lock = run(Kind::kFrameLock);
    REQUIRE(lock.clients.size() == 3);
    REQUIRE(lock.hashes_identical);
    for (const Kind kind : {Kind::kRollback, Kind::kHybrid}) {
        INFO(name_of(kind));
        const SimResult r = run(kind);
        REQUIRE(r.clients.size() == 3);
        CHECK(find_event(r, ServerEvent::Type::kRejected) == nullptr);
        CHECK(find_event(r, ServerEvent::Type::kRefused) == nullptr);
        const auto& joiner = r.clients[2];
        CHECK(joiner.slot == 3);
        // Its state is of a snapshot every player had confirmed, the newest when it
        // connected or the next (then served once final).
        CHECK(joiner.first_frame > 400);
        CHECK(joiner.first_frame <= 700);
        CHECK(r.hashes_identical);
        for (std::size_t c = 1; c < 3; ++c)
            CHECK(SimResult::first_difference(r.clients[0], r.clients[c]) == -1);
        for (const auto& c : r.clients) CHECK(c.hashes.size() >= kFrames - 60);
        CHECK(joiner.hashes.size() - joiner.first_frame >= 1700);
        // It plays: slot 3's pad moves in everyone's game from its join on, never before.
        CHECK(pad_changes(r.clients[0], 3, joiner.first_frame) > 100);
        for (std::size_t f = 0; f < joiner.first_frame; ++f)
            CHECK(r.clients[0].inputs[f].pads[2] == 0);
        // And runs as a rollback client: it predicted the others and corrected.
        CHECK(joiner.stats.rollbacks > 0);
        REQUIRE(joiner.running_at_us > joiner.connected_at_us);
        const double seconds = (joiner.running_at_us - joiner.connected_at_us) / 1e6;
        const std::uint32_t stalls = most_stalls(r, 2), lock_stalls = most_stalls(lock, 2);
        const std::uint32_t joiner_stalls = joiner.stall_frames_after_warmup;
        const std::uint32_t lock_joiner_stalls = lock.clients[2].stall_frames_after_warmup;
        std::printf(
            "[figure] rollback late join (%s, 80 ms, 1%% loss): state of frame %u, running "
            "%.3f s after connecting (frame lock %.3f s); the first players stalled at most %u "
            "frames (frame lock's late join: %u), the joiner %u (frame lock's joiner: %u)\n",
            name_of(kind), joiner.first_frame, seconds,
            (lock.clients[2].running_at_us - lock.clients[2].connected_at_us) / 1e6, stalls,
            lock_stalls, joiner_stalls, lock_joiner_stalls);
        CHECK(seconds < 1.0);
        CHECK(stalls <= lock_stalls);
        // A joiner stalls a frame or two as it catches up, in either mode (seeds 1-11: 0-2).
        CHECK(joiner_stalls <= lock_joiner_stalls + 2);
        CHECK(r.clients[0].present == 0b111);
    }
}

TEST_CASE(
    "Rollback rejoin: player 2's process dies at frame 900 of a rollback and a hybrid session "
    "(80 ms, 1% loss) and rejoins its slot with its token, frame-identical from its first "
    "frame",
    "[netplay][rollback][hybrid][join][reconnect]") {
    constexpr std::uint32_t kFrames = 2400;
    const auto run = [&](Kind kind) {
        SimScenario sc = trace(kind, kFrames);
        sc.drop_client = 2;
        sc.drop_frame = 900;
        sc.rejoin_after_us = 500'000;
        return run_scenario(sc);
    };
    const SimResult lock = run(Kind::kFrameLock);
    REQUIRE(lock.clients.size() == 3);
    for (const Kind kind : {Kind::kRollback, Kind::kHybrid}) {
        INFO(name_of(kind));
        const SimResult r = run(kind);
        REQUIRE(r.clients.size() == 3);
        CHECK(find_event(r, ServerEvent::Type::kRejected) == nullptr);
        CHECK(find_event(r, ServerEvent::Type::kPlayerLeft, 2) == nullptr);
        CHECK(find_event(r, ServerEvent::Type::kPlayerAway, 2) != nullptr);
        const auto& back = r.clients[2];
        CHECK(back.slot == 2);
        CHECK(back.first_frame > 900);
        CHECK(SimResult::first_difference(r.clients[0], back) == -1);
        CHECK(SimResult::first_difference(r.clients[0], r.clients[1]) == -1);
        CHECK(back.hashes.size() >= kFrames - 60);
        CHECK(r.clients[0].hashes.size() >= kFrames - 60);
        CHECK(pad_changes(r.clients[0], 2, back.first_frame) > 100);
        CHECK(back.stats.rollbacks > 0);
        REQUIRE(back.running_at_us > back.connected_at_us);
        const double seconds = (back.running_at_us - back.connected_at_us) / 1e6;
        const std::uint32_t stalls = r.clients[0].stall_frames_after_warmup;
        const std::uint32_t lock_stalls = lock.clients[0].stall_frames_after_warmup;
        std::printf(
            "[figure] rollback rejoin (%s, 80 ms, 1%% loss): state of frame %u, running %.3f s "
            "after connecting (frame lock %.3f s); player 1 stalled %u frames (frame lock's "
            "rejoin: %u)\n",
            name_of(kind), back.first_frame, seconds,
            (lock.clients[2].running_at_us - lock.clients[2].connected_at_us) / 1e6, stalls,
            lock_stalls);
        CHECK(seconds < 2.0);
        CHECK(stalls <= lock_stalls);
    }
}
