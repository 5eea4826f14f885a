// The load generator's schedule (60 fps) and, per player, when each frame's input went out
// and when the frame came back confirmed: the stamps the forwarding latency is computed from.
// Every stamp is read from g_clock, so the two players of a session, both in the generator,
// are on one clock and their difference needs no clock sync.
#pragma once

#include <cstdint>
#include <vector>

#include "netplay/interfaces/clock.h"
#include "netplay/io/real_clock.h"

namespace framelock::bench::capacity {

using netplay::Micros;

constexpr int kFrameRate = 60;
constexpr std::int64_t kFrameTimeNs = 1'000'000'000 / kFrameRate;
constexpr std::uint32_t kMaxFrame = 1'000'000;  // far beyond any point; guards the tables
constexpr Micros kNotYet = -1;

// The steady clock every process of the benchmark stamps with (no state: one per program).
inline const netplay::SteadyClock g_clock;

// When each frame's input first went out (flushed to the socket) and when the frame came
// back confirmed (or, for a probe, the partner's datagram for it arrived). kNotYet: never.
struct FrameTimes {
    std::vector<Micros> sent, received;
    static void stamp(std::vector<Micros>& times, std::uint32_t frame, Micros at) {
        if (frame >= kMaxFrame) return;
        if (frame >= times.size()) times.resize(frame + 1, kNotYet);
        if (times[frame] == kNotYet) times[frame] = at;
    }
};

}  // namespace framelock::bench::capacity
