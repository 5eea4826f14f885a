#include <catch2/catch.hpp>

#include "netplay/timing/clock_sync.h"
#include "netplay/timing/delay_controller.h"
#include "netplay/timing/rtt_estimator.h"

using namespace framelock::netplay;

TEST_CASE("RTT estimator follows RFC 6298", "[netplay][rtt]") {
    RttEstimator rtt;
    rtt.add_sample(100'000);
    CHECK(rtt.srtt() == 100'000);
    CHECK(rtt.rttvar() == 50'000);
    CHECK(rtt.safe() == 300'000);
    rtt.add_sample(60'000);
    CHECK(rtt.rttvar() == (3 * 50'000 + 40'000) / 4);
    CHECK(rtt.srtt() == (7 * 100'000 + 60'000) / 8);
    for (int i = 0; i < 100; ++i) rtt.add_sample(80'000);
    CHECK(rtt.srtt() == Approx(80'000).margin(100));
    CHECK(rtt.rttvar() < 100);
    CHECK(rtt.min_rtt() == 60'000);
    // A step up shows in safe() within a few samples.
    for (int i = 0; i < 4; ++i) rtt.add_sample(150'000);
    CHECK(rtt.safe() > 150'000);
}

TEST_CASE("Clock sync takes the offset of the least delayed sample", "[netplay][clock]") {
    ClockSync sync(8);
    const Micros offset = 5'000'000;  // server = client + 5 s
    // Symmetric 20 ms paths except queueing on some samples' way back.
    const Micros extra[] = {30'000, 0, 12'000, 40'000, 5'000};
    Micros t0 = 1'000'000;
    for (Micros e : extra) {
        const Micros t1 = t0 + 20'000 + offset;
        const Micros t2 = t1 + 1'000;
        const Micros t3 = t2 - offset + 20'000 + e;
        REQUIRE(sync.add_sample(t0, t1, t2, t3));
        t0 += 100'000;
    }
    CHECK(sync.offset() == offset);  // from the sample with no queueing
    CHECK(sync.best_rtt() == 40'000);
    CHECK(sync.to_server(100) == 100 + offset);
}

TEST_CASE("Clock sync rejects absurd samples", "[netplay][clock]") {
    ClockSync sync;
    CHECK_FALSE(sync.add_sample(100, 50, 40, 200));       // server answered before receiving
    CHECK_FALSE(sync.add_sample(100, 0, 0, 50));          // received before sent
    CHECK_FALSE(sync.add_sample(0, 0, 0, 20'000'000));    // a 20 s round trip
    REQUIRE(sync.add_sample(0, 10'000, 10'000, 20'000));  // offset 0
    CHECK_FALSE(sync.add_sample(0, 100'000'000, 100'000'000, 20'000));  // a jump of 100 s
    CHECK(sync.rejected() == 4);
    CHECK(sync.offset() == 0);
}

TEST_CASE("Delay target covers each client's recent tail within the stall budget, per regime",
          "[netplay][delay]") {
    DelayPolicy policy;
    policy.frame_time = FrameTime(16'667'000);
    policy.margin_us = 1'000;
    policy.window_us = 30'000'000;
    policy.stall_budget = 0.001;
    DelayController controller(policy);
    controller.observe_srtt(1, 100'000);
    // Nothing reported yet: the smallest delay.
    CHECK(controller.target(0) == 1);
    // 2,000 reports from slot 1 at 100 ms, and two rare tails (two datagrams lost in a
    // row): the budget leaves out the worst two of them (k = floor(2000 x 0.001) = 2).
    Micros now = 1'000'000;
    for (int i = 0; i < 2000; ++i) controller.add_round_trip(now += 10'000, 1, 100'000);
    controller.add_round_trip(now, 1, 180'000);
    controller.add_round_trip(now, 1, 170'000);
    CHECK(controller.target(now) == 7);  // (100000 + 1000) / 16667 = 6.06 -> 7
    CHECK(controller.covered_round_trip() == 100'000);
    // A third tail in the same window is one too many: covered.
    controller.add_round_trip(now, 1, 160'000);
    CHECK(controller.target(now) == 10);  // (160000 + 1000) / 16667 = 9.66 -> 10
    // Another client's tail counts on its own: slot 2 with few reports, all covered.
    controller.add_round_trip(now, 2, 190'000);
    CHECK(controller.target(now) == 12);  // (190000 + 1000) / 16667 = 11.5 -> 12
    // Remembered for window_us, then forgotten.
    CHECK(controller.target(now + 29'000'000) == 12);
    CHECK(controller.target(now + 30'000'001) == 1);
    now += 31'000'000;
    // SRTT wobbling within a quarter keeps the regime and its reports.
    controller.add_round_trip(now, 1, 120'000);
    controller.observe_srtt(1, 110'000);
    CHECK(controller.target(now) == 8);
    CHECK(controller.regimes() == 1);
    // A clearly different network starts a new regime: the old reports no longer count.
    controller.observe_srtt(1, 40'000);
    CHECK(controller.regimes() == 2);
    CHECK(controller.target(now) == 1);
    controller.add_round_trip(now, 1, 45'000);
    CHECK(controller.target(now) == 3);  // (45000 + 1000) / 16667 = 2.8 -> 3
    // Reports from outside the slots are ignored.
    controller.add_round_trip(now, 0, 500'000);
    controller.add_round_trip(now, kMaxPlayers + 1, 500'000);
    CHECK(controller.target(now) == 3);
    // The first delay: a safe round trip measured during the handshake.
    CHECK(controller.initial(130'000) == 8);  // (130000 + 1000) / 16667 = 7.9 -> 8
    CHECK(controller.initial(1'000) == 1);
}

TEST_CASE(
    "A client's round trip rising keeps its reports of the last second (the worse link's "
    "first), drops the older ones, and falling drops them all",
    "[netplay][delay]") {
    DelayPolicy policy;
    policy.frame_time = FrameTime(16'667'000);
    policy.margin_us = 1'000;
    DelayController controller(policy);
    controller.observe_srtt(1, 40'000);
    // 20 s at 40 ms, three tails of 200 ms 5 s before the end, then 0.3 s at 110 ms.
    Micros now = 0;
    for (int i = 0; i < 2000; ++i) {
        controller.add_round_trip(now += 10'000, 1, 40'000);
        if (i == 1500) {
            for (int t = 0; t < 3; ++t) controller.add_round_trip(now, 1, 200'000);
        }
    }
    for (int i = 0; i < 30; ++i) controller.add_round_trip(now += 10'000, 1, 110'000);
    CHECK(controller.target(now) == 13);  // the third tail: (200000 + 1000) / 16667 -> 13
    // The server's SRTT shows the worse link: a new regime, which keeps the last second.
    controller.observe_srtt(1, 100'000);
    CHECK(controller.regimes() == 2);
    CHECK(controller.target(now) == 7);  // (110000 + 1000) / 16667 = 6.7 -> 7
    CHECK(controller.evidence_thin());   // 101 reports
    // Before, every report went: the keyframe that saw the worse link first had none.
    // Falling back drops them all.
    controller.observe_srtt(1, 40'000);
    CHECK(controller.regimes() == 3);
    CHECK(controller.target(now) == 1);
}

TEST_CASE("One client's round trip moving drops that client's reports only", "[netplay][delay]") {
    DelayPolicy policy;
    policy.frame_time = FrameTime(16'667'000);
    DelayController controller(policy);
    controller.observe_srtt(1, 80'000);
    controller.observe_srtt(2, 80'000);
    Micros now = 1'000'000;
    for (int i = 0; i < 100; ++i) {
        controller.add_round_trip(now += 16'667, 1, 90'000);
        controller.add_round_trip(now, 2, 85'000);
    }
    REQUIRE(controller.target(now) == 6);  // (90000 + 1000) / 16667 = 5.5 -> 6
    const long regimes = controller.regimes();
    // Client 2's round trip jumps (its link, or a client faking its echoes) and back: its own
    // reports go each time, client 1's stay and still set the delay.
    controller.observe_srtt(2, 300'000);
    controller.observe_srtt(2, 80'000);
    CHECK(controller.regimes() == regimes + 2);
    CHECK(controller.target(now) == 6);
    CHECK(controller.covered_round_trip() == 90'000);
    // Client 1's own change drops its reports: client 2 has none left either.
    controller.observe_srtt(1, 40'000);
    CHECK(controller.target(now) == 1);
    // Slots outside 1..8 are ignored.
    controller.observe_srtt(0, 1'000'000);
    controller.observe_srtt(kMaxPlayers + 1, 1'000'000);
    CHECK(controller.regimes() == regimes + 3);
}

TEST_CASE("Delay rises at once and falls one frame at a time after a steady improvement",
          "[netplay][delay]") {
    DelayPolicy policy;
    policy.lower_after_us = 2'000'000;
    DelayController controller(policy);
    Micros now = 0;  // decisions every 0.5 s
    // Enough reports for the tail to be evidence (1 / stall_budget of them).
    for (int i = 0; i < 1000; ++i) controller.add_round_trip(now, 1, 60'000);
    REQUIRE(controller.target(now) == 4);
    REQUIRE_FALSE(controller.evidence_thin());
    int delay = 5;
    delay = controller.decide(now, delay, 9);
    CHECK(delay == 9);
    // Lower targets from 0.5 s on: after two seconds of them, one frame per decision.
    std::vector<int> seen;
    for (int i = 1; i <= 12; ++i) {
        now += 500'000;
        delay = controller.decide(now, delay, 4);
        seen.push_back(delay);
    }
    CHECK(seen == std::vector<int>{9, 9, 9, 9, 8, 7, 6, 5, 4, 4, 4, 4});
    // One high target in the window blocks lowering again.
    delay = controller.decide(now += 500'000, 6, 7);
    CHECK(delay == 7);

    DelayPolicy fixed;
    fixed.adaptive = false;
    fixed.fixed_delay = 3;
    DelayController constant(fixed);
    CHECK(constant.decide(0, 3, 20) == 3);
}

TEST_CASE(
    "On fewer reports than 1 / stall_budget the delay may rise and fall, but not below the "
    "target plus a frame",
    "[netplay][delay]") {
    DelayPolicy policy;
    policy.lower_after_us = 1'000'000;
    DelayController controller(policy);
    Micros now = 0;
    // 1.5 s of reports at 40 ms: 90 of them, the largest a 99th percentile at best.
    for (int i = 0; i < 90; ++i) controller.add_round_trip(now += 16'667, 1, 40'000);
    REQUIRE(controller.target(now) == 3);  // (40000 + 1000) / 16667 = 2.5 -> 3
    CHECK(controller.evidence_thin());
    int delay = 4;  // the first delay, from the handshake
    for (int i = 0; i < 10; ++i) delay = controller.decide(now += 500'000, delay, 3);
    CHECK(delay == 4);  // held at the target plus a frame
    // A rise needs no evidence beyond the report itself.
    controller.add_round_trip(now, 1, 90'000);
    CHECK(controller.decide(now, delay, controller.target(now)) == 6);
    // Far above the target (a network that got better) it steps down, to the target plus one.
    delay = 9;
    for (int i = 0; i < 20; ++i) delay = controller.decide(now += 500'000, delay, 3);
    CHECK(delay == 4);
    // With 1,000 reports the tail is evidence: down to the target.
    DelayController full(policy);
    now = 0;
    for (int i = 0; i < 1000; ++i) full.add_round_trip(now += 16'667, 1, 40'000);
    REQUIRE(full.target(now) == 3);
    CHECK_FALSE(full.evidence_thin());
    delay = 4;
    for (int i = 0; i < 4; ++i) delay = full.decide(now += 500'000, delay, 3);
    CHECK(delay == 3);
}
