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

TEST_CASE("Delay target covers the worst client's safe round trip plus batching",
          "[netplay][delay]") {
    DelayPolicy policy;
    policy.frame_time_us = 16'667;
    policy.send_interval = 2;
    policy.margin_us = 2'000;
    DelayController controller(policy);
    const LinkReport fast{30'000, 0, 0}, slow{120'000, 0, 0};
    const LinkReport both[] = {fast, slow};
    // (120000 + 16667 + 2000) / 16667 = 8.32 -> 9
    CHECK(controller.target(both) == 9);
    const LinkReport lossy[] = {fast, {120'000, 0.02, 0.02}};
    CHECK(controller.target(lossy) == 12);  // + 2 frames (a lost datagram) + 1 (a lost update)
    const LinkReport none[] = {{0, 0, 0}};
    CHECK(controller.target(none) == 2);  // batching and margin alone
}

TEST_CASE("Delay rises at once and falls one frame at a time after a steady improvement",
          "[netplay][delay]") {
    DelayPolicy policy;
    policy.lower_after_us = 2'000'000;
    DelayController controller(policy);
    Micros now = 0;
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
