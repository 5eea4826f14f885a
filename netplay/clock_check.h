// A client's clock, checked against the server's (the seed design's clock checks).
//
// Each ClientStats carries the client's clock (ClientStats::clock_us: its own clock in server
// time by the offset the Welcome gave, never corrected since). A sample is refused when it
// goes backwards, or when it lies minutes away from the server's clock. The samples taken
// measure how fast the client's clock runs against the server's: from the least delayed
// sample at each end of a sliding window (queueing and retransmits only ever make a sample
// late, so the earliest arrivals carry the clocks' true difference). A clock off by more than
// the tolerance over a whole window, on every check for a while after, is off pace: a speed
// hack, or a broken clock. In no-wait mode, where the server's clock decides whose input
// applies when, the server names such a client (Server, ServerEvent::kOffPace).
#pragma once

#include <deque>
#include <optional>

#include "netplay/clock.h"

namespace framelock::netplay {

struct ClockCheckConfig {
    Micros max_offset_us = 180'000'000;  // a sample further from the server's clock: absurd
    Micros window_us = 8'000'000;        // the rate is measured across this much time
    Micros sustain_us = 3'000'000;       // ... and off by more than the tolerance this long
    double tolerance = 0.02;             // rate error allowed (0.02: 2 % fast or slow)
};

class ClockCheck {
  public:
    enum class Verdict {
        kTaken,
        kBackwards,  // refused: earlier than a sample taken before
        kAbsurd,     // refused: further than max_offset_us from the server's clock
    };

    ClockCheck() = default;
    explicit ClockCheck(ClockCheckConfig config) : m_config(config) {}

    // `client_us`: the client's clock as it sent, `server_us`: the server's as it arrived.
    Verdict add(Micros server_us, Micros client_us);
    // Forgets every sample (the client reconnected: a new process, a new clock).
    void reset();

    // The client's clock rate against the server's, less one (0.05: 5 % fast), measured over
    // the newest window; nullopt until the samples span one.
    std::optional<double> rate_error() const { return m_rate_error; }
    // Off by more than the tolerance on every check for sustain_us and more.
    bool off_pace() const;
    long refused() const { return m_refused; }

  private:
    struct Sample {
        Micros server = 0;
        Micros lead = 0;  // client - server
    };
    ClockCheckConfig m_config;
    std::deque<Sample> m_samples;
    std::optional<Micros> m_last_client;
    std::optional<double> m_rate_error;
    Micros m_off_since = -1;  // server time of the first check of the current off-pace run
    Micros m_last_check = -1;
    long m_refused = 0;
};

}  // namespace framelock::netplay
