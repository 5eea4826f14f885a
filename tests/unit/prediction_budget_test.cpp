// The frames the hybrid may predict for what re-running a frame costs (prediction_budget.h),
// and the delay controller's limit on them.
#include <catch2/catch.hpp>

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
