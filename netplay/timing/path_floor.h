// The path floor of a frame-locked session through a server, as one formula that the
// server's delay controller and the lobby (which estimates a room's delay before anyone
// joins) both use.
//
// Client i can run frame f once every player's input for f came up to the server and back
// down to i: the delay must cover the slowest player's uplink plus i's own downlink. With
// symmetric paths that is at most the worst player's round trip to the server, which is
// what a probe measures (a player's datagram to the relay's session socket and back) and
// what the server measures of each client. A delay of D frames covers a round trip when D
// frame times hold it plus the client loop's timing slack (the margin).
//
// Pure and header-only: the lobby may include it (docs/architecture.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "netplay/interfaces/clock.h"
#include "netplay/timing/frame_time.h"

namespace framelock::netplay {

// The defaults of DelayPolicy (netplay/timing/delay_controller.h), here so that an estimate made
// without a session's configuration uses the same ones.
inline constexpr Micros kDefaultDelayMarginUs = 1'000;
inline constexpr int kDefaultMinDelay = 1;
inline constexpr int kDefaultMaxDelay = 60;
// The hybrid's: the delay a player feels at most, and the frames prediction covers at most
// (the hybrid's prediction window of 12, less a frame).
inline constexpr int kDefaultHybridLocalDelay = 2;
inline constexpr int kDefaultHybridPredicted = 11;

// The metric a relay is chosen by: the worst player's round trip to the server, us.
// 0 for no players; a negative entry counts as 0.
inline Micros worst_round_trip(std::span<const Micros> round_trips) {
    Micros worst = 0;
    for (Micros rtt : round_trips) worst = std::max(worst, rtt);
    return worst;
}

// The frames of delay that cover a round trip of `rtt` us plus `margin_us`, at `frame_time`,
// clamped to [min_delay, max_delay].
inline int delay_for_round_trip(Micros rtt, FrameTime frame_time,
                                Micros margin_us = kDefaultDelayMarginUs,
                                int min_delay = kDefaultMinDelay,
                                int max_delay = kDefaultMaxDelay) {
    const std::int64_t frames = frame_time.frames_covering(std::max<Micros>(rtt, 0) + margin_us);
    return static_cast<int>(std::clamp<std::int64_t>(frames, min_delay, max_delay));
}

// The hybrid's delay where a frame lock needs `lock` frames: at most `local` of them felt,
// prediction covering up to `predicted` of the rest, the delay whatever is left beyond
// (DelayController::frames_for, and the lobby's estimate for a hybrid room).
inline int hybrid_delay(int lock, int local = kDefaultHybridLocalDelay,
                        int predicted = kDefaultHybridPredicted) {
    return std::max(std::min(lock, local), lock - std::max(predicted, 0));
}

}  // namespace framelock::netplay
