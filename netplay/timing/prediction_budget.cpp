#include "netplay/timing/prediction_budget.h"

#include <algorithm>

namespace framelock::netplay {

int predicted_frames_within(int configured, Micros frame_cost_us, Micros budget_us) {
    configured = std::max(configured, 0);
    if (frame_cost_us <= 0) return configured;
    const Micros fit = std::max<Micros>(budget_us, 0) / frame_cost_us;
    return static_cast<int>(std::min<Micros>(configured, fit));
}

}  // namespace framelock::netplay
