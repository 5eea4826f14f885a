#include "netplay/timing/clock_check.h"

#include <array>
#include <cmath>

namespace framelock::netplay {
namespace {
constexpr int kBins = 5;
}  // namespace

ClockCheck::Verdict ClockCheck::add(Micros server_us, Micros client_us) {
    if (m_last_client && client_us < *m_last_client) {
        ++m_refused;
        return Verdict::kBackwards;
    }
    const Micros lead = client_us - server_us;
    if (lead > m_config.max_offset_us || lead < -m_config.max_offset_us) {
        ++m_refused;
        return Verdict::kAbsurd;
    }
    if (m_last_taken >= 0 && server_us - m_last_taken < m_config.min_interval_us)
        return Verdict::kIgnored;
    m_last_client = client_us;
    m_last_taken = server_us;
    m_samples.push_back({server_us, lead});
    while (!m_samples.empty() && m_samples.front().server < server_us - m_config.window_us)
        m_samples.pop_front();
    measure(server_us);
    return Verdict::kTaken;
}

void ClockCheck::measure(Micros now) {
    // Each bin's least delayed reading; a bin without one: no measurement yet.
    const Micros start = now - m_config.window_us;
    const Micros bin = m_config.window_us / kBins;
    std::array<const Sample*, kBins> best{};
    for (const Sample& sample : m_samples) {
        const auto b =
            static_cast<std::size_t>(std::min<Micros>((sample.server - start) / bin, kBins - 1));
        if (!best[b] || sample.lead > best[b]->lead) best[b] = &sample;
    }
    for (const Sample* sample : best) {
        if (!sample) return;
    }
    const auto rate = [](const Sample& a, const Sample& b) {
        return b.server > a.server
                   ? static_cast<double>(b.lead - a.lead) / static_cast<double>(b.server - a.server)
                   : 0.0;
    };
    m_rate_error = rate(*best.front(), *best.back());
    const double tolerance = m_config.tolerance;
    const double sign = *m_rate_error > 0 ? 1 : -1;
    bool off = std::abs(*m_rate_error) > tolerance;
    for (int i = 0; off && i + 1 < kBins; ++i)
        off = rate(*best[i], *best[i + 1]) * sign > tolerance;
    m_off_pace = off;
}

void ClockCheck::reset() {
    restart_window();
    m_last_client.reset();
    m_last_taken = -1;
}

void ClockCheck::restart_window() {
    m_samples.clear();
    m_rate_error.reset();
    m_off_pace = false;
}

}  // namespace framelock::netplay
