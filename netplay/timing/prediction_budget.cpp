#include "netplay/timing/prediction_budget.h"

#include <algorithm>
#include <cstdio>

namespace framelock::netplay {

int predicted_frames_within(int configured, Micros frame_cost_us, Micros budget_us) {
    configured = std::max(configured, 0);
    if (frame_cost_us <= 0) return configured;
    const Micros fit = std::max<Micros>(budget_us, 0) / frame_cost_us;
    return static_cast<int>(std::min<Micros>(configured, fit));
}

std::string prediction_change(int fit, int before, int configured, const std::string& name,
                              Micros frame_cost_us, Micros budget_us) {
    char text[320];
    if (fit < configured) {
        std::snprintf(text, sizeof text,
                      "the hybrid predicts at most %d frames (was %d): %s re-runs a frame of a "
                      "correction in %.2f ms (p99), and a correction must fit in half a frame "
                      "(%.1f ms); the delay covers the rest of the path",
                      fit, before, name.c_str(), static_cast<double>(frame_cost_us) / 1000.0,
                      static_cast<double>(budget_us) / 1000.0);
    } else {
        std::snprintf(text, sizeof text,
                      "the hybrid predicts up to %d frames again (was %d): every player's "
                      "corrections fit in half a frame (%.1f ms)",
                      fit, before, static_cast<double>(budget_us) / 1000.0);
    }
    return text;
}

}  // namespace framelock::netplay
