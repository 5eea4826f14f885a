#include "netplay/timing/one_way_trips.h"

#include <algorithm>

namespace framelock::netplay {

void OneWayTrips::add(Micros now, Micros up, Micros down) {
    push(m_up, now, std::max<Micros>(up, 0));
    push(m_down, now, std::max<Micros>(down, 0));
}

void OneWayTrips::push(Window& window, Micros now, Micros trip) {
    // A newer trip at least as long makes the older ones irrelevant to every later maximum.
    while (!window.empty() && window.back().second <= trip) window.pop_back();
    window.emplace_back(now, trip);
    while (window.front().first < now - kWindowUs) window.pop_front();
}

Micros OneWayTrips::worst(const Window& window, Micros now) {
    // The front is the maximum once the expired entries are skipped.
    for (const auto& [at, trip] : window) {
        if (at >= now - kWindowUs) return trip;
    }
    return 0;
}

}  // namespace framelock::netplay
