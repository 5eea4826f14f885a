#include "netplay/delay_controller.h"

#include <algorithm>

namespace framelock::netplay {

int DelayController::frames_for(Micros duration) const {
    const Micros frame = m_policy.frame_time_us;
    const int frames = static_cast<int>((duration + m_policy.margin_us + frame - 1) / frame);
    return std::clamp(frames, m_policy.min_delay, m_policy.max_delay);
}

void DelayController::add_round_trip(Micros now, Micros round_trip) {
    // Older samples no larger than a newer one can never be the maximum again.
    while (!m_samples.empty() && m_samples.back().round_trip <= round_trip) m_samples.pop_back();
    m_samples.push_back({now, round_trip});
    while (!m_samples.empty() && m_samples.front().time < now - m_policy.memory_us)
        m_samples.pop_front();
}

void DelayController::observe_srtt(Micros srtt_worst) {
    m_srtt = srtt_worst;
    if (srtt_worst <= 0) return;
    const Micros tolerance = std::max(m_regime_srtt / 4, m_policy.frame_time_us);
    if (m_regime_srtt == 0 || srtt_worst > m_regime_srtt + tolerance ||
        srtt_worst < m_regime_srtt - tolerance) {
        m_regime_srtt = srtt_worst;
        m_samples.clear();
        ++m_regimes;
    }
}

int DelayController::target(Micros now) {
    if (!m_policy.adaptive) return m_policy.fixed_delay;
    while (!m_samples.empty() && m_samples.front().time < now - m_policy.memory_us)
        m_samples.pop_front();
    const Micros round_trip = m_samples.empty() ? 0 : m_samples.front().round_trip;
    const Micros floor = m_srtt + (m_policy.send_interval - 1) * m_policy.frame_time_us;
    const Micros loss_margin = m_loss > m_policy.loss_threshold ? m_policy.frame_time_us : 0;
    return frames_for(std::max(round_trip + loss_margin, floor));
}

int DelayController::initial(Micros safe_rtt_worst) const {
    if (!m_policy.adaptive) return m_policy.fixed_delay;
    return frames_for(safe_rtt_worst + (m_policy.send_interval - 1) * m_policy.frame_time_us);
}

int DelayController::decide(Micros now, int current, int target) {
    if (!m_policy.adaptive) return m_policy.fixed_delay;
    if (target >= current) {
        m_lower_since = -1;
        return target;
    }
    // Lower only once the target has stayed below the delay for lower_after; then one
    // frame per decision while it stays below.
    if (m_lower_since < 0) m_lower_since = now;
    return now - m_lower_since >= m_policy.lower_after_us ? current - 1 : current;
}

}  // namespace framelock::netplay
