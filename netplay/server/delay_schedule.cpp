// The session's timeline (delay_schedule.h): the keyframes' decisions and what follows from
// them.
#include "netplay/server/delay_schedule.h"

#include <algorithm>

namespace framelock::netplay {

void DelaySchedule::begin(const Start& start, std::uint16_t keyframe_interval) {
    m_start = start;
    m_entries.clear();
    for (std::uint32_t k = 0; k < static_cast<std::uint32_t>(std::max<int>(start.delay, 1));
         k += keyframe_interval) {
        m_entries.push_back({k, start.delay});
    }
    m_keyframes = m_entries.size();
    m_history = {m_entries.front()};
}

bool DelaySchedule::decide(std::uint32_t frame, int delay) {
    const int current = m_entries.back().delay;
    m_entries.push_back({frame, static_cast<std::uint8_t>(delay)});
    ++m_keyframes;
    if (delay == current) return false;
    m_history.push_back(m_entries.back());
    return true;
}

std::uint8_t DelaySchedule::delay_in_force(std::uint32_t frame) const {
    std::uint8_t delay = m_entries.empty() ? 0 : m_entries.front().delay;
    for (const auto& entry : m_entries) {
        if (Frame(entry.frame) > Frame(frame)) break;
        delay = entry.delay;
    }
    return delay;
}

Micros DelaySchedule::sample_time(std::uint32_t frame) const {
    // The input for `frame` was sampled at the first frame s whose sample reaches it:
    // s + delay(s) >= frame (a rising delay gives one sample to several frames, a falling
    // one skips some). Only the newest decisions can hold it (delays are at most 60 frames).
    std::uint32_t s = frame;
    for (std::size_t i = m_entries.size(); i-- > 0;) {
        const ScheduleEntry& entry = m_entries[i];
        const std::uint32_t end = i + 1 < m_entries.size() ? m_entries[i + 1].frame : frame + 1;
        const Frame candidate = std::max(Frame(entry.frame), Frame(frame) - entry.delay);
        if (candidate < Frame(end)) s = candidate.value();
        if (Frame(end) + 64 < Frame(frame)) break;
    }
    return m_start.start_time_us + frame_time().span_us(s);
}

Micros DelaySchedule::no_wait_deadline(std::uint32_t g, int fixed_delay) const {
    // Half the delay before g is due: inputs sampled `delay` frames ahead have half of it
    // to arrive, the confirmation the other half to reach the players.
    const std::int64_t frame_ns = m_start.frame_time_ns;
    const std::int64_t due_ns = static_cast<std::int64_t>(g) * frame_ns;
    const std::int64_t lead_ns = static_cast<std::int64_t>(fixed_delay) * frame_ns / 2;
    return m_start.start_time_us + (due_ns - lead_ns) / 1000;
}

void DelaySchedule::trim(std::uint32_t oldest_kept) {
    // Updates send decisions from the oldest frame kept on, and states carry the delay in
    // force at a kept frame: the entry in force at oldest_kept is the oldest needed.
    while (m_entries.size() > 1 && Frame(m_entries[1].frame) <= Frame(oldest_kept))
        m_entries.pop_front();
}

}  // namespace framelock::netplay
