// A link's one-way trips, each way, from the echoes of its datagrams on synchronised clocks.
//
// A client's datagram leaves at t0 (its clock); the server receives it, holds it for `hold`
// and sends an update at t2 (the server's clock) that echoes it; the client receives that at
// t3 (its clock). With the client's clock offset to the server's (ClockSync), the way up took
// (t2 - hold) - (t0 + offset) and the way down (t3 + offset) - t2. Their sum is the echo's
// round trip; the split is as right as the offset (on a symmetric link's fastest trips, the
// offset is exact, ClockSync). The path floor (path_floor.h) adds the slowest player's way up
// to each player's way down, so a player's own processing between its samples and its
// datagrams (which the echo's round trip counts) stays out of it.
//
// Keeps the worst of each way over the last kWindowUs.
#pragma once

#include <deque>
#include <utility>

#include "netplay/interfaces/clock.h"

namespace framelock::netplay {

class OneWayTrips {
  public:
    static constexpr Micros kWindowUs = 10'000'000;

    // One echo, measured at `now`: the way up and the way down, us (negative ones, an offset
    // error, count as 0).
    void add(Micros now, Micros up, Micros down);
    // The worst way up and way down over the last kWindowUs before `now` (0: none).
    Micros worst_up(Micros now) const { return worst(m_up, now); }
    Micros worst_down(Micros now) const { return worst(m_down, now); }

  private:
    using Window = std::deque<std::pair<Micros, Micros>>;  // (time, trip), decreasing trips
    static void push(Window& window, Micros now, Micros trip);
    static Micros worst(const Window& window, Micros now);

    Window m_up, m_down;
};

}  // namespace framelock::netplay
