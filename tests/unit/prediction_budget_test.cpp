// The frames the hybrid may predict for what re-running a frame costs (prediction_budget.h),
// and the delay controller's limit on them.
#include <catch2/catch.hpp>

#include "netplay/client/correction_log.h"
#include "netplay/timing/delay_controller.h"
#include "netplay/timing/prediction_budget.h"

using namespace framelock::netplay;

TEST_CASE("Prediction budget: as many frames as fit in the budget, at most the configured",
          "[netplay][hybrid][budget]") {
    const FrameTime sixty = FrameTime::from_fps_milli(60'000);
    const Micros budget = correction_budget_us(sixty);
    CHECK(budget == 8'333);
    CHECK(predicted_frames_within(11, 0, budget) == 11);     // unknown: the policy's
    CHECK(predicted_frames_within(11, 500, budget) == 11);   // 16 would fit
    CHECK(predicted_frames_within(11, 2'000, budget) == 4);  // 8.0 ms for 4
    CHECK(predicted_frames_within(11, 2'084, budget) == 3);  // 8.3 ms would not fit for 4
    CHECK(predicted_frames_within(11, 9'000, budget) == 0);  // not even one: the frame lock
    CHECK(predicted_frames_within(-3, 100, budget) == 0);    // never below 0
}

TEST_CASE(
    "Prediction budget: a client reports what a frame costs in the deepest correction that fits, "
    "the load shared out over it, not over each shallow correction",
    "[netplay][hybrid][budget]") {
    const Micros budget = correction_budget_us(FrameTime::from_fps_milli(60'000));
    // A core like mednafen_pce_fast on a bursty link: most corrections 1-2 frames deep, each
    // loading the state in 0.5 ms and re-running a frame in 0.2 ms.
    CorrectionLog log;
    CHECK(log.reported_frame_cost(budget) == 0);  // nothing measured yet
    for (int i = 0; i < 200; ++i) {
        const std::uint32_t depth = i % 10 == 0 ? 4 : 1 + i % 2;
        log.add(depth, 500 + 200 * depth, 500);
    }
    CHECK(log.load_quantile(0.99) == 600);        // its 0.1 ms step's upper end
    CHECK(log.frame_cost_quantile(0.99) == 210);  // its 10 us step's upper end
    const Micros reported = log.reported_frame_cost(budget);
    // (8.333 - 0.6) / 0.21 = 36 frames fit: the server's budget / figure gives them back.
    CHECK(budget / reported == 36);
    CHECK(predicted_frames_within(11, reported, budget) == 11);
    // Each correction's own time over its depth counts the whole load in every 1-deep one:
    // 0.7 ms a frame here, 1-2 ms at the 99th percentile on a busy real core (bench_hybrid_
    // sessions, mednafen_pce_fast on the bursty link), which held the prediction to 4-8.
    CHECK(predicted_frames_within(11, 1'100, budget) == 7);
    CHECK(predicted_frames_within(11, 2'000, budget) == 4);
    // A load that takes the whole budget: not one frame fits, the frame lock's delay.
    CorrectionLog slow;
    for (int i = 0; i < 40; ++i) slow.add(1, 9'000, 8'800);
    CHECK(predicted_frames_within(11, slow.reported_frame_cost(budget), budget) == 0);
    // Fewer than kReportAfter corrections: nothing reported.
    CorrectionLog few;
    for (int i = 0; i < 29; ++i) few.add(1, 700, 500);
    CHECK(few.reported_frame_cost(budget) == 0);
}

TEST_CASE("Prediction budget: the controller's limit raises the hybrid's delay frame for frame",
          "[netplay][hybrid][budget]") {
    DelayPolicy policy;
    policy.frame_time = FrameTime::from_fps_milli(60'000);
    policy.hybrid = true;
    policy.predicted_frames = 11;
    DelayController controller(policy);
    const Micros path = 160'000;  // a frame lock's 10 frames or so
    const int lock = [&] {
        DelayPolicy plain = policy;
        plain.hybrid = false;
        return DelayController(plain).frames_for(path);
    }();
    REQUIRE(lock >= 9);
    CHECK(controller.predicted_frames() == 11);
    CHECK(controller.frames_for(path) == 2);
    controller.limit_prediction(4);
    CHECK(controller.predicted_frames() == 4);
    CHECK(controller.frames_for(path) == lock - 4);
    controller.limit_prediction(0);
    CHECK(controller.frames_for(path) == lock);
    controller.limit_prediction(40);  // never more than the policy's
    CHECK(controller.predicted_frames() == 11);
    DelayPolicy plain = policy;
    plain.hybrid = false;
    CHECK(DelayController(plain).predicted_frames() == 0);
}
