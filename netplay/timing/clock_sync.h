// The offset between a client's clock and the server's, NTP style. Each sample is a
// round trip: the client sends at t0 (its clock), the server receives at t1 and answers
// at t2 (its clock), the client receives at t3. Then RTT = (t3 - t0) - (t2 - t1) and,
// assuming symmetric paths, offset = server - client = t2 + RTT/2 - t3.
//
// The samples with the smallest RTT are the least disturbed by queueing, so the offset
// comes from the best sample of a sliding window; the window slides, so the estimate
// follows slow drift. Absurd samples (negative RTT, RTT over 10 s, an offset jump of
// more than a minute from the established one) are rejected and counted.
#pragma once

#include <cstddef>
#include <deque>

#include "netplay/interfaces/clock.h"

namespace framelock::netplay {

class ClockSync {
  public:
    explicit ClockSync(std::size_t window = 32) : m_window(window) {}

    // A first rough offset (from a server timestamp in a reliable message).
    void seed(Micros server_time, Micros local_time);
    // Returns false when the sample was rejected as absurd.
    bool add_sample(Micros t0, Micros t1, Micros t2, Micros t3);

    bool synced() const { return m_has_offset; }
    Micros offset() const { return m_offset; }  // server time = local time + offset
    Micros to_server(Micros local) const { return local + m_offset; }
    Micros to_local(Micros server) const { return server - m_offset; }
    Micros best_rtt() const { return m_best_rtt; }
    long rejected() const { return m_rejected; }

  private:
    struct Sample {
        Micros rtt;
        Micros offset;
    };
    std::size_t m_window;
    std::deque<Sample> m_samples;
    bool m_has_offset = false;
    bool m_has_samples = false;
    Micros m_offset = 0;
    Micros m_best_rtt = 0;
    long m_rejected = 0;
};

}  // namespace framelock::netplay
