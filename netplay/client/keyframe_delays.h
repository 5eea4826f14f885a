// The input delay in force at each frame, as the server's keyframe schedule says: a delay
// holds from its keyframe up to the next keyframe with an entry.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class KeyframeDelays {
  public:
    // Every frame's delay until an entry says otherwise (a late joiner's, from its Start).
    void assume(std::uint8_t delay) { m_default = delay; }
    // From `keyframe` on, `delay`: the one entry known.
    void reset(std::uint32_t keyframe, std::uint8_t delay);
    int at(std::uint32_t frame) const;
    bool has(std::uint32_t keyframe) const { return m_delays.count(keyframe) > 0; }
    // Adds the entries not known yet; returns those that change the delay from the entry
    // before them.
    std::vector<ScheduleEntry> add(const std::vector<ScheduleEntry>& entries);
    // Entries run past (the next after them in force at `next_frame`) are no longer needed.
    void forget_before(std::uint32_t next_frame);

  private:
    std::map<std::uint32_t, std::uint8_t> m_delays;  // keyframe -> delay
    std::uint8_t m_default = 0;
};

}  // namespace framelock::netplay
