#include "netplay/client/correction_log.h"

#include <algorithm>
#include <cmath>

namespace framelock::netplay {
namespace {

// The index of the first bucket at which the running count reaches `q` of `total`.
template <std::size_t N>
std::size_t quantile_index(const std::array<std::uint32_t, N>& counts, std::uint64_t total,
                           double q) {
    const auto needed =
        static_cast<std::uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(total)));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < N; ++i) {
        seen += counts[i];
        if (seen >= std::max<std::uint64_t>(needed, 1)) return i;
    }
    return N - 1;
}

}  // namespace

void CorrectionLog::add(std::uint32_t depth, Micros took, Micros load) {
    took = std::max<Micros>(took, 0);
    load = std::clamp<Micros>(load, 0, took);
    ++m_depths[std::min(depth, kMaxDepth)];
    const auto time_step = [](Micros us) {
        return static_cast<std::size_t>(std::min<Micros>(us / kTimeStepUs, kTimeSteps - 1));
    };
    ++m_times[time_step(took)];
    ++m_loads[time_step(load)];
    const Micros per_frame = (took - load) / std::max<std::uint32_t>(depth, 1);
    ++m_frame_costs[static_cast<std::size_t>(
        std::min<Micros>(per_frame / kFrameCostStepUs, kFrameCostSteps - 1))];
    m_longest = std::max(m_longest, took);
    ++m_count;
}

std::uint32_t CorrectionLog::depth_quantile(double q) const {
    if (m_count == 0) return 0;
    return static_cast<std::uint32_t>(quantile_index(m_depths, m_count, q));
}

Micros CorrectionLog::time_quantile(double q) const {
    if (m_count == 0) return 0;
    return static_cast<Micros>(quantile_index(m_times, m_count, q) + 1) * kTimeStepUs;
}

Micros CorrectionLog::frame_cost_quantile(double q) const {
    if (m_count == 0) return 0;
    return static_cast<Micros>(quantile_index(m_frame_costs, m_count, q) + 1) * kFrameCostStepUs;
}

Micros CorrectionLog::load_quantile(double q) const {
    if (m_count == 0) return 0;
    return static_cast<Micros>(quantile_index(m_loads, m_count, q) + 1) * kTimeStepUs;
}

Micros CorrectionLog::reported_frame_cost(Micros budget_us) const {
    if (m_count < kReportAfter || budget_us <= 0) return 0;
    const Micros load = load_quantile(0.99), frame = frame_cost_quantile(0.99);
    const Micros fits = (budget_us - load) / frame;  // frames; frame >= one step
    if (fits <= 0) return budget_us + 1;
    return std::max<Micros>(budget_us / fits, 1);
}

}  // namespace framelock::netplay
