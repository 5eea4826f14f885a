// The newest events a runner logged, kept until whoever shows the session polls them (the
// player's window does: frontend/player/netplay_view.h). A session's own part: the runners
// keep them, the rooms above poll them. Threading: none.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <utility>

namespace framelock::frontend {

template <class Event>
class ViewEvents {
  public:
    // Events kept; more would only be ones the window never polled.
    static constexpr std::size_t kLimit = 64;

    // Keeps `event`, dropping the oldest beyond kLimit.
    void keep(const Event& event) {
        m_events.push_back(event);
        if (m_events.size() > kLimit) m_events.pop_front();
    }
    // The oldest event kept, once; nullopt when none is left.
    std::optional<Event> poll() {
        if (m_events.empty()) return std::nullopt;
        Event event = std::move(m_events.front());
        m_events.pop_front();
        return event;
    }

  private:
    std::deque<Event> m_events;
};

}  // namespace framelock::frontend
