#include "netplay/client/client_timeline.h"

#include <algorithm>

namespace framelock::netplay {
namespace {
constexpr Micros kMaxSinceUs = Micros{1} << 53;
}  // namespace

Micros ClientTimeline::due(std::uint32_t frame) const {
    // Rounded up (rounded down, a loop woken then would find the frame a microsecond early
    // and spin).
    const Micros server_time = m_start_time_us + m_frame_time.span_us_up(frame);
    return server_time - m_offset;
}

std::uint32_t ClientTimeline::scheduled_frame(Micros now) const {
    // Clamped (to 285 years) so that since * 1000 cannot overflow for a start time far in
    // the past: frame numbers wrap at 2^32 anyway.
    const Micros since = std::min(now + m_offset - m_start_time_us, kMaxSinceUs);
    if (since < 0) return static_cast<std::uint32_t>(-1);
    return static_cast<std::uint32_t>(m_frame_time.frames_in(since));
}

}  // namespace framelock::netplay
