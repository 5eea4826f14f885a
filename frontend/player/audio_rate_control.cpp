#include "frontend/player/audio_rate_control.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace framelock::frontend {

AudioRateControl::AudioRateControl(double target_fill, double max_adjust, double smoothing)
    : m_target(target_fill), m_max_adjust(max_adjust), m_smoothing(smoothing) {
    assert(target_fill > 0 && max_adjust >= 0 && smoothing > 0 && smoothing <= 1);
}

double AudioRateControl::update(double fill_frames) {
    m_smoothed =
        m_smoothed < 0 ? fill_frames : m_smoothed + m_smoothing * (fill_frames - m_smoothed);
    // Proportional only: the queue settles where the adjustment cancels the clock skew,
    // off target by skew / max_adjust of the target; an integral term would pull it back
    // but can overshoot and wobble the pitch, and the offset is harmless while the skew
    // stays within the adjustment range (real devices: well under 0.1%).
    const double error = (m_target - m_smoothed) / m_target;
    m_factor = 1.0 + m_max_adjust * std::clamp(error, -1.0, 1.0);
    return m_factor;
}

void FillStats::add(double value) {
    ++m_count;
    m_min = std::min(m_min, value);
    m_max = std::max(m_max, value);
    const double delta = value - m_mean;
    m_mean += delta / static_cast<double>(m_count);
    m_m2 += delta * (value - m_mean);
}

double FillStats::stddev() const {
    return m_count > 1 ? std::sqrt(m_m2 / static_cast<double>(m_count)) : 0.0;
}

}  // namespace framelock::frontend
