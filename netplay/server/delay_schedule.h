// The session's timeline as the server keeps it: when frame 0 runs and how long a frame lasts
// (the Start every member gets), and the input delay decided at each keyframe. Server owns
// it; the parts read it (when a frame's input was sampled, the delay in force at a frame).
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "netplay/interfaces/clock.h"
#include "netplay/timing/frame_time.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class DelaySchedule {
  public:
    // The start: frame 0's time and the first delay, which every keyframe inside the first,
    // pre-confirmed frames keeps. They still get entries, because a client runs a keyframe
    // only once it holds its entry.
    void begin(const Start& start, std::uint16_t keyframe_interval);
    const Start& start() const { return m_start; }
    FrameTime frame_time() const { return FrameTime(m_start.frame_time_ns); }

    // Whether keyframe `frame` (a multiple of the interval) still waits for its decision.
    bool undecided(std::uint32_t frame, std::uint16_t keyframe_interval) const {
        return frame % keyframe_interval == 0 && !m_entries.empty() &&
               m_entries.back().frame != frame;
    }
    // The newest decision's delay (0 before the start).
    int current_delay() const { return m_entries.empty() ? 0 : m_entries.back().delay; }
    // Records keyframe `frame`'s decision; whether it changed the delay.
    bool decide(std::uint32_t frame, int delay);

    // The delay in force at `frame` (among the decisions kept).
    std::uint8_t delay_in_force(std::uint32_t frame) const;
    // Server clock: when the input for `frame` was sampled.
    Micros sample_time(std::uint32_t frame) const;
    // No-wait: when frame g is confirmed whatever has arrived (server clock).
    Micros no_wait_deadline(std::uint32_t g, int fixed_delay) const;

    // Every keyframe's decision from the oldest confirmed frame still kept (the entry in force
    // there first), oldest first: what updates carry.
    const std::deque<ScheduleEntry>& entries() const { return m_entries; }
    // The delay from frame 0, then one entry per change: the whole session's delay.
    const std::vector<ScheduleEntry>& history() const { return m_history; }
    // Keyframes decided so far (one delay decision each, changed or not).
    std::uint64_t keyframes() const { return m_keyframes; }
    // Forgets the decisions before the one in force at `oldest_kept` (the oldest confirmed
    // frame kept): a long session's updates do not scan an hour of keyframes.
    void trim(std::uint32_t oldest_kept);

  private:
    Start m_start{};
    std::deque<ScheduleEntry> m_entries;
    std::vector<ScheduleEntry> m_history;  // first entry, then changes only
    std::uint64_t m_keyframes = 0;
};

}  // namespace framelock::netplay
