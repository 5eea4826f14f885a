// A client's clock, checked against the server's (the seed design's clock checks).
//
// Each ClientStats carries the client's clock (ClientStats::clock_us: its own clock in server
// time by the offset the Welcome gave, never corrected since). A reading is refused when it
// goes backwards, or when it lies minutes away from the server's clock; readings closer than
// min_interval_us to the last one taken are ignored (a client sending them faster buys
// nothing but its own traffic).
//
// The readings taken measure how fast the client's clock runs against the server's. The
// newest window is cut into five bins; in each, the least delayed reading (queueing and
// retransmits only ever make a reading late, so the earliest arrival carries the clocks' true
// difference) stands for the bin. A clock that runs fast or slow moves the difference by the
// same amount from each bin to the next: the client is off pace when all four steps, and the
// whole window, are beyond the tolerance the same way. A change of network delay (a new
// route, a burst of retransmits, a state transfer queueing ahead) moves it in one or two steps
// only and never makes a client off pace. In no-wait mode, where the server's clock decides
// whose input applies when, the server names an off-pace client (Server,
// ServerEvent::kOffPace).
#pragma once

#include <deque>
#include <optional>

#include "netplay/interfaces/clock.h"

namespace framelock::netplay {

struct ClockCheckConfig {
    Micros max_offset_us = 180'000'000;  // a reading further from the server's clock: absurd
    Micros window_us = 10'000'000;       // off pace: over this much time
    double tolerance = 0.02;             // rate error allowed (0.02: 2 % fast or slow)
    Micros min_interval_us = 250'000;    // readings closer to the last one taken: ignored
};

class ClockCheck {
  public:
    enum class Verdict {
        kTaken,
        kIgnored,    // too soon after the last reading taken
        kBackwards,  // refused: earlier than a reading taken before
        kAbsurd,     // refused: further than max_offset_us from the server's clock
    };

    ClockCheck() = default;
    explicit ClockCheck(ClockCheckConfig config) : m_config(config) {}

    // `client_us`: the client's clock as it sent, `server_us`: the server's as it arrived.
    Verdict add(Micros server_us, Micros client_us);
    // Forgets every reading (the client reconnected: a new process, a new clock).
    void reset();
    // Forgets the rate measured so far but not the last reading (a state transfer delays what
    // the client sends: the window starts again after it).
    void restart_window();

    // The client's clock rate against the server's, less one (0.05: 5 % fast), over the
    // newest window; nullopt until the readings fill one.
    std::optional<double> rate_error() const { return m_rate_error; }
    // The newest window's every step beyond the tolerance, the same way.
    bool off_pace() const { return m_off_pace; }
    long refused() const { return m_refused; }

  private:
    struct Sample {
        Micros server = 0;
        Micros lead = 0;  // client - server
    };
    void measure(Micros now);

    ClockCheckConfig m_config;
    std::deque<Sample> m_samples;
    std::optional<Micros> m_last_client;
    Micros m_last_taken = -1;  // server time of the last reading taken
    std::optional<double> m_rate_error;
    bool m_off_pace = false;
    long m_refused = 0;
};

}  // namespace framelock::netplay
