#include "netplay/timing/loss_counter.h"

namespace framelock::netplay {

bool LossCounter::record(std::uint8_t seq) {
    if (!m_any) {
        m_any = true;
        m_newest = seq;
        m_seen = 1;
        ++m_received;
        return true;
    }
    const auto ahead = static_cast<std::uint8_t>(seq - m_newest);
    if (ahead == 0) return false;  // a duplicate of the newest
    if (ahead < 128) {
        m_lost += ahead - 1u;  // skipped: lost unless they turn up late
        m_seen = ahead >= 64 ? 0 : m_seen << ahead;
        m_seen |= 1;
        m_newest = seq;
        ++m_received;
        return true;
    }
    const auto behind = static_cast<std::uint8_t>(m_newest - seq);
    if (behind >= 64) return false;  // too old to tell apart from a duplicate
    const std::uint64_t bit = std::uint64_t{1} << behind;
    if (m_seen & bit) return false;  // a duplicate
    m_seen |= bit;
    ++m_received;
    if (m_lost) --m_lost;
    return false;
}

double LossCounter::rate() const {
    const std::uint64_t total = m_received + m_lost;
    return total ? static_cast<double>(m_lost) / static_cast<double>(total) : 0.0;
}

}  // namespace framelock::netplay
