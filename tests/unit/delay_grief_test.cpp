// Clients that lie about what the delay is measured from (netplay/sim/sim_cheats.h), each in
// a session with two honest players: every honest player's delay and stalls stay those of the
// same session (same seed, same trace) with an honest client in the cheater's place, and the
// server names the cheater (its slot's refusals, an event naming it). And a client whose
// inputs run fast while its clock readings stay honest, named from its inputs' arrival.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "netplay/sim/sim_cheats.h"
#include "netplay/sim/sim_session.h"
#include "support/sanitized.h"
#include "unit/sim_events.h"

using namespace framelock::netplay;
using framelock::test::full_or_sanitized;

namespace {

constexpr int kCheater = 3;  // client 3, slot 3

// 80 ms round trips (+- 8 ms), 1 % loss each way, three players; the honest run is this one.
SimScenario session(std::uint64_t seed) {
    SimScenario sc;
    sc.players = 3;
    sc.frames = full_or_sanitized<std::uint32_t>(7200, 3600);
    sc.seed = seed;
    sc.link = {40'000, 4'000, 0.01, 0.0, 0};
    sc.warmup_frames = 1200;  // 20 s: the stall budget's evidence is in (delay_controller.h)
    return sc;
}

// The honest players of `r` against the same players of `fair` (issue 31's acceptance): the
// delay in force at every keyframe of the session within a frame, stall frames within 0.1 %
// of the session's frames (and, from the warm-up on, within 0.1 % of those frames), and the
// same game everywhere.
void check_unharmed(const SimScenario& sc, const SimResult& fair, const SimResult& r,
                    const char* who) {
    int worst_gap = 0;
    for (std::uint32_t f = 0; f < sc.frames; f += sc.server.keyframe_interval)
        worst_gap = std::max(worst_gap, std::abs(r.delay_at(f) - fair.delay_at(f)));
    REQUIRE(r.clients.size() == 3);
    REQUIRE(fair.clients.size() == 3);
    const std::uint32_t budget = sc.frames / 1000;
    const std::uint32_t budget_after_warmup = (sc.frames - sc.warmup_frames) / 1000;
    std::printf(
        "[figure] %s: delay from 20 s on %.2f (honest run %.2f), max %d (honest %d), largest gap "
        "at a keyframe %d; stall frames %u, %u (honest run %u, %u; budget +%u), from 20 s on "
        "%u, %u (honest run %u, %u; budget +%u); hashes %s\n",
        who, r.mean_delay_after_warmup, fair.mean_delay_after_warmup, r.max_delay, fair.max_delay,
        worst_gap, r.clients[0].stall_frames, r.clients[1].stall_frames,
        fair.clients[0].stall_frames, fair.clients[1].stall_frames, budget,
        r.clients[0].stall_frames_after_warmup, r.clients[1].stall_frames_after_warmup,
        fair.clients[0].stall_frames_after_warmup, fair.clients[1].stall_frames_after_warmup,
        budget_after_warmup, r.hashes_identical ? "identical" : "DIFFER");
    CHECK(r.hashes_identical);
    CHECK(worst_gap <= 1);
    for (int c = 0; c < 2; ++c) {
        CHECK(r.clients[c].stall_frames <= fair.clients[c].stall_frames + budget);
        CHECK(r.clients[c].stall_frames_after_warmup <=
              fair.clients[c].stall_frames_after_warmup + budget_after_warmup);
    }
}

// Nobody honest is accused: no refusals on the honest players' slots (in either run), none in
// the honest run at all.
void check_honest_not_named(const SimResult& fair, const SimResult& r) {
    REQUIRE(fair.slots.size() == 3);
    REQUIRE(r.slots.size() == 3);
    for (int s = 0; s < 3; ++s) {
        CHECK(fair.slots[s].echoes_refused == 0);
        CHECK(fair.slots[s].hiccups_refused == 0);
    }
    for (int s = 0; s < 2; ++s) {
        CHECK(r.slots[s].echoes_refused == 0);
        CHECK(r.slots[s].hiccups_refused == 0);
    }
    CHECK_FALSE(find_event(fair, ServerEvent::Type::kRefused, "client"));
}

// The cheater's name in a refusal the server reported, or nullptr.
const ServerEvent* naming(const SimResult& r) {
    for (const auto& e : r.server_events) {
        if (e.type == ServerEvent::Type::kRefused && e.slot == kCheater &&
            e.message.find("client3") != std::string::npos)
            return &e;
    }
    return nullptr;
}

// A session with a cheater in it, and the same session (same seed) all honest.
struct Cheated {
    SimScenario honest;
    SimResult fair, r;
};

// Runs the session of `seed` all honest, then with `tamper` on the cheater's datagrams; the
// honest players unharmed (`who` names the cheat in the figures) and not named, the cheater
// named.
Cheated against_honest(std::uint64_t seed, std::function<void(ClientInput&)> tamper,
                       const std::string& who) {
    Cheated c{session(seed), {}, {}};
    c.fair = run_scenario(c.honest);
    SimScenario cheating = c.honest;
    cheating.tamper_client = kCheater;
    cheating.tamper = std::move(tamper);
    c.r = run_scenario(cheating);
    check_unharmed(c.honest, c.fair, c.r, who.c_str());
    check_honest_not_named(c.fair, c.r);
    REQUIRE(c.r.slots.size() == 3);
    const ServerEvent* named = naming(c.r);
    REQUIRE(named);
    std::printf("[figure] named: %s\n", named->message.c_str());
    return c;
}

}  // namespace

TEST_CASE(
    "A client echoing the oldest update it may (round trips of 4 s) and reporting 4 s moves "
    "nobody's delay, and is named (3,600 frames under sanitizers)",
    "[netplay][session][delay][grief]") {
    const auto [honest, fair, r] =
        against_honest(3101, inflating_echoes(), "echoes of the oldest update, 4 s reports");
    std::printf("[figure] its echoes refused: %llu; its server SRTT %.1f ms (honest run %.1f)\n",
                static_cast<unsigned long long>(r.slots[2].echoes_refused),
                r.slots[2].server_srtt / 1000.0, fair.slots[2].server_srtt / 1000.0);
    CHECK(r.slots[2].echoes_refused > honest.frames / 2);
    CHECK(r.slots[2].server_srtt < 2 * fair.slots[2].server_srtt);
}

TEST_CASE(
    "A client claiming a hiccup (its process late) in every datagram moves nobody's delay, and "
    "is named (3,600 frames under sanitizers)",
    "[netplay][session][delay][grief]") {
    // 255 ms: the most a datagram can claim; 8 ms: the least that counts as a hiccup, the one
    // the network's own jitter could seem to back now and then.
    for (const std::uint8_t late_ms : {std::uint8_t{255}, std::uint8_t{8}}) {
        DYNAMIC_SECTION(int{late_ms} << " ms") {
            const auto [honest, fair, r] = against_honest(
                3200 + late_ms, hiccup_claims(late_ms),
                "hiccups claimed in every datagram, " + std::to_string(late_ms) + " ms");
            std::printf(
                "[figure] its hiccup claims refused: %llu; reports left out as hiccups %llu, "
                "%llu, %llu (honest run %llu, %llu, %llu)\n",
                static_cast<unsigned long long>(r.slots[2].hiccups_refused),
                static_cast<unsigned long long>(r.slots[0].reports_hiccup),
                static_cast<unsigned long long>(r.slots[1].reports_hiccup),
                static_cast<unsigned long long>(r.slots[2].reports_hiccup),
                static_cast<unsigned long long>(fair.slots[0].reports_hiccup),
                static_cast<unsigned long long>(fair.slots[1].reports_hiccup),
                static_cast<unsigned long long>(fair.slots[2].reports_hiccup));
            CHECK(r.slots[2].hiccups_refused > honest.frames / 2);
            // The honest players' reports reach the controller.
            CHECK(r.slots[0].reports_used > honest.frames / 2);
            CHECK(r.slots[1].reports_used > honest.frames / 2);
        }
    }
}

TEST_CASE(
    "A client flipping its echoed round trip at every keyframe resets nobody's measurements, "
    "and is named (3,600 frames under sanitizers)",
    "[netplay][session][delay][grief]") {
    const auto [honest, fair, r] =
        against_honest(3301, oscillating_echoes(), "echoed round trip flipped every keyframe");
    std::printf(
        "[figure] its echoes refused: %llu; reports used %llu, %llu (honest run %llu, %llu)\n",
        static_cast<unsigned long long>(r.slots[2].echoes_refused),
        static_cast<unsigned long long>(r.slots[0].reports_used),
        static_cast<unsigned long long>(r.slots[1].reports_used),
        static_cast<unsigned long long>(fair.slots[0].reports_used),
        static_cast<unsigned long long>(fair.slots[1].reports_used));
    CHECK(r.slots[2].echoes_refused > honest.frames / 4);
}

TEST_CASE(
    "A client whose inputs all arrive 10 frames early and whose reports claim 10 frames more "
    "moves nobody's delay (3,600 frames under sanitizers)",
    "[netplay][session][delay][grief]") {
    // An input that arrives before its sampling must not widen the allowance for the client's
    // reports (its downlink: its round trip less its fastest uplink).
    const auto early_and_inflated = [early = fast_inputs(1.0, 10)](ClientInput& input) {
        early(input);
        if (input.latency_100us)
            input.latency_100us = static_cast<std::uint16_t>(input.latency_100us + 1'667);
    };
    const auto [honest, fair, r] =
        against_honest(3601, early_and_inflated, "inputs 10 frames early, reports 10 frames more");
    std::printf(
        "[figure] its reports refused as inflated: %llu of %llu\n",
        static_cast<unsigned long long>(r.slots[2].reports_inflated),
        static_cast<unsigned long long>(r.slots[2].reports_inflated + r.slots[2].reports_used));
    CHECK(r.slots[2].reports_inflated > 20 * r.slots[2].reports_used);
}

TEST_CASE(
    "No-wait: a client whose inputs come 5 % fast while its clock readings stay honest is named "
    "from their arrival",
    "[netplay][session][grief][pace]") {
    // The speed check judges what the server sees: the pace at which a client's inputs arrive
    // against their frames' times, not only the clock readings the client sends (which a
    // modified client fakes, or omits).
    SimScenario sc;
    sc.players = 3;
    sc.seed = 3401;
    sc.frames = 30 * 60;
    sc.server.mode = SessionMode::kNoWait;
    sc.server.delay.fixed_delay = 4;
    sc.link = {20'000, 4'000, 0.01, 0.0, 0};  // 40 ms round trip, jitter, 1 % loss
    sc.tamper_client = 2;
    sc.tamper = fast_inputs(1.05);
    const SimResult r = run_scenario(sc);
    REQUIRE(r.slots.size() == 3);
    CHECK(r.hashes_identical);
    const ServerEvent* named = find_event(r, ServerEvent::Type::kOffPace, 2);
    REQUIRE(named);
    std::printf("[figure] inputs 5 %% fast, readings honest: named at %.1f s of play: %s\n",
                named->frame / 60.0, named->message.c_str());
    CHECK_THAT(named->message, Catch::Contains("client2's inputs"));
    CHECK(named->frame < 15 * 60);
    CHECK(r.slots[1].off_pace);
    CHECK_FALSE(find_event(r, ServerEvent::Type::kOffPace, 1));
    CHECK_FALSE(find_event(r, ServerEvent::Type::kOffPace, 3));
    // Its clock readings alone say nothing.
    REQUIRE(r.slots[1].clock_rate_error);
    CHECK(*r.slots[1].clock_rate_error == Approx(0).margin(0.01));
}

TEST_CASE(
    "A lone player who sends no round-trip report keeps the delay at the round trip the server "
    "measured itself (3,600 frames under sanitizers)",
    "[netplay][session][delay][grief]") {
    // Nothing reaches the controller: the delay rests on the round trips the server measured
    // itself (never below the shortest of the last 10 s), which here cover its SRTT too.
    SimScenario sc = session(3501);
    sc.players = 1;
    const SimResult fair = run_scenario(sc);
    sc.tamper_client = 1;
    sc.tamper = [](ClientInput& input) { input.latency_100us = 0; };
    const SimResult r = run_scenario(sc);
    REQUIRE(r.slots.size() == 1);
    CHECK(r.slots[0].reports_used == 0);
    const int floor =
        (static_cast<int>(r.slots[0].server_srtt) + 1'000 + 16'666) / 16'667;  // frames covering it
    int lowest = 60;
    for (std::uint32_t f = sc.warmup_frames; f < sc.frames; f += sc.server.keyframe_interval)
        lowest = std::min(lowest, r.delay_at(f));
    std::printf(
        "[figure] no reports: delay from 20 s on %.2f, lowest %d (honest run %.2f); the server's "
        "SRTT %.1f ms covers %d frames\n",
        r.mean_delay_after_warmup, lowest, fair.mean_delay_after_warmup,
        r.slots[0].server_srtt / 1000.0, floor);
    CHECK(lowest >= floor);
    CHECK(lowest >= 4);
}
