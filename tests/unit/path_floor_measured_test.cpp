// The path floor measured, not assumed: each player's floor is the slowest player's way up
// plus its own way down, from one-way trips on the synchronised clocks (one_way_trips.h),
// against the floor the simulator knows from the very delays it rolled (SimResult::path_floor).
#include <catch2/catch.hpp>

#include <cstdio>

#include "netplay/sim/sim_session.h"
#include "netplay/timing/one_way_trips.h"

using namespace framelock::netplay;

TEST_CASE("OneWayTrips keeps each way's worst of the last 10 s", "[netplay][path_floor]") {
    OneWayTrips trips;
    CHECK(trips.worst_up(0) == 0);
    trips.add(1'000'000, 30'000, 20'000);
    trips.add(2'000'000, 25'000, 40'000);
    trips.add(3'000'000, -5'000, 10'000);  // an offset error: counts as 0
    CHECK(trips.worst_up(3'000'000) == 30'000);
    CHECK(trips.worst_down(3'000'000) == 40'000);
    // The 30 ms way up is 10 s old at 11 s: the next worst takes over.
    CHECK(trips.worst_up(11'000'001) == 25'000);
    CHECK(trips.worst_down(12'000'001) == 10'000);
    CHECK(trips.worst_up(13'000'001) == 0);
}

TEST_CASE(
    "Each player's path floor comes from one-way trips: the simulator's own floor on symmetric "
    "links, the slowest player's way up plus each one's own way down on unequal ones",
    "[netplay][path_floor]") {
    SECTION("symmetric links at 40, 80 and 150 ms: every player's floor is the trace's") {
        for (const Micros rtt : {40'000, 80'000, 150'000}) {
            INFO(rtt / 1000 << " ms");
            SimScenario sc;
            sc.players = 2;
            sc.frames = 1800;
            sc.seed = 7000 + static_cast<std::uint64_t>(rtt / 1000);
            sc.link = {rtt / 2, 1'000, 0.0, 0.0, 0};
            const SimResult r = run_scenario(sc);
            REQUIRE(r.slots.size() == 2);
            for (std::size_t i = 0; i < 2; ++i) {
                CHECK(r.slots[i].path_floor == r.path_floor);
                CHECK(r.clients[i].stats.path_floor == r.path_floor);  // its updates said so
                CHECK(r.slots[i].one_way_up >= rtt / 2 - 2'000);
                CHECK(r.slots[i].one_way_up <= rtt / 2 + 2'000);
            }
        }
    }
    SECTION("20 and 60 ms one way: 5 frames for the near player, 8 for the far one") {
        SimScenario sc;
        sc.players = 2;
        sc.frames = 1800;
        sc.seed = 7100;
        sc.client_links = {{20'000, 1'000, 0.0, 0.0, 0}, {60'000, 1'000, 0.0, 0.0, 0}};
        const SimResult r = run_scenario(sc);
        REQUIRE(r.slots.size() == 2);
        std::printf(
            "[figure] path floor at 20 and 60 ms one way: %d and %d frames (ways up %.1f and %.1f "
            "ms, down %.1f and %.1f ms; the trace's largest %d)\n",
            r.slots[0].path_floor, r.slots[1].path_floor, r.slots[0].one_way_up / 1000.0,
            r.slots[1].one_way_up / 1000.0, r.slots[0].one_way_down / 1000.0,
            r.slots[1].one_way_down / 1000.0, r.path_floor);
        CHECK(r.slots[0].path_floor == 5);  // 61 up + 21 down = 82 ms: 5 frames (83.3 ms)
        CHECK(r.slots[1].path_floor == 8);  // 61 + 61 = 122 ms: 8 frames (133.3 ms)
        CHECK(r.clients[0].stats.path_floor == 5);
        CHECK(r.clients[1].stats.path_floor == 8);
    }
}

TEST_CASE(
    "A player's process stopped for 100 ms does not raise its measured path floor (the updates "
    "that waited on it measure no trip)",
    "[netplay][path_floor]") {
    SimScenario sc;
    sc.players = 2;
    sc.frames = 900;
    sc.seed = 7200;
    sc.link = {40'000, 1'000, 0.0, 0.0, 0};
    sc.freeze_client = 2;
    sc.freeze_frame = 600;
    sc.freeze_for_us = 100'000;
    const SimResult r = run_scenario(sc);
    REQUIRE(r.slots.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        INFO("slot " << i + 1);
        CHECK(r.slots[i].path_floor == r.path_floor);
        CHECK(r.slots[i].one_way_down <= 42'000);
    }
}
