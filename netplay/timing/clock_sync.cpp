#include "netplay/timing/clock_sync.h"

#include <algorithm>
#include <cstdlib>

namespace framelock::netplay {

namespace {
constexpr Micros kMaxRtt = 10'000'000;
constexpr Micros kMaxJump = 60'000'000;
}  // namespace

void ClockSync::seed(Micros server_time, Micros local_time) {
    if (m_has_samples) return;  // real samples are better than a one-way seed
    m_offset = server_time - local_time;
    m_has_offset = true;
}

bool ClockSync::add_sample(Micros t0, Micros t1, Micros t2, Micros t3) {
    const Micros rtt = (t3 - t0) - (t2 - t1);
    if (t3 < t0 || t2 < t1 || rtt < 0 || rtt > kMaxRtt) {
        ++m_rejected;
        return false;
    }
    const Micros offset = t2 + rtt / 2 - t3;
    if (m_has_samples && std::llabs(offset - m_offset) > kMaxJump) {
        ++m_rejected;
        return false;
    }
    m_samples.push_back({rtt, offset});
    if (m_samples.size() > m_window) m_samples.pop_front();
    const auto best =
        std::min_element(m_samples.begin(), m_samples.end(),
                         [](const Sample& a, const Sample& b) { return a.rtt < b.rtt; });
    m_offset = best->offset;
    m_best_rtt = best->rtt;
    m_has_offset = m_has_samples = true;
    return true;
}

}  // namespace framelock::netplay
