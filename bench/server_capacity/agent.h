// One simulated player in the load generator's loop: a socket to wake on, a tick, and when
// it next wants a tick. ClientAgent plays against `framelock server`, ProbeAgent against the
// baseline's relay.
#pragma once

#include <cstdint>
#include <string>

#include "bench/server_capacity/frame_times.h"

namespace framelock::bench::capacity {

// What a player did so far; the window's figures are differences of two readings.
struct Counters {
    std::uint64_t frames_run = 0, stall_frames = 0, updates = 0;
};

class Agent {
  public:
    virtual ~Agent() = default;
    // The socket whose readability wakes the agent (owned by the agent).
    virtual int fd() const = 0;
    virtual void tick() = 0;
    // When the agent wants its next tick if its socket stays quiet (steady clock).
    virtual Micros next_wakeup() const = 0;
    virtual bool ready() const = 0;  // playing (running frames / sending)
    virtual Counters counters() const = 0;
    virtual void leave() = 0;
    // Why the player failed (disconnected, rejected, dropped); empty while it has not.
    const std::string& failure() const { return m_failure; }
    FrameTimes times;

  protected:
    std::string m_failure;
};

}  // namespace framelock::bench::capacity
