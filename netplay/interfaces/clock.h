// Time, injected. The netplay engine never reads a real clock: sessions are given a
// Clock, so tests drive them with a ManualClock and run hours of play in seconds.
#pragma once

#include <cstdint>

namespace framelock::netplay {

// Microseconds on a monotonic timeline with an arbitrary origin.
using Micros = std::int64_t;

class Clock {
  public:
    virtual ~Clock() = default;
    virtual Micros now_us() const = 0;
};

// A clock that moves only when told to. Not thread-safe; one simulation, one thread.
class ManualClock final : public Clock {
  public:
    explicit ManualClock(Micros start = 0) : m_now(start) {}
    Micros now_us() const override { return m_now; }
    void advance(Micros delta) { m_now += delta; }
    void set(Micros now) { m_now = now; }

  private:
    Micros m_now;
};

}  // namespace framelock::netplay
