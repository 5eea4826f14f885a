// Sessions that survive real life, on the simulated network: late joiners and spectators
// start from a transferred state, a restarted player rejoins its slot, and a divergent
// player is repaired with the majority's state.
#include <catch2/catch.hpp>

#include <cstdio>

#include "netplay/sim/sim_session.h"
#include "unit/sim_events.h"

using namespace framelock::netplay;

namespace {

// Frames at which `slot`'s pad changed in a client's confirmed inputs, from `from` on.
int pad_changes(const SimClientResult& c, int slot, std::uint32_t from) {
    int changes = 0;
    for (std::size_t f = std::max<std::size_t>(from, 1); f < c.inputs.size(); ++f)
        changes += c.inputs[f].pads[slot - 1] != c.inputs[f - 1].pads[slot - 1];
    return changes;
}

}  // namespace

TEST_CASE(
    "Late join: a spectator and a fourth player join at frame 5,000 with a 1 MiB state at "
    "100 ms RTT and are frame-identical from their first frame",
    "[netplay][join]") {
    SimScenario sc;
    sc.players = 3;
    sc.slots = 4;
    sc.frames = 6500;
    sc.seed = 5;
    // 100 ms round trip, a little jitter, 50 Mbit/s each way.
    sc.link = LinkParams{50'000, 3'000, 0.0, 0.0, 50'000'000};
    sc.state_padding = 1 << 20;
    sc.joiners = {{5000, true, 0}, {5000, false, 0}};
    const SimResult r = run_scenario(sc);
    REQUIRE(r.clients.size() == 5);
    const auto& host = r.clients[0];
    CHECK(host.hashes.size() >= 6500);
    for (std::size_t c = 1; c < r.clients.size(); ++c) {
        INFO("client " << c + 1);
        CHECK(SimResult::first_difference(host, r.clients[c]) == -1);
    }
    for (std::size_t c = 3; c < 5; ++c) {
        const auto& joiner = r.clients[c];
        INFO("joiner " << c + 1);
        CHECK(joiner.first_frame > 4800);
        CHECK(joiner.first_frame <= 5100);
        CHECK(joiner.hashes.size() >= 6500);
        // Identical over every frame it ran: at least the last 1,400.
        CHECK(joiner.hashes.size() - joiner.first_frame >= 1400);
        REQUIRE(joiner.running_at_us > joiner.connected_at_us);
        const double seconds = (joiner.running_at_us - joiner.connected_at_us) / 1e6;
        std::printf(
            "[figure] late join (%s): 1 MiB state (incompressible) at 100 ms RTT, 50 Mbit/s: "
            "connect to running in %.3f s, state of frame %u\n",
            c == 3 ? "spectator" : "player", seconds, joiner.first_frame);
        CHECK(seconds < 1.0);
    }
    // The fourth player plays: slot 4's pad moves in everyone's game after it joined.
    CHECK(pad_changes(host, 4, 0) > 0);
    CHECK(pad_changes(host, 4, r.clients[4].first_frame) > 100);
    for (std::size_t f = 0; f < r.clients[4].first_frame; ++f) CHECK(host.inputs[f].pads[3] == 0);
    // Nobody waited for them: the players barely stalled around the join.
    for (int c = 0; c < 3; ++c) CHECK(r.clients[c].stall_frames_after_warmup < 30);
    CHECK(find_event(r, ServerEvent::Type::kRefused) == nullptr);
    CHECK(find_event(r, ServerEvent::Type::kSpectatorJoined) != nullptr);
    // Everyone sees four players present at the end (the spectator is not one).
    CHECK(r.clients[0].present == 0b1111);
    CHECK(r.clients[3].present == 0b1111);
}

TEST_CASE("Late join works in a no-wait session too", "[netplay][join]") {
    SimScenario sc;
    sc.players = 2;
    sc.slots = 3;
    sc.frames = 2400;
    sc.server.mode = SessionMode::kNoWait;
    sc.server.delay.fixed_delay = 4;
    sc.link = LinkParams{20'000, 2'000, 0.01, 0.0, 0};
    sc.joiners = {{1200, false, 3}, {1300, true, 0}};
    // Many spectators, several at once (they share one uploaded state).
    for (int i = 0; i < 6; ++i) sc.joiners.push_back({1500u + 100u * (i / 3), true, 0});
    const SimResult r = run_scenario(sc);
    REQUIRE(r.clients.size() == 10);
    for (std::size_t c = 1; c < r.clients.size(); ++c) {
        INFO("client " << c + 1);
        CHECK(SimResult::first_difference(r.clients[0], r.clients[c]) == -1);
        CHECK(r.clients[c].hashes.size() >= 2400);
    }
    CHECK(pad_changes(r.clients[0], 3, r.clients[2].first_frame) > 50);
    int states_sent = 0, start_states = 0;
    for (const auto& e : r.server_events) {
        if (e.type != ServerEvent::Type::kStateSent) continue;
        const bool start = e.message.find("start state from") != std::string::npos;
        start_states += start;
        states_sent += !start;
    }
    CHECK(states_sent == 8);   // one per joiner
    CHECK(start_states == 1);  // before frame 0, to the first two players
    CHECK(r.clients[0].stall_frames_after_warmup == 0);
    CHECK(r.clients[1].stall_frames_after_warmup == 0);
}

TEST_CASE("Reconnect: a player whose process dies at frame 3,000 restarts and rejoins its slot",
          "[netplay][join][reconnect]") {
    for (const SessionMode mode : {SessionMode::kFrameLock, SessionMode::kNoWait}) {
        const bool nowait = mode == SessionMode::kNoWait;
        SimScenario sc;
        sc.players = 3;
        sc.frames = 4800;
        sc.seed = 17;
        sc.server.mode = mode;
        sc.server.delay.fixed_delay = 4;
        // 50 ms round trip, no loss: any stall of the others is the reconnect's doing.
        sc.link = LinkParams{25'000, 2'000, 0.0, 0.0, 0};
        sc.drop_client = 2;
        sc.drop_frame = 3000;
        sc.rejoin_after_us = 500'000;  // the process restarts half a second later
        const SimResult r = run_scenario(sc);
        INFO((nowait ? "no-wait" : "frame lock"));
        REQUIRE(r.clients.size() == 4);
        const auto& back = r.clients[3];
        CHECK(back.slot == 2);
        CHECK(SimResult::first_difference(r.clients[0], back) == -1);
        CHECK(SimResult::first_difference(r.clients[0], r.clients[2]) == -1);
        CHECK(back.hashes.size() >= 4800);
        REQUIRE(back.running_at_us > back.connected_at_us);
        const double rejoin_s = (back.running_at_us - back.connected_at_us) / 1e6;
        // Its pad is in slot 2 again.
        CHECK(pad_changes(r.clients[0], 2, back.first_frame) > 100);
        const ServerEvent* away = find_event(r, ServerEvent::Type::kPlayerAway, 2);
        REQUIRE(away != nullptr);
        CHECK(find_event(r, ServerEvent::Type::kPlayerLeft, 2) == nullptr);
        const std::uint32_t stalls = r.clients[0].stall_frames_after_warmup;
        // The wait for the silent player is not a network round trip: the delay stays.
        int before = 0, after = 0;
        for (std::uint32_t f = 2400; f < 3000; ++f) before = std::max(before, r.delay_at(f));
        for (std::uint32_t f = 3000; f < 4800; ++f) after = std::max(after, r.delay_at(f));
        CHECK(after <= before + 1);
        std::printf(
            "[figure] reconnect (%s): restarted process running again %.3f s after connecting "
            "(state of frame %u); the others stalled %u frames over the whole run\n",
            nowait ? "no-wait" : "frame lock", rejoin_s, back.first_frame, stalls);
        CHECK(rejoin_s < 2.0);
        if (nowait) {
            CHECK(stalls == 0);
            CHECK(r.clients[2].stall_frames_after_warmup == 0);
        } else {
            CHECK(stalls < 60);  // resumed within a second of the process dying
        }
    }
}

TEST_CASE(
    "Desync repair: a divergent player is detected within one hash interval, gets the "
    "majority's state, and is identical again",
    "[netplay][join][desync]") {
    SimScenario sc;
    sc.players = 3;
    sc.frames = 2400;
    sc.link = LinkParams{30'000, 3'000, 0.0, 0.0, 0};
    sc.diverging_client = 2;
    sc.diverge_frame = 1000;
    const SimResult r = run_scenario(sc);
    const ServerEvent* desync = find_event(r, ServerEvent::Type::kDesync);
    REQUIRE(desync != nullptr);
    CHECK(desync->frame == 1020);  // the first hash frame after the divergence
    CHECK(desync->frame - 1000 <= 60);
    CHECK(desync->differing_slots == 0b010);
    const ServerEvent* sent = nullptr;  // the reference state (not the start state)
    for (const auto& e : r.server_events) {
        if (e.type == ServerEvent::Type::kStateSent && e.slot == 2 && e.frame > 0 && !sent)
            sent = &e;
    }
    REQUIRE(sent != nullptr);
    const ServerEvent* repaired = find_event(r, ServerEvent::Type::kResynced, 2);
    REQUIRE(repaired != nullptr);
    CHECK(repaired->frame == sent->frame);
    CHECK_THAT(repaired->message, Catch::Contains("frame 1020") && Catch::Contains("CHAIN"));
    std::printf("[figure] desync repair: %s\n", repaired->message.c_str());
    // Diverged from 1000 until the state it loaded, identical from there on.
    CHECK(SimResult::first_difference(r.clients[0], r.clients[1]) == 1000);
    CHECK(SimResult::first_difference(r.clients[0], r.clients[1], repaired->frame) == -1);
    CHECK(SimResult::first_difference(r.clients[0], r.clients[2]) == -1);
    CHECK(r.clients[1].hashes.size() >= 2400);
    // One desync report and one repair, not one per hash interval.
    int desyncs = 0, repairs = 0;
    for (const auto& e : r.server_events) {
        desyncs += e.type == ServerEvent::Type::kDesync;
        repairs += e.type == ServerEvent::Type::kResynced;
    }
    CHECK(desyncs == 1);
    CHECK(repairs == 1);
    bool client_told = false;
    for (const auto& e : r.clients[1].events) client_told |= e.type == ClientEvent::Type::kResynced;
    CHECK(client_told);
}

TEST_CASE("A spectator joins a running rollback session and sees the verified game",
          "[netplay][join]") {
    SimScenario sc;
    sc.players = 2;
    sc.frames = 2400;
    sc.server.mode = SessionMode::kRollback;
    sc.server.delay.fixed_delay = 1;
    sc.link = LinkParams{30'000, 3'000, 0.0, 0.0, 0};
    sc.joiners = {{1200, true, 0}};
    const SimResult r = run_scenario(sc);
    REQUIRE(r.clients.size() == 3);
    const auto& watcher = r.clients[2];
    CHECK(watcher.first_frame > 1000);
    CHECK(watcher.hashes.size() >= 2300);
    CHECK(SimResult::first_difference(r.clients[0], watcher) == -1);
    CHECK(SimResult::first_difference(r.clients[0], r.clients[1]) == -1);
    CHECK(watcher.stats.rollbacks == 0);  // it only ever runs confirmed input
}

TEST_CASE("With pause_on_drop the others wait for a dropped player, who rejoins and plays on",
          "[netplay][join][reconnect]") {
    SimScenario sc;
    sc.players = 2;
    sc.frames = 2400;
    sc.link = LinkParams{20'000, 2'000, 0.0, 0.0, 0};
    sc.server.pause_on_drop = true;
    sc.drop_client = 2;
    sc.drop_frame = 1200;
    sc.rejoin_after_us = 3'000'000;
    const SimResult r = run_scenario(sc);
    REQUIRE(r.clients.size() == 3);
    const auto& back = r.clients[2];
    CHECK(SimResult::first_difference(r.clients[0], back) == -1);
    // Nothing ran with a neutral pad for slot 2 while it was gone: the host waited about
    // the three seconds the restart took.
    CHECK(r.clients[0].stall_frames_after_warmup >= 150);
    CHECK(r.clients[0].stall_frames_after_warmup <= 240);
    CHECK(back.first_frame <= 1215);
    int before = 0, after = 0;
    for (std::uint32_t f = 600; f < 1200; ++f) before = std::max(before, r.delay_at(f));
    for (std::uint32_t f = 1200; f < 2400; ++f) after = std::max(after, r.delay_at(f));
    CHECK(after <= before + 1);
}
