// Round-trip time, RFC 6298 style: SRTT <- 7/8 SRTT + 1/8 R, RTTVAR <- 3/4 RTTVAR +
// 1/4 |SRTT - R|. safe() = SRTT + 4 RTTVAR is the time within which nearly every round
// trip completes; it rises within a few samples of a worse network and falls as
// fast as the variance decays.
#pragma once

#include "netplay/interfaces/clock.h"

namespace framelock::netplay {

class RttEstimator {
  public:
    void add_sample(Micros rtt);

    bool has_samples() const { return m_samples > 0; }
    Micros srtt() const { return m_srtt; }
    Micros rttvar() const { return m_rttvar; }
    Micros safe() const { return m_srtt + 4 * m_rttvar; }
    Micros min_rtt() const { return m_min; }
    Micros last() const { return m_last; }
    long samples() const { return m_samples; }

  private:
    Micros m_srtt = 0;
    Micros m_rttvar = 0;
    Micros m_min = 0;
    Micros m_last = 0;
    long m_samples = 0;
};

}  // namespace framelock::netplay
