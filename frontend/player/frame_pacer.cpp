#include "frontend/player/frame_pacer.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

namespace framelock::frontend {

FramePacer::FramePacer(double fps, Nanos max_lag_ns) : m_fps(fps), m_max_lag(max_lag_ns) {
    assert(fps > 0);
}

void FramePacer::start(Nanos now) {
    m_anchor = now;
    m_anchor_frame = 0;
    m_next = 0;
}

Nanos FramePacer::due_of(std::uint64_t frame) const {
    // One multiplication from the anchor: the error is a rounding of this frame alone.
    const double offset = static_cast<double>(frame - m_anchor_frame) * 1e9 / m_fps;
    return m_anchor + static_cast<Nanos>(std::llround(offset));
}

void FramePacer::frame_done(Nanos now) {
    ++m_next;
    if (now - due_of(m_next) > m_max_lag) {
        ++m_restarts;
        m_anchor = now;
        m_anchor_frame = m_next;
    }
}

Nanos FramePacer::lead() const {
    Nanos slowest = 0;
    for (const Nanos d : m_prepare) slowest = std::max(slowest, d);
    const Nanos cap = static_cast<Nanos>(period_ns() / 2);
    return std::clamp(slowest + kLeadMargin, std::min(kMinLead, cap), cap);
}

void FramePacer::prepared(Nanos duration) {
    m_prepare[m_prepare_next] = std::max<Nanos>(duration, 0);
    m_prepare_next = (m_prepare_next + 1) % kPrepareHistory;
}

void FramePacer::set_fps(double fps) {
    assert(fps > 0);
    if (fps == m_fps) return;
    m_anchor = due_of(m_next);
    m_anchor_frame = m_next;
    m_fps = fps;
}

PacingReport summarize_pacing(std::span<const Nanos> present_times, double fps) {
    PacingReport report;
    report.target_ms = 1000.0 / fps;
    if (present_times.size() < 2) return report;
    std::vector<double> intervals;
    intervals.reserve(present_times.size() - 1);
    for (std::size_t i = 1; i < present_times.size(); ++i)
        intervals.push_back(static_cast<double>(present_times[i] - present_times[i - 1]) / 1e6);
    report.intervals = intervals.size();
    // The mean interval is the whole span over the count: exact, whatever the jitter.
    report.mean_ms =
        static_cast<double>(present_times.back() - present_times.front()) / 1e6 / intervals.size();
    report.mean_error_pct = (report.mean_ms - report.target_ms) / report.target_ms * 100.0;
    double square_sum = 0;
    std::vector<double> deviations;
    deviations.reserve(intervals.size());
    for (const double interval : intervals) {
        square_sum += (interval - report.mean_ms) * (interval - report.mean_ms);
        deviations.push_back(std::abs(interval - report.target_ms));
    }
    report.stddev_ms = std::sqrt(square_sum / intervals.size());
    const auto [lo, hi] = std::minmax_element(intervals.begin(), intervals.end());
    report.min_ms = *lo;
    report.max_ms = *hi;
    std::sort(deviations.begin(), deviations.end());
    // Nearest-rank percentile: the smallest deviation at least 99% of intervals stay within.
    const std::size_t rank =
        static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(deviations.size())));
    report.p99_abs_deviation_ms = deviations[std::max<std::size_t>(rank, 1) - 1];
    report.max_abs_deviation_ms = deviations.back();
    return report;
}

}  // namespace framelock::frontend
