// Chooses the input delay (in frames) that holds from each keyframe on.
//
// A client may run frame f once every player's input for f came back to it through the
// server. That input was sampled D frames before f, so D frames must cover the input
// round trip: the wait for the next datagram (inputs leave every `send_interval`
// frames), the uplink, the server, the downlink, and whatever loss and jitter add to
// that. Clients measure exactly this for every frame (sample time to confirmation) and
// report the worst of each datagram's frames. The delay is the one that covers every
// such round trip of the last `memory_us`, so rare tails (two lost datagrams in a row)
// are covered as long as they keep happening, plus a floor from the worst client's
// smoothed RTT (RFC 6298 SRTT) so a worse network raises the delay at once.
//
// The memory belongs to a network regime: when the worst SRTT moves away from the one
// the regime began with by more than a quarter (and at least a frame), the network has
// changed and the old measurements no longer describe it, whichever way it moved. So an
// improvement lowers the delay within seconds, a frame per keyframe, and the round trips
// measured during a transition (late, but tagged with the old SRTT) do not linger. A
// rise takes effect at the next keyframe (a worse network stalls everyone at once); a
// steady delay is worth more than one that changes back and forth, hence the asymmetry.
#pragma once

#include <deque>

#include "netplay/clock.h"

namespace framelock::netplay {

struct DelayPolicy {
    bool adaptive = true;
    int fixed_delay = 4;  // when !adaptive
    int min_delay = 1;
    int max_delay = 60;
    Micros frame_time_us = 16'667;
    int send_interval = 2;
    Micros margin_us = 1'000;           // the client loop's timing slack
    Micros memory_us = 120'000'000;     // how long a measured round trip is remembered
    Micros lower_after_us = 1'000'000;  // a lower target must hold this long before a step down
    double loss_threshold = 0.005;      // datagram loss that earns one frame of margin
};

class DelayController {
  public:
    explicit DelayController(DelayPolicy policy) : m_policy(policy) {}

    // One measured input round trip (sampling to confirmation at a client), at `now`.
    void add_round_trip(Micros now, Micros round_trip);
    // The worst client's SRTT as it is now (0: unknown); may start a new regime.
    void observe_srtt(Micros srtt_worst);
    // The worst datagram loss rate (either direction) any client sees now. While datagrams
    // are being lost, a longer run of losses than any measured so far is only a matter of
    // time, so the target covers one frame more than the worst remembered round trip.
    void observe_loss(double worst_rate) { m_loss = worst_rate; }

    // The delay the network needs now: covers the round trips remembered in this regime,
    // and the worst SRTT plus batching.
    int target(Micros now);
    // Before any measured round trip (the first delay): from a safe RTT (SRTT + 4 RTTVAR).
    int initial(Micros safe_rtt_worst) const;

    // The delay for a keyframe decided at `now`, given the one in force: rise at once,
    // step down by one once the target stayed lower for `lower_after`.
    int decide(Micros now, int current, int target);

    const DelayPolicy& policy() const { return m_policy; }
    long regimes() const { return m_regimes; }

  private:
    int frames_for(Micros duration) const;

    struct Sample {
        Micros time;
        Micros round_trip;
    };
    DelayPolicy m_policy;
    std::deque<Sample> m_samples;  // this regime's, newest last, decreasing round trips
    Micros m_srtt = 0;             // the worst SRTT now
    Micros m_regime_srtt = 0;      // the worst SRTT when this regime began
    double m_loss = 0;
    long m_regimes = 0;
    Micros m_lower_since = -1;  // since when the target has been below the delay
};

}  // namespace framelock::netplay
