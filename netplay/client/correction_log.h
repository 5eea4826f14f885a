// What a rollback client's corrections cost: how deep each went (frames run again) and how long
// it took (loading the state and running those frames again, on the client's clock), kept as
// histograms so a session of any length costs the same memory. What the hybrid's budget is
// checked against (docs/netplay.md, "The hybrid"): the 99th percentile of each. And what a
// correction's parts cost, the state's load and each frame run again, from which the client
// reports to the server what a frame costs in the deepest correction that fits half a frame's
// time: the hybrid predicts no more frames than that (prediction_budget.h).
#pragma once

#include <array>
#include <cstdint>

#include "netplay/interfaces/clock.h"

namespace framelock::netplay {

class CorrectionLog {
  public:
    // Depths up to this are counted one by one (a prediction window is at most 60 frames);
    // times in 0.1 ms steps up to 100 ms, beyond it in the last step.
    static constexpr std::uint32_t kMaxDepth = 63;
    static constexpr Micros kTimeStepUs = 100;
    static constexpr std::size_t kTimeSteps = 1000;
    // A frame's cost in 10 us steps up to 10 ms, beyond it in the last step.
    static constexpr Micros kFrameCostStepUs = 10;
    static constexpr std::size_t kFrameCostSteps = 1000;

    // One correction: `depth` frames run again (>= 1), taking `took` us, `load` of them
    // loading the state.
    void add(std::uint32_t depth, Micros took, Micros load);

    std::uint64_t count() const { return m_count; }
    // The smallest depth (frames) that `q` (0..1) of the corrections did not exceed; 0 before any.
    std::uint32_t depth_quantile(double q) const;
    // The same for the time, to its 0.1 ms step (the step's upper end), us.
    Micros time_quantile(double q) const;
    Micros longest_time() const { return m_longest; }
    // The same for a correction's time per frame run again, its load left out, to its 10 us
    // step (its upper end); and for the load, to its 0.1 ms step.
    Micros frame_cost_quantile(double q) const;
    Micros load_quantile(double q) const;
    // What the client reports to the server (ClientStats::rerun_frame_us), once kReportAfter
    // corrections were counted (the first few say little: caches are cold), else 0: with the
    // 99th percentiles of the load (L) and of a frame (c), the deepest correction that fits
    // `budget_us` is P = (budget - L) / c frames, and the figure is budget / P, what a frame
    // of it costs with the load shared out: the server's budget / figure is P again. (Each
    // correction's own time over its depth would count the load once a frame in the shallow
    // corrections a bursty link makes, and hold prediction to a third of what fits.) More
    // than the budget when not even one frame fits.
    static constexpr std::uint64_t kReportAfter = 30;
    Micros reported_frame_cost(Micros budget_us) const;

  private:
    std::array<std::uint32_t, kMaxDepth + 1> m_depths{};
    std::array<std::uint32_t, kTimeSteps> m_times{};
    std::array<std::uint32_t, kFrameCostSteps> m_frame_costs{};
    std::array<std::uint32_t, kTimeSteps> m_loads{};
    std::uint64_t m_count = 0;
    Micros m_longest = 0;
};

}  // namespace framelock::netplay
