#include "netplay/io/real_clock.h"

#include <chrono>

namespace framelock::netplay {

Micros SteadyClock::now_us() const {
    const auto since_origin = std::chrono::steady_clock::now().time_since_epoch();
    return std::chrono::duration_cast<std::chrono::microseconds>(since_origin).count();
}

}  // namespace framelock::netplay
