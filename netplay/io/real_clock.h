// The real clock. This is the only Clock in framelock that reads the time: the engine is
// handed one (tests hand it a ManualClock instead).
#pragma once

#include "netplay/interfaces/clock.h"

namespace framelock::netplay {

// std::chrono::steady_clock in microseconds: monotonic, arbitrary origin, never jumps with
// the wall clock. Thread-safe (no state).
class SteadyClock final : public Clock {
  public:
    Micros now_us() const override;
};

}  // namespace framelock::netplay
