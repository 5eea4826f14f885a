// Desync evidence without the bytes a load moves: the masked hash, the probe a player runs
// after each load, the server's union of what players found, and whole sessions on the
// simulated network with emulators that take a new stamp into their state at every load
// (a core reading the clock in retro_unserialize): no desync alarm while the games agree,
// and a real divergence still caught at its first compared frame.
#include <catch2/catch.hpp>

#include <cstdio>

#include "netplay/determinism/evidence.h"
#include "netplay/determinism/state_hash.h"
#include "netplay/sim/sim_session.h"
#include "unit/sim_events.h"

using namespace framelock::netplay;

namespace {

SimScenario reloading(int players, std::uint64_t seed) {
    SimScenario sc;
    sc.players = players;
    sc.frames = 1200;
    sc.seed = seed;
    sc.link = LinkParams{20'000, 2'000, 0.0, 0.0, 0};
    sc.reload_stamps = true;
    sc.state_padding = 56;        // a 24-byte state would be a third stamp: compared as memory
    sc.server.hash_interval = 1;  // every frame compared, from frame 0
    return sc;
}

}  // namespace

TEST_CASE("Evidence: the masked hash ignores exactly the masked bytes", "[netplay][evidence]") {
    std::vector<std::uint8_t> state(256);
    for (std::size_t i = 0; i < state.size(); ++i) state[i] = static_cast<std::uint8_t>(i * 7);
    CHECK(hash_bytes_except(state, {}) == hash_bytes(state));
    const std::vector<ByteRange> mask = {{16, 8}, {200, 4}};
    const std::uint64_t masked = hash_bytes_except(state, mask);
    CHECK(masked != hash_bytes(state));
    auto moved = state;
    moved[16] ^= 0xff;
    moved[23] ^= 0x01;
    moved[203] ^= 0x10;
    CHECK(hash_bytes_except(moved, mask) == masked);
    auto changed = moved;
    changed[24] ^= 0x01;  // just past the first range
    CHECK(hash_bytes_except(changed, mask) != masked);
    changed = moved;
    changed[199] ^= 0x01;  // just before the second
    CHECK(hash_bytes_except(changed, mask) != masked);
    // A range running past the end masks the tail, nothing more.
    CHECK(hash_bytes_except(state, std::vector<ByteRange>{{250, 100}}) ==
          hash_bytes(std::span(state).first(250)));
}

TEST_CASE(
    "Evidence: the probe finds what a load moves, the server's union widens, then falls "
    "back to memory",
    "[netplay][evidence]") {
    HashingEmulator steady;
    steady.set_load_stamp(5);
    std::vector<std::uint8_t> start;
    REQUIRE(steady.save_state(start));
    REQUIRE(steady.load_state(start));
    CHECK(probe_moved_bytes(steady, start, 0).ranges.empty());  // a stamp taken over

    HashingEmulator reloading;
    reloading.set_reload_stamps(99);
    reloading.set_state_padding(56);
    REQUIRE(reloading.save_state(start));
    REQUIRE(reloading.load_state(start));
    const MovedBytes moved = probe_moved_bytes(reloading, start, 0);
    CHECK_FALSE(moved.overflow);
    CHECK(moved.state_size == start.size());
    REQUIRE(moved.ranges.size() == 1);
    CHECK(moved.ranges[0].offset == 16);  // the stamp's 8 bytes (merged if adjacent bytes agree)
    CHECK(moved.ranges[0].length <= 8);

    EvidenceMask mask;
    CHECK(widen_mask(mask, moved));
    CHECK_FALSE(widen_mask(mask, moved));  // nothing new
    CHECK(mask.kind == EvidenceKind::kState);
    MovedBytes more{0, 1000, false, {{100, 10}}};
    CHECK(widen_mask(mask, more));
    CHECK(mask.ranges.size() == 2);
    CHECK(describe_ranges(mask.ranges).find("in 2 ranges") != std::string::npos);
    // A quarter of the state or more is not a mask any more: memory is compared instead.
    MovedBytes most{0, 1000, false, {{300, 250}}};
    CHECK(widen_mask(mask, most));
    CHECK(mask.kind == EvidenceKind::kMemory);
    CHECK(mask.ranges.empty());
    CHECK_FALSE(widen_mask(mask, more));  // and stays so
    EvidenceMask scattered;
    CHECK(widen_mask(scattered, MovedBytes{0, 1000, true, {}}));
    CHECK(scattered.kind == EvidenceKind::kMemory);
}

TEST_CASE(
    "Evidence: players whose every load takes a new stamp into the state play without a desync "
    "alarm, the stamp left out of the comparison from frame 0",
    "[netplay][evidence]") {
    for (int players : {2, 4}) {
        INFO(players << " players");
        const SimResult r =
            run_scenario(reloading(players, 50 + static_cast<std::uint64_t>(players)));
        REQUIRE(static_cast<int>(r.clients.size()) == players);
        CHECK(r.hashes_identical);
        CHECK(count_events(r, ServerEvent::Type::kDesync) == 0);
        CHECK(count_events(r, ServerEvent::Type::kResynced) == 0);
        CHECK(r.hash_frames_matched >= 1150);
        // The bytes really differ between the players: each load drew its own stamp.
        for (std::size_t i = 1; i < r.clients.size(); ++i)
            CHECK(r.clients[i].load_stamp != r.clients[0].load_stamp);
        const ServerEvent* evidence = find_event(r, ServerEvent::Type::kEvidence);
        REQUIRE(evidence != nullptr);
        CHECK(evidence->frame == 0);
        CHECK_THAT(evidence->message, Catch::Contains("offsets 16..") &&
                                          Catch::Contains("loading the start state moved"));
        CHECK(count_events(r, ServerEvent::Type::kEvidence) == 1);
        if (players == 4) std::printf("[figure] evidence: %s\n", evidence->message.c_str());
    }
}

TEST_CASE("Evidence: rollback players reloading states all the time compare equal too",
          "[netplay][evidence][rollback]") {
    SimScenario sc = reloading(2, 61);
    sc.server.mode = SessionMode::kRollback;
    sc.server.delay.fixed_delay = 1;
    sc.link = LinkParams{40'000, 8'000, 0.0, 0.0, 0};
    const SimResult r = run_scenario(sc);
    REQUIRE(r.clients.size() == 2);
    CHECK(r.clients[0].stats.rollbacks + r.clients[1].stats.rollbacks > 50);
    CHECK(r.hashes_identical);
    CHECK(count_events(r, ServerEvent::Type::kDesync) == 0);
    CHECK(r.hash_frames_matched >= 1100);
}

TEST_CASE(
    "Evidence: a real divergence under the mask is still found at its first frame, "
    "repaired, and identical after",
    "[netplay][evidence][desync]") {
    SimScenario sc = reloading(3, 71);
    sc.frames = 2400;
    sc.diverging_client = 2;
    sc.diverge_frame = 1000;
    const SimResult r = run_scenario(sc);
    const ServerEvent* desync = find_event(r, ServerEvent::Type::kDesync);
    REQUIRE(desync != nullptr);
    CHECK(desync->frame == 1000);
    CHECK(desync->differing_slots == 0b010);
    const ServerEvent* repaired = find_event(r, ServerEvent::Type::kResynced);
    REQUIRE(repaired != nullptr);
    CHECK(repaired->slot == 2);
    CHECK_THAT(repaired->message, Catch::Contains("CHAIN"));
    CHECK(count_events(r, ServerEvent::Type::kDesync) == 1);
    CHECK(count_events(r, ServerEvent::Type::kResynced) == 1);
    CHECK(SimResult::first_difference(r.clients[0], r.clients[1], repaired->frame) == -1);
    CHECK(SimResult::first_difference(r.clients[0], r.clients[2]) == -1);
    // The repair's load moved the same bytes: the mask did not change.
    CHECK(count_events(r, ServerEvent::Type::kEvidence) == 1);
}

TEST_CASE(
    "Evidence: a late joiner and a reconnected player with reloading states are "
    "identical from their first frame, without an alarm",
    "[netplay][evidence][join]") {
    SimScenario sc = reloading(2, 81);
    sc.slots = 3;
    sc.frames = 2400;
    sc.joiners = {{600, false, 3}};
    sc.drop_client = 2;
    sc.drop_frame = 1200;
    sc.rejoin_after_us = 1'000'000;
    const SimResult r = run_scenario(sc);
    REQUIRE(r.clients.size() == 4);
    CHECK(count_events(r, ServerEvent::Type::kDesync) == 0);
    CHECK(count_events(r, ServerEvent::Type::kResynced) == 0);
    const auto& joiner = r.clients[2];
    const auto& rejoined = r.clients[3];
    CHECK(joiner.first_frame >= 600);
    CHECK(rejoined.first_frame > 1200);
    CHECK(SimResult::first_difference(r.clients[0], joiner) == -1);
    CHECK(SimResult::first_difference(r.clients[0], rejoined) == -1);
    CHECK(joiner.hashes.size() >= 2300);
}

TEST_CASE(
    "Evidence: a joiner whose load moves bytes nobody's did widens the mask mid-session "
    "for everyone, without an alarm",
    "[netplay][evidence][join]") {
    SimScenario sc;
    sc.players = 2;
    sc.slots = 3;
    sc.frames = 1800;
    sc.seed = 91;
    sc.link = LinkParams{30'000, 3'000, 0.0, 0.0, 0};
    sc.load_stamps = true;       // the players' loads take the stamp over: nothing moves
    sc.reload_stamp_client = 3;  // the joiner's loads draw a new one
    sc.state_padding = 56;
    sc.server.hash_interval = 1;
    sc.joiners = {{600, false, 3}};
    const SimResult r = run_scenario(sc);
    REQUIRE(r.clients.size() == 3);
    CHECK(count_events(r, ServerEvent::Type::kDesync) == 0);
    REQUIRE(count_events(r, ServerEvent::Type::kEvidence) == 1);
    const ServerEvent* evidence = find_event(r, ServerEvent::Type::kEvidence);
    CHECK(evidence->frame > r.clients[2].first_frame);
    CHECK(evidence->frame < r.clients[2].first_frame + 120);
    CHECK_THAT(evidence->message, Catch::Contains("load of the state of frame"));
    CHECK(SimResult::first_difference(r.clients[0], r.clients[2]) == -1);
    CHECK(r.clients[2].load_stamp != r.clients[0].load_stamp);
    // Compared under the new mask to the end: nearly every frame matched.
    CHECK(r.hash_frames_matched >= 1700);
    std::printf("[figure] evidence, joiner: %s\n", evidence->message.c_str());
}
