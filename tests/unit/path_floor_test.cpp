// The path floor's one formula (netplay/timing/path_floor.h): the delay controller and the lobby's
// estimate both turn a round trip into frames through it.
#include <catch2/catch.hpp>

#include <vector>

#include "netplay/timing/delay_controller.h"
#include "netplay/timing/path_floor.h"

using namespace framelock::netplay;

TEST_CASE("path floor: the worst player's round trip is the metric", "[path_floor]") {
    CHECK(worst_round_trip(std::vector<Micros>{}) == 0);
    CHECK(worst_round_trip(std::vector<Micros>{20'000, 120'000, 60'000}) == 120'000);
    CHECK(worst_round_trip(std::vector<Micros>{-5, 7}) == 7);
}

TEST_CASE("path floor: frames covering a round trip plus the margin, clamped", "[path_floor]") {
    const FrameTime f60;  // 16,666,667 ns
    // 20 ms + 1 ms margin: 2 frames (33.3 ms); 15 ms + 1 ms: 1 frame (16.67 ms).
    CHECK(delay_for_round_trip(20'000, f60) == 2);
    CHECK(delay_for_round_trip(15'000, f60) == 1);
    // 16,667 us + 1 ms is past one frame: 2.
    CHECK(delay_for_round_trip(16'667, f60) == 2);
    CHECK(delay_for_round_trip(120'000, f60) == 8);  // 121 ms / 16.67 = 7.26 -> 8
    CHECK(delay_for_round_trip(0, f60) == 1);        // never below min_delay
    CHECK(delay_for_round_trip(-3, f60) == 1);
    CHECK(delay_for_round_trip(10'000'000, f60) == 60);  // max_delay
    // A slower core: 57.5 fps (17,391 us a frame): 60 ms + 1 ms -> 4 frames.
    CHECK(delay_for_round_trip(60'000, FrameTime::from_fps_milli(57'500)) == 4);
    CHECK(delay_for_round_trip(60'000, f60, 0, 5, 9) == 5);
}

TEST_CASE("path floor: the delay controller's first delay is the same formula", "[path_floor]") {
    DelayPolicy policy;
    for (Micros rtt : {0, 5'000, 16'000, 33'000, 70'000, 250'000}) {
        DelayController controller(policy);
        CHECK(controller.initial(rtt) == delay_for_round_trip(rtt, policy.frame_time));
    }
    policy.margin_us = 4'000;
    policy.min_delay = 2;
    DelayController controller(policy);
    CHECK(controller.initial(30'000) == 3);  // 34 ms / 16.67 -> 3
    CHECK(controller.initial(0) == 2);
}

TEST_CASE("path floor: a hybrid room's delay is what its players feel, as the controller's",
          "[path_floor]") {
    CHECK(hybrid_delay(1) == 1);         // a short path: the frame lock's single frame
    CHECK(hybrid_delay(6) == 2);         // 80 ms: 2 felt, prediction covers 4
    CHECK(hybrid_delay(13) == 2);        // about 200 ms: prediction covers 11
    CHECK(hybrid_delay(20) == 9);        // 300 ms: the delay takes what 11 frames do not cover
    CHECK(hybrid_delay(10, 2, 4) == 6);  // a re-run budget of 4 frames
    DelayPolicy policy;
    policy.hybrid = true;
    policy.predicted_frames = kDefaultHybridPredicted;
    const DelayController controller(policy);
    for (Micros rtt : {0, 50'000, 80'000, 150'000, 300'000})
        CHECK(controller.frames_for(rtt) ==
              hybrid_delay(delay_for_round_trip(rtt, policy.frame_time)));
}
