#include <catch2/catch.hpp>

#include "netplay/clock_sync.h"
#include "netplay/delay_controller.h"
#include "netplay/rtt_estimator.h"

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

TEST_CASE(
    "Delay target covers every round trip remembered in this network regime, and the SRTT floor",
    "[netplay][delay]") {
    DelayPolicy policy;
    policy.frame_time_us = 16'667;
    policy.send_interval = 2;
    policy.margin_us = 1'000;
    policy.memory_us = 30'000'000;
    DelayController controller(policy);
    controller.observe_srtt(100'000);
    // No measurement yet: the floor, SRTT + one datagram interval.
    CHECK(controller.target(0) == 8);  // (100000 + 16667 + 1000) / 16667 = 7.06 -> 8
    controller.add_round_trip(1'000'000, 120'000);
    controller.add_round_trip(2'000'000, 180'000);  // a tail: two datagrams lost in a row
    controller.add_round_trip(3'000'000, 130'000);
    CHECK(controller.target(3'000'000) == 11);  // (180000 + 1000) / 16667 = 10.9 -> 11
    // Remembered for memory_us, then forgotten.
    CHECK(controller.target(31'999'999) == 11);
    CHECK(controller.target(32'000'001) == 8);  // 130000 + 1000 -> 8
    // SRTT wobbling within a quarter keeps the regime and its memory.
    controller.add_round_trip(33'000'000, 180'000);
    controller.observe_srtt(110'000);
    CHECK(controller.target(33'000'000) == 11);
    CHECK(controller.regimes() == 1);
    // A clearly different network starts a new regime: the old round trips no longer count.
    controller.observe_srtt(40'000);
    CHECK(controller.regimes() == 2);
    CHECK(controller.target(33'000'000) == 4);  // (40000 + 16667 + 1000) / 16667 = 3.5 -> 4
    controller.add_round_trip(34'000'000, 60'000);
    CHECK(controller.target(34'000'000) == 4);
    controller.observe_srtt(150'000);            // and worse again
    CHECK(controller.target(34'000'000) == 11);  // the floor alone: (166667 + 1000) / 16667 -> 11
    CHECK(controller.initial(130'000) ==
          9);  // safe RTT + batching: (146667 + 1000) / 16667 = 8.9 -> 9
}

TEST_CASE("Delay rises at once and falls one frame at a time after a steady improvement",
          "[netplay][delay]") {
    DelayPolicy policy;
    policy.lower_after_us = 2'000'000;
    DelayController controller(policy);
    Micros now = 0;  // decisions every 0.5 s
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
