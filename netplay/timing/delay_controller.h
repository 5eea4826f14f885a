// Chooses the input delay (in frames) that holds from each keyframe on.
//
// A client may run frame f once every player's input for f came back to it through the
// server. That input was sampled D frames before f, so D frames must cover the input
// round trip: the slowest player's uplink, the server, this client's downlink, and the
// jitter on both. Inputs leave the moment they are sampled and the server forwards a frame
// the moment its last input arrives, so nothing of the pipeline's own is in that path; a
// lost datagram is covered by redundancy (every unacknowledged input in each datagram, a
// second copy within the frame on lossy links), not by delay.
//
// Clients measure exactly this round trip for every frame (scheduled sample time to
// confirmation) and report the worst of each datagram's frames; the server keeps the
// reports it could check (Server: frames held up by a stalled process, and reports beyond
// its own measurement of the client's link, are left out). The delay covers each client's
// recent tail: the round trip exceeded by no more than `stall_budget` of that client's
// reports of the last `window_us`. A rarer late frame costs that client one stall frame
// instead of every frame a frame of delay. The delay never reads a fixed safety margin
// from the past two minutes: what the network does now is what it costs.
//
// A tail needs evidence: with fewer reports than 1 / stall_budget (about 17 s of them), the
// largest seen is a much lower quantile than the one the budget promises (after 1.5 s, 90
// reports: the 99th percentile, not the 99.9th). On such thin evidence the delay may rise
// and may fall, but not below the target plus a frame: on a real 40 ms link with 2% loss a
// delay lowered to the target at frame 90 stalled each player 3-6 frames before the tail
// showed in the reports.
//
// Each client's window belongs to a regime of its link: when the round trip the server
// measures itself to that client (its SRTT) moves away from the one the regime began with by
// more than a quarter (and at least a frame), that client's old reports no longer describe
// its link and are dropped when it fell. When it rose, the reports of the last second stay:
// they are the new link's first (and lower ones never raise the tail), and dropping them left
// the keyframe after a worse link showed with nothing to rise on. The others' stay: one
// client, honest or not, cannot reset everyone's measurements (a network that changes for
// everyone moves every client's round trip, and drops every client's reports). A rise takes
// effect at the next keyframe (a worse network stalls everyone at once); a fall waits until
// the lower target held for `lower_after_us`, then steps a frame per keyframe: a steady delay
// is worth more than one that changes back and forth.
//
// The hybrid (rollback over this delay, `DelayPolicy::hybrid`): the path a frame lock would
// cover with D frames is covered up to `hybrid_local_delay` frames by delay, and the rest, up
// to `predicted_frames`, by prediction: a player feels at most that local delay while its
// corrections stay within the frames prediction may cover; past them the delay rises again,
// frame for frame. The same measurements, the same rise at once and slow fall.
#pragma once

#include <array>
#include <deque>
#include <vector>

#include "netplay/base/types.h"
#include "netplay/interfaces/clock.h"
#include "netplay/timing/frame_time.h"
#include "netplay/timing/path_floor.h"

namespace framelock::netplay {

struct DelayPolicy {
    bool adaptive = true;
    int fixed_delay = 4;  // when !adaptive
    int min_delay = kDefaultMinDelay;
    int max_delay = kDefaultMaxDelay;
    FrameTime frame_time;  // the session's, once the first player said its core's rate
    Micros margin_us = kDefaultDelayMarginUs;  // the client loop's timing slack
    Micros window_us = 30'000'000;             // how long a reported round trip is remembered
    double stall_budget = 0.001;        // share of a client's reports the delay may not cover
    Micros lower_after_us = 1'000'000;  // a lower target must hold this long before a step down
    // Rollback over the adaptive delay (the class comment): the delay a frame lock would need
    // is covered up to `hybrid_local_delay` by delay and the rest, up to `predicted_frames`
    // (less than the prediction window), by prediction.
    bool hybrid = false;
    int hybrid_local_delay = kDefaultHybridLocalDelay;
    int predicted_frames = 0;
};

class DelayController {
  public:
    explicit DelayController(DelayPolicy policy) : m_policy(policy) {}

    // One reported input round trip of the player in `slot` (1..8), received at `now`.
    void add_round_trip(Micros now, int slot, Micros round_trip);
    // The server's own SRTT to the player in `slot` (1..8) now (0: unknown); may start a new
    // regime of that player's reports.
    void observe_srtt(int slot, Micros srtt);

    // The delay the network needs now: every client's recent tail, within the stall budget.
    int target(Micros now);
    // Whether the last target() saw a client with fewer reports than 1 / stall_budget.
    bool evidence_thin() const { return m_evidence_thin; }
    // Before any reported round trip (the first delay): covers a safe round trip (SRTT +
    // 4 RTTVAR) to the slowest client, measured during the handshake.
    int initial(Micros safe_rtt_worst) const;

    // The delay for a keyframe decided at `now`, given the one in force: rise at once,
    // step down by one once the target stayed lower for `lower_after`.
    int decide(Micros now, int current, int target);

    const DelayPolicy& policy() const { return m_policy; }
    // The hybrid: prediction covers at most `frames` (at most the policy's predicted_frames)
    // from the next decision on, when the players' corrections would not fit otherwise
    // (prediction_budget.h). Fewer predicted frames raise the delay at once; more lower it
    // as any fall does.
    void limit_prediction(int frames) { m_prediction_limit = frames; }
    // The frames prediction covers now (0 outside the hybrid).
    int predicted_frames() const;
    // The hybrid turned into the frame lock (a desync): the delay covers the whole path from
    // the next decision on (a rise: at once).
    void end_hybrid() {
        m_policy.hybrid = false;
        m_prediction_limit = -1;
    }
    // The frames of delay that cover `round_trip` (the policy's margin, minimum and maximum);
    // in the hybrid, what of them prediction does not cover.
    int frames_for(Micros round_trip) const;
    long regimes() const { return m_regimes; }
    // The round trip the last target() covered (the slowest client's tail), us.
    Micros covered_round_trip() const { return m_covered; }

  private:
    struct Sample {
        Micros time;
        Micros round_trip;
    };
    DelayPolicy m_policy;
    std::array<std::deque<Sample>, kMaxPlayers> m_samples;  // per slot, oldest first
    std::vector<Micros> m_scratch;                          // target()'s selection
    std::array<Micros, kMaxPlayers> m_regime_srtt{};  // per slot: its SRTT as its regime began
    Micros m_covered = 0;
    bool m_evidence_thin = true;
    long m_regimes = 0;
    Micros m_lower_since = -1;    // since when the target has been below the delay
    int m_prediction_limit = -1;  // limit_prediction's (-1: the policy's)
    // When a client's SRTT rises into a new regime, its reports of this last span stay.
    static constexpr Micros kKeptOnRiseUs = 1'000'000;
};

}  // namespace framelock::netplay
