// Rollback: a player runs ahead of the confirmed inputs on predicted ones (each other player
// keeps holding what they held last, unless the server relayed their inputs ahead of
// confirmation), saving the state before every frame into a ring; when the real input turns
// out different, it loads the state before the first wrong frame and runs again to the
// present. A frame run with every player's confirmed input is final: the ring lets it go.
//
// Time sync comes from the server's timeline (ClockSync): every client runs frame f at the
// same moment, so a player's prediction depth is (its uplink + the other's downlink), the
// same on both sides of every pair when links are symmetric; nobody has to slow down to let
// the other catch up, as peers without a shared clock must. The frame advantage (frames run
// ahead of complete input) is measured and reported.
//
// The confirmed inputs, the next frame and the stall counts are FrameLock's; this part keeps
// what only rollback needs, and gets the FrameLock it runs on with each call.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "netplay/base/types.h"
#include "netplay/client/client_timeline.h"
#include "netplay/client/client_types.h"
#include "netplay/client/frame_lock.h"
#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/emulator.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class ClientRollback {
  public:
    // The Welcome's: this player's slot (1..8), the session's slots, and how many frames a
    // player may run ahead of complete input.
    void configure(int slot, int players, std::uint8_t prediction_window);
    // The session starts: this player's inputs for frames [0, delay) are none.
    void start(std::uint8_t delay);
    // A joiner's state is of `frame`: the frames before it are final.
    void join(std::uint32_t frame);
    // A joiner's own inputs start where its first sample puts them (add_own()); the frames
    // before are neutral for its slot (the server's filler while it joins).
    void forget_own() { m_own_log.clear(); }
    // This player's input `word` for its next `frames` frames (PadSampler::Sampled), the
    // last of them `end` - 1.
    void add_own(InputWord word, std::uint32_t frames, std::uint32_t end);
    // Takes the other players' inputs the server relays ahead of confirmation from `update`,
    // whose frames FrameLock filed from `first` on (the book ended at `confirmed_before`).
    void merge_tails(const ServerUpdate& update, Frame first, std::uint32_t confirmed_before,
                     const FrameLock& frames);

    // Frames [.., this) are final: they ran with every player's confirmed input.
    std::uint32_t verified_end() const { return m_verified_end; }
    // The session left the hybrid (a desync): no frame runs ahead of its confirmed inputs from
    // now on; the frames run on predictions before are corrected and verified as usual.
    void stop_predicting() { m_confirmed_only = true; }
    bool predicting() const { return !m_confirmed_only; }
    // Every frame run is verified: nothing is left to correct.
    bool all_verified() const { return m_ring.empty(); }

    // Everything learned since the last frame, applied in one re-run from the first frame
    // whose input is now known differently, when the next frame may run at `now`.
    // `memory_evidence`: saved states keep their memory's hash (ClientEvidence). Returns the
    // frames run again (depth 0: nothing to correct) and what loading the state took on
    // `clock` (what the frames took the caller times: CorrectionLog).
    struct Correction {
        std::uint32_t depth = 0;
        Micros load_us = 0;
    };
    Correction correct(Micros now, const ClientTimeline& timeline, const FrameLock& frames,
                       Emulator& emulator, bool memory_evidence, const Clock& clock);
    // Runs the frames due at `now` (at most `max_frames`) on the best inputs known, within the
    // prediction window. Returns how many ran.
    int run(Micros now, const ClientTimeline& timeline, FrameLock& frames, Emulator& emulator,
            int max_frames, bool memory_evidence);

    // The oldest frame run, once it ran with every player's confirmed input: final. The state
    // after it is the one saved before the next frame (`state_after`, with its memory hash),
    // or the live machine's when no frame ran after it (null). Valid until retire_oldest().
    struct Final {
        std::uint32_t frame = 0;
        const std::vector<std::uint8_t>* state_after = nullptr;
        std::uint64_t memory_after = 0;
    };
    std::optional<Final> oldest_final(const FrameLock& frames) const;
    // Lets the oldest final frame go (here and in the book), counting how its prediction did.
    void retire_oldest(FrameLock& frames);

    // Rollbacks, re-run frames, predictions and frame advantage.
    void fill(ClientStatsSnapshot& stats) const;

  private:
    // Every frame run but not yet verified (run with confirmed inputs), with the inputs it ran
    // with and the state before it: frames [m_verified_end, FrameLock::next_frame()).
    struct Speculated {
        InputFrame used;
        InputFrame first_used;         // as first run (prediction accuracy)
        bool predicted = false;        // as last run
        bool first_predicted = false;  // as first run
        std::vector<std::uint8_t> state_before;
        std::uint64_t memory_before = 0;  // with memory as the evidence: its hash (evidence.h)
    };
    // The best input known now for `frame` (>= m_verified_end), predicting the players whose
    // input has not arrived; false when this player's own is not sampled yet.
    bool inputs(std::uint32_t frame, const FrameLock& frames, InputFrame& out,
                bool& predicted) const;
    // Frames [.., this) have every other player's real input (confirmed or relayed ahead).
    std::uint32_t known_end(const FrameLock& frames) const;
    std::uint32_t own_end() const {
        return m_own_log_base + static_cast<std::uint32_t>(m_own_log.size());
    }
    // Returns the frames run again.
    Correction resimulate(bool frame_due_now, const FrameLock& frames, Emulator& emulator,
                          bool memory_evidence, const Clock& clock);
    // Saves the machine into `s` (state, and memory hash when memory is the evidence).
    static void save_before(Speculated& s, Emulator& emulator, bool memory_evidence);

    int m_slot = 0;
    int m_players = 0;
    std::uint8_t m_prediction_window = 0;
    bool m_confirmed_only = false;  // stop_predicting()
    std::deque<Speculated> m_ring;
    std::uint32_t m_verified_end = 0;
    // Each slot's inputs the server holds beyond the confirmed frames (index = slot - 1).
    std::array<std::deque<InputWord>, kMaxPlayers> m_tails;
    // This player's own inputs from m_own_log_base on (known before the server has them);
    // a joiner's start after m_verified_end, where its first sample put them.
    std::deque<InputWord> m_own_log;
    std::uint32_t m_own_log_base = 0;

    std::uint32_t m_rollbacks = 0;
    std::uint32_t m_frames_resimulated = 0;
    std::uint32_t m_longest_rollback = 0;
    std::uint32_t m_predicted_frames = 0;
    std::uint32_t m_predicted_right = 0;
    std::uint64_t m_advantage_total = 0;
};

}  // namespace framelock::netplay
