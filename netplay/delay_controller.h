// Chooses the input delay (in frames) that holds from each keyframe on.
//
// A client runs frame f once every player's input for f reached it through the server.
// That input was sampled D frames earlier, so D frames must cover: the sender's uplink,
// the wait for the sender's next datagram (inputs go out every `send_interval` frames),
// and the downlink to the receiver. Each client's own input makes that same trip, so the
// worst client's round trip alone bounds it. With RFC 6298's safe RTT (SRTT + 4 RTTVAR)
// for that round trip:
//
//     D = ceil((safe_rtt_worst + (send_interval - 1) * frame + margin + loss_margin) / frame)
//
// where loss_margin adds one more datagram interval (upstream) and one frame (downstream)
// when packets are being lost, because a lost datagram's inputs ride in the next one.
//
// Rises at the next keyframe (a worse network stalls everyone at once); falls one frame
// per keyframe only after the target stayed lower for `lower_after` (a delay that
// changes back and forth feels worse than a steady one).
#pragma once

#include <deque>
#include <span>

#include "netplay/clock.h"

namespace framelock::netplay {

struct DelayPolicy {
    bool adaptive = true;
    int fixed_delay = 4;  // when !adaptive
    int min_delay = 1;
    int max_delay = 60;
    Micros frame_time_us = 16'667;
    int send_interval = 2;
    Micros margin_us = 2'000;           // timer and processing slack
    Micros lower_after_us = 2'000'000;  // sustained improvement before stepping down
    double loss_threshold = 0.002;      // loss rate that earns the loss margin
};

struct LinkReport {
    Micros safe_rtt = 0;   // 0: unknown yet
    double up_loss = 0;    // fraction of this client's datagrams lost on the way up
    double down_loss = 0;  // fraction of the server's datagrams lost on the way down
};

class DelayController {
  public:
    explicit DelayController(DelayPolicy policy) : m_policy(policy) {}

    // The delay the network needs right now (no hysteresis).
    int target(std::span<const LinkReport> links) const;

    // The delay for a keyframe decided at `now`, given the one in force: rise at once,
    // fall by one after a sustained lower target.
    int decide(Micros now, int current, int target);

    const DelayPolicy& policy() const { return m_policy; }

  private:
    DelayPolicy m_policy;
    std::deque<std::pair<Micros, int>> m_history;  // (time, target) over lower_after
};

}  // namespace framelock::netplay
