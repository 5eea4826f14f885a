// How many frames the hybrid may predict, given what re-running a frame costs the players.
//
// A correction loads the state of its first wrong frame and runs every frame from there
// again before the frame shown next; it must fit in `budget_us` (half a frame's time: the
// other half is the frame's own run and drawing), or the frame shown after it is late. With
// the slowest client re-running a frame in `frame_cost_us` (what a frame costs in the deepest
// correction that fits the budget, the load shared out over it: CorrectionLog, from the 99th
// percentiles of its loads and of its frames), a correction may be at most budget / cost
// frames deep; the hybrid's delay then covers the rest of the path
// (DelayController: max(min(D, local), D - P)). A client that reports a higher cost than it
// has moves its session towards the frame lock's delay, never beyond it: the worst a claim
// can do is P = 0, where the hybrid waits as long as the frame lock would.
#pragma once

#include <string>

#include "netplay/interfaces/clock.h"
#include "netplay/timing/frame_time.h"

namespace framelock::netplay {

// The frames prediction may cover: `configured` (the policy's), or fewer when a correction
// that deep would not fit in `budget_us` at `frame_cost_us` a frame; never below 0. An unknown
// cost (0) leaves `configured`.
int predicted_frames_within(int configured, Micros frame_cost_us, Micros budget_us);

// The budget for one correction: half of a frame's time.
inline Micros correction_budget_us(FrameTime frame_time) {
    return frame_time.us() / 2;
}

// The log line for a change from `before` to `fit` predicted frames (of `configured`), caused
// by `name`'s cost of `frame_cost_us` a frame against `budget_us` (when it is fewer).
std::string prediction_change(int fit, int before, int configured, const std::string& name,
                              Micros frame_cost_us, Micros budget_us);

}  // namespace framelock::netplay
