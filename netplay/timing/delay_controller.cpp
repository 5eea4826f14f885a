#include "netplay/timing/delay_controller.h"

#include <algorithm>
#include <cmath>

namespace framelock::netplay {

int DelayController::frames_for(Micros duration) const {
    const int lock = delay_for_round_trip(duration, m_policy.frame_time, m_policy.margin_us,
                                          m_policy.min_delay, m_policy.max_delay);
    if (!m_policy.hybrid) return lock;
    return hybrid_delay(lock, m_policy.hybrid_local_delay, predicted_frames());
}

int DelayController::predicted_frames() const {
    if (!m_policy.hybrid) return 0;
    const int configured = std::max(m_policy.predicted_frames, 0);
    return m_prediction_limit < 0 ? configured : std::min(configured, m_prediction_limit);
}

void DelayController::add_round_trip(Micros now, int slot, Micros round_trip) {
    if (slot < 1 || slot > kMaxPlayers) return;
    auto& samples = m_samples[static_cast<std::size_t>(slot - 1)];
    samples.push_back({now, round_trip});
    while (samples.front().time < now - m_policy.window_us) samples.pop_front();
}

void DelayController::observe_srtt(int slot, Micros srtt) {
    if (srtt <= 0 || slot < 1 || slot > kMaxPlayers) return;
    const auto index = static_cast<std::size_t>(slot - 1);
    Micros& regime = m_regime_srtt[index];
    const Micros tolerance = std::max(regime / 4, m_policy.frame_time.us());
    const bool rose = regime != 0 && srtt > regime + tolerance;
    if (regime == 0 || rose || srtt < regime - tolerance) {
        regime = srtt;
        auto& samples = m_samples[index];
        // A rise keeps the last reports (the class comment); a fall drops them all.
        if (!rose || samples.empty()) {
            samples.clear();
        } else {
            const Micros keep_from = samples.back().time - kKeptOnRiseUs;
            while (samples.front().time < keep_from) samples.pop_front();
        }
        ++m_regimes;
    }
}

int DelayController::target(Micros now) {
    if (!m_policy.adaptive) return m_policy.fixed_delay;
    Micros covered = 0;
    const double enough = m_policy.stall_budget > 0 ? 1.0 / m_policy.stall_budget : 0.0;
    bool any = false;
    m_evidence_thin = false;
    for (auto& samples : m_samples) {
        while (!samples.empty() && samples.front().time < now - m_policy.window_us)
            samples.pop_front();
        if (samples.empty()) continue;
        any = true;
        if (static_cast<double>(samples.size()) < enough) m_evidence_thin = true;
        // The round trip that at most `stall_budget` of this client's reports exceed: the
        // (k+1)-th largest, k = floor(n x budget).
        m_scratch.clear();
        for (const Sample& s : samples) m_scratch.push_back(s.round_trip);
        const auto k = static_cast<std::size_t>(
            std::floor(static_cast<double>(m_scratch.size()) * m_policy.stall_budget));
        auto nth = m_scratch.begin() + static_cast<std::ptrdiff_t>(k);
        std::nth_element(m_scratch.begin(), nth, m_scratch.end(), std::greater<>());
        covered = std::max(covered, *nth);
    }
    if (!any) m_evidence_thin = true;  // no report at all yet
    m_covered = covered;
    return frames_for(covered);
}

int DelayController::initial(Micros safe_rtt_worst) const {
    if (!m_policy.adaptive) return m_policy.fixed_delay;
    return frames_for(safe_rtt_worst);
}

int DelayController::decide(Micros now, int current, int target) {
    if (!m_policy.adaptive) return m_policy.fixed_delay;
    if (target >= current) {
        m_lower_since = -1;
        return target;
    }
    // On thin evidence, not below the target plus a frame (the class comment).
    if (m_evidence_thin && target + 1 >= current) {
        m_lower_since = -1;
        return current;
    }
    // Lower only once the target has stayed below the delay for lower_after; then one
    // frame per decision while it stays below.
    if (m_lower_since < 0) m_lower_since = now;
    return now - m_lower_since >= m_policy.lower_after_us ? current - 1 : current;
}

}  // namespace framelock::netplay
