// The session's timeline on this machine's clock: frame f is due at the Start's time plus f
// frame times on the server's clock, which the clock offset (measured by ClientLink) maps to
// this one. Every client so runs frame f at the same moment. A value: take a new one when
// the offset may have moved (after the network was read).
#pragma once

#include <cstdint>

#include "netplay/interfaces/clock.h"
#include "netplay/timing/frame_time.h"

namespace framelock::netplay {

class ClientTimeline {
  public:
    // `start_time_us`: frame 0's time on the server's clock; `clock_offset`: the server's
    // clock minus this one.
    ClientTimeline(Micros start_time_us, FrameTime frame_time, Micros clock_offset)
        : m_start_time_us(start_time_us), m_frame_time(frame_time), m_offset(clock_offset) {}

    FrameTime frame_time() const { return m_frame_time; }
    // When `frame` is due on this clock. Rounded up to the microsecond: at the time returned,
    // scheduled_frame() counts the frame as come.
    Micros due(std::uint32_t frame) const;
    // The last frame whose time has come at `now` (this clock); "frame -1" before frame 0's.
    std::uint32_t scheduled_frame(Micros now) const;

  private:
    Micros m_start_time_us;
    FrameTime m_frame_time;
    Micros m_offset;
};

}  // namespace framelock::netplay
