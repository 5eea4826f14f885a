// This player's pad, on the server's timeline: the pad sampled when frame f's time comes is
// the input for frame f + D (D: the delay in force at f), kept until the server acknowledges
// it, so every datagram carries every input the server may not have. A frame's input round
// trip (from the moment every player sampled it to its confirmation here) is measured for
// the delay the server chooses.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "netplay/base/types.h"
#include "netplay/interfaces/clock.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class PadSampler {
  public:
    // The session starts: frame 0's time is sampled first, and inputs start at frame
    // `first_input` (the Start's delay; the frames before it carry none).
    void start(std::uint32_t first_input);
    // A joiner: samples from `frame` on; its inputs start at its first sample's frame.
    void join(std::uint32_t frame);

    // The next scheduled frame whose pad is sampled.
    std::uint32_t next_sample_frame() const { return m_sample_frame; }
    // Whether that sample lies within the lead a player may run ahead of the frames
    // confirmed up to `confirmed_end` (the server drops inputs further ahead).
    bool within_lead(std::uint32_t confirmed_end) const;

    struct Sampled {
        std::uint32_t frames = 0;  // new input frames it filled (0: the delay fell)
        InputWord word = 0;        // their input
    };
    // Samples `pad` for the next sample frame, due at `due` and taken at `now`, under `delay`.
    // A delay that rose fills the frames in between with it; one that fell leaves it no
    // frame of its own, and its presses carry into the next frame that gets one.
    Sampled sample(InputWord pad, int delay, Micros due, Micros now);

    // The server holds this player's inputs up to `input_ack` (low 16 bits).
    void acknowledge(std::uint16_t input_ack);
    // Frames [from, to) were confirmed at `now`: their input round trips (none when the tick
    // came late: arrivals waited on the process, not the network).
    void confirmed(std::uint32_t from, std::uint32_t to, Micros now, bool tick_late);
    // The datagram's share: unacknowledged inputs, the worst round trip and lateness since
    // the last datagram (reset).
    void fill(ClientInput& input);

    // The q-quantile (0..1) of the input round trips so far, to 0.25 ms; 0 before any.
    Micros round_trip_quantile(double q) const;

  private:
    // Own inputs not yet acknowledged: frames [m_acked_end, m_next_input).
    std::deque<InputWord> m_own;
    std::uint32_t m_acked_end = 0;
    std::uint32_t m_next_input = 0;    // next frame that needs a sampled input
    std::uint32_t m_sample_frame = 0;  // the next scheduled frame whose pad is sampled
    InputWord m_last_sample = 0;
    InputWord m_carried_presses = 0;  // presses sampled while the delay was falling
    bool m_started = true;            // false: a joiner's first sample sets where inputs start
    // When each own input was due to be sampled (its scheduled time, local clock), for frames
    // [m_sample_base, m_next_input): a frame's input round trip is its confirmation's arrival
    // minus this, which is what its due time must cover.
    std::deque<Micros> m_sample_times;
    std::uint32_t m_sample_base = 0;
    Micros m_max_round_trip = 0;  // worst since the last datagram
    // Every frame's round trip, in 0.25 ms bins (the last one: 512 ms or more).
    static constexpr Micros kRoundTripBinUs = 250;
    std::vector<std::uint32_t> m_round_trips = std::vector<std::uint32_t>(2048, 0);
    Micros m_max_late = 0;  // latest sample (after its time) since the last datagram
};

}  // namespace framelock::netplay
