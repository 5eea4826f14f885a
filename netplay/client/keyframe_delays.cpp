#include "netplay/client/keyframe_delays.h"

#include <iterator>

#include "netplay/base/types.h"

namespace framelock::netplay {

void KeyframeDelays::reset(std::uint32_t keyframe, std::uint8_t delay) {
    m_delays = {{keyframe, delay}};
    m_default = delay;
}

int KeyframeDelays::at(std::uint32_t frame) const {
    auto it = m_delays.upper_bound(frame);
    if (it == m_delays.begin()) return m_default;
    return std::prev(it)->second;
}

std::vector<ScheduleEntry> KeyframeDelays::add(const std::vector<ScheduleEntry>& entries) {
    std::vector<ScheduleEntry> changes;
    for (const auto& entry : entries) {
        auto [it, inserted] = m_delays.emplace(entry.frame, entry.delay);
        if (inserted && it != m_delays.begin() && std::prev(it)->second != entry.delay)
            changes.push_back(entry);
    }
    return changes;
}

void KeyframeDelays::forget_before(std::uint32_t next_frame) {
    while (m_delays.size() > 2 && Frame(std::next(m_delays.begin())->first) <= Frame(next_frame))
        m_delays.erase(m_delays.begin());
}

}  // namespace framelock::netplay
