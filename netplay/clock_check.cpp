#include "netplay/clock_check.h"

#include <algorithm>
#include <cmath>

namespace framelock::netplay {

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
    m_last_client = client_us;
    m_samples.push_back({server_us, lead});
    // Kept: the newest window, and the samples in the quarter before it.
    const Micros quarter = m_config.window_us / 4;
    while (m_samples.size() > 2 && m_samples[1].server <= server_us - m_config.window_us - quarter)
        m_samples.pop_front();
    if (server_us - m_samples.front().server < m_config.window_us) return Verdict::kTaken;
    // The least delayed sample in the window's first quarter and in its last.
    const Micros start = m_samples.front().server;
    const Sample* early = nullptr;
    const Sample* late = nullptr;
    for (const Sample& sample : m_samples) {
        if (sample.server <= start + quarter && (!early || sample.lead > early->lead))
            early = &sample;
        if (sample.server >= server_us - quarter && (!late || sample.lead > late->lead))
            late = &sample;
    }
    if (late->server <= early->server) return Verdict::kTaken;
    m_rate_error = static_cast<double>(late->lead - early->lead) /
                   static_cast<double>(late->server - early->server);
    const bool off = std::abs(*m_rate_error) > m_config.tolerance;
    if (!off) {
        m_off_since = -1;
    } else if (m_off_since < 0) {
        m_off_since = server_us;
    }
    m_last_check = server_us;
    return Verdict::kTaken;
}

void ClockCheck::reset() {
    m_samples.clear();
    m_last_client.reset();
    m_rate_error.reset();
    m_off_since = m_last_check = -1;
}

bool ClockCheck::off_pace() const {
    return m_off_since >= 0 && m_last_check - m_off_since >= m_config.sustain_us;
}

}  // namespace framelock::netplay
