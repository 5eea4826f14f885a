#include "netplay/timing/rtt_estimator.h"

#include <algorithm>
#include <cstdlib>

namespace framelock::netplay {

void RttEstimator::add_sample(Micros rtt) {
    rtt = std::max<Micros>(rtt, 0);
    m_last = rtt;
    if (m_samples++ == 0) {
        m_srtt = rtt;
        m_rttvar = rtt / 2;
        m_min = rtt;
        return;
    }
    m_min = std::min(m_min, rtt);
    // Integer arithmetic in microseconds: deterministic on every machine.
    m_rttvar = (3 * m_rttvar + std::llabs(m_srtt - rtt)) / 4;
    m_srtt = (7 * m_srtt + rtt) / 8;
}

}  // namespace framelock::netplay
