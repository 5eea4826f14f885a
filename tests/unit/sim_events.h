// Looking up what a simulated session's server reported (netplay/sim/sim_session.h), for tests.
#pragma once

#include <string>

#include "netplay/sim/sim_session.h"

namespace framelock::netplay {

inline int count_events(const SimResult& r, ServerEvent::Type type) {
    int n = 0;
    for (const auto& e : r.server_events) n += e.type == type ? 1 : 0;
    return n;
}

// The first event of `type` (for `slot`, when >= 0), or nullptr.
inline const ServerEvent* find_event(const SimResult& r, ServerEvent::Type type, int slot = -1) {
    for (const auto& e : r.server_events) {
        if (e.type == type && (slot < 0 || e.slot == slot)) return &e;
    }
    return nullptr;
}

// The first event of `type` whose message contains `text`, or nullptr.
inline const ServerEvent* find_event(const SimResult& r, ServerEvent::Type type,
                                     const std::string& text) {
    for (const auto& e : r.server_events) {
        if (e.type == type && e.message.find(text) != std::string::npos) return &e;
    }
    return nullptr;
}

}  // namespace framelock::netplay
