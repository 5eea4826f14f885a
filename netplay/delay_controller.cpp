#include "netplay/delay_controller.h"

#include <algorithm>

namespace framelock::netplay {

int DelayController::target(std::span<const LinkReport> links) const {
    if (!m_policy.adaptive) return m_policy.fixed_delay;
    Micros worst = 0;
    bool up_loss = false, down_loss = false;
    for (const auto& link : links) {
        worst = std::max(worst, link.safe_rtt);
        up_loss |= link.up_loss > m_policy.loss_threshold;
        down_loss |= link.down_loss > m_policy.loss_threshold;
    }
    const Micros frame = m_policy.frame_time_us;
    Micros needed = worst + (m_policy.send_interval - 1) * frame + m_policy.margin_us;
    if (up_loss) needed += m_policy.send_interval * frame;
    if (down_loss) needed += frame;
    const int frames = static_cast<int>((needed + frame - 1) / frame);
    return std::clamp(frames, m_policy.min_delay, m_policy.max_delay);
}

int DelayController::decide(Micros now, int current, int target) {
    if (!m_policy.adaptive) return m_policy.fixed_delay;
    m_history.emplace_back(now, target);
    while (!m_history.empty() && m_history.front().first < now - m_policy.lower_after_us)
        m_history.pop_front();
    if (target >= current) {
        if (target > current) m_history.clear();  // a rise restarts the wait before any fall
        return target;
    }
    // Lower only when every target over the whole window was below the current delay,
    // and the window really spans lower_after (not just since the last rise).
    const bool window_full =
        !m_history.empty() && now - m_history.front().first >= m_policy.lower_after_us;
    int highest = 0;
    for (const auto& [time, t] : m_history) highest = std::max(highest, t);
    if (window_full && highest < current) return current - 1;
    return current;
}

}  // namespace framelock::netplay
