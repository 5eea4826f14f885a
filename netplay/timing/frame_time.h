// A frame's duration: the one unit every conversion between frame numbers and microseconds
// goes through. Nanoseconds, as the Start message carries it (frame_time_ns), so a client and
// the server that sent it count the same frames at the same times.
#pragma once

#include <cmath>
#include <cstdint>

#include "netplay/interfaces/clock.h"

namespace framelock::netplay {

class FrameTime {
  public:
    constexpr FrameTime() = default;
    constexpr explicit FrameTime(std::uint32_t ns) : m_ns(ns) {}
    // From a core's frame rate in thousandths of a frame per second (SessionIdentity).
    static FrameTime from_fps_milli(std::uint32_t fps_milli) {
        return FrameTime(static_cast<std::uint32_t>(std::llround(1e12 / fps_milli)));
    }

    constexpr std::uint32_t ns() const { return m_ns; }
    constexpr bool known() const { return m_ns != 0; }
    // One frame, rounded down to the microsecond.
    constexpr Micros us() const { return m_ns / 1000; }
    // When frame `frames` starts, counted from frame 0: rounded down, or up.
    constexpr Micros span_us(std::int64_t frames) const { return frames * m_ns / 1000; }
    constexpr Micros span_us_up(std::int64_t frames) const { return (frames * m_ns + 999) / 1000; }
    // Whole frames in `duration` (rounded down), and frames that cover it (rounded up).
    constexpr std::int64_t frames_in(Micros duration) const { return duration * 1000 / m_ns; }
    constexpr std::int64_t frames_covering(Micros duration) const {
        return (duration * 1000 + m_ns - 1) / m_ns;
    }

  private:
    std::uint32_t m_ns = 16'666'667;  // 60 fps until a core says otherwise
};

}  // namespace framelock::netplay
