// A running client asks to be woken when something is due and not before: the frontend sleeps
// until Client::next_wakeup(), so a wake-up "now" after a tick that had nothing left to do is
// a turn of a busy loop (a spectator spun a core for its whole session, a player once a
// frame). The simulator counts them per client (SimClientResult::busy_wakeups).
#include <catch2/catch.hpp>

#include <cstdio>

#include "netplay/sim/sim_session.h"

using namespace framelock::netplay;

TEST_CASE(
    "A running client asks to be woken only when something is due: players and spectators do "
    "not spin in frame lock, no-wait or rollback",
    "[netplay][wakeup]") {
    for (const SessionMode mode :
         {SessionMode::kFrameLock, SessionMode::kNoWait, SessionMode::kRollback}) {
        SimScenario sc;
        sc.players = 2;
        sc.frames = 2400;
        sc.seed = 23;
        sc.server.mode = mode;
        if (mode != SessionMode::kFrameLock) sc.server.delay.fixed_delay = 2;
        sc.link = LinkParams{30'000, 3'000, 0.01, 0.0, 0};
        sc.joiners = {{600, true, 0}};  // a spectator, from frame 600
        const SimResult r = run_scenario(sc);
        REQUIRE(r.clients.size() == 3);
        INFO("mode " << static_cast<int>(mode));
        CHECK(SimResult::first_difference(r.clients[0], r.clients[2]) == -1);
        for (std::size_t c = 0; c < r.clients.size(); ++c) {
            INFO("client " << c + 1);
            std::printf("[figure] busy wake-ups over 2,400 frames, mode %d, client %zu: %u\n",
                        static_cast<int>(mode), c + 1, r.clients[c].busy_wakeups);
            // A few while a joiner fast-forwards or a stalled client catches up; never one a
            // frame.
            CHECK(r.clients[c].busy_wakeups < 60);
        }
    }
}

TEST_CASE(
    "The server and the players ask to be woken only when something is due while a player is "
    "away, frozen or waited for",
    "[netplay][wakeup]") {
    struct Case {
        const char* name;
        bool pause_on_drop;
        bool freeze;
    };
    for (const Case& c : {Case{"a player's process dies", false, false},
                          Case{"the others wait for a dead player (pause_on_drop)", true, false},
                          Case{"a player's process is stopped for 3 s", false, true}}) {
        SimScenario sc;
        sc.players = 3;
        sc.frames = 2400;
        sc.seed = 29;
        sc.link = LinkParams{30'000, 3'000, 0.0, 0.0, 0};
        sc.server.pause_on_drop = c.pause_on_drop;
        if (c.freeze) {
            sc.freeze_client = 3;
            sc.freeze_frame = 1000;
            sc.freeze_for_us = 3'000'000;
        } else {
            sc.drop_client = 3;
            sc.drop_frame = 1000;
            // Away for the rest of the run (the grace is a minute); with pause_on_drop the
            // process comes back after 3 s, or the others would wait out the grace.
            if (c.pause_on_drop) sc.rejoin_after_us = 3'000'000;
        }
        const SimResult r = run_scenario(sc);
        INFO(c.name);
        std::printf("[figure] busy wake-ups over 2,400 frames, %s: server %u, players", c.name,
                    r.server_busy_wakeups);
        for (const auto& client : r.clients) std::printf(" %u", client.busy_wakeups);
        std::printf("\n");
        CHECK(SimResult::first_difference(r.clients[0], r.clients[1]) == -1);
        CHECK(r.clients[0].hashes.size() >= 2400);
        CHECK(r.server_busy_wakeups < 60);
        for (const auto& client : r.clients) CHECK(client.busy_wakeups < 60);
    }
}
