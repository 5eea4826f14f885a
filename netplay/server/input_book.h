// The input book: every player's inputs filed by frame, the frames confirmed from them (frame
// lock: once every playing slot's input is held; no-wait: at the frame's deadline, with what
// has arrived), the confirmed history kept for clients that have not acknowledged it and for
// joiners, and an update's share of it (frames, decisions, rollback tails).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "netplay/interfaces/clock.h"
#include "netplay/server/delay_schedule.h"
#include "netplay/server/server_config.h"
#include "netplay/server/server_slot.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

// How long after its sampling a confirmed frame was confirmed, and whether a stalled process
// held it up (its last input came from a hiccup the server saw: DelayMeasurements::hiccup):
// what a client's round-trip report is checked against.
struct Confirmation {
    Micros lateness = 0;
    bool stalled = false;
};

// The confirmations of the newest confirmed frames (server_tuning::kInfoFrames of them).
class ConfirmationLog {
  public:
    void add(std::uint32_t frame, Confirmation confirmation);
    // nullptr: older than the log reaches, or not confirmed yet.
    const Confirmation* find(std::uint32_t frame) const;

  private:
    std::deque<Confirmation> m_frames;
    std::uint32_t m_base = 0;  // m_frames[0] is this frame's
};

class InputBook {
  public:
    // `config` outlives the book (the Server's own).
    explicit InputBook(const ServerConfig& config) : m_config(config) {}

    // At the start: frames [0, delay) are confirmed neutral (no input was sampled before
    // frame 0), and every player's inputs are held up to there.
    void start(int delay, std::span<ServerSlot> players);

    std::uint32_t confirmed_end() const { return m_confirmed_end; }    // [0, this) confirmed
    std::uint32_t confirmed_base() const { return m_confirmed_base; }  // the oldest kept
    const InputFrame* confirmed_input(std::uint32_t frame) const;
    // How the newest confirmed frames were confirmed.
    const ConfirmationLog& confirmations() const { return m_confirmations; }

    // A member's ClientInput. The confirmed frames it holds, [0, this) (its acknowledgement,
    // expanded against the newest confirmed frame); taken by note_ack() when it is news.
    std::uint32_t ack_end(const ClientInput& input) const;
    void note_ack(InputLane& lane, std::uint32_t ack_end);
    // The frame of its first input (expanded against the inputs held).
    std::uint32_t first_frame(const InputLane& lane, const ClientInput& input) const;
    // Further ahead of confirmation than an input may run (max_frames_ahead).
    bool too_far(std::uint32_t frame) const;
    // A joiner's or an away player's first input: its inputs start at `first`, the frames
    // before it (not yet confirmed) neutral; what it sent for confirmed frames is dropped.
    void fill_to(InputLane& lane, std::uint32_t first);
    // Files the inputs, the first for frame `first`, arrived at `now` (`stalled`: sampled late
    // by a stalled process, as their arrival shows). The frames newly held, [from, end), and the
    // first one dropped for running too far ahead, if any. In no-wait mode a late input (its frame
    // went out without it) becomes the pad held for the next frame confirmed without this player's
    // input.
    struct Filed {
        std::uint32_t from = 0, end = 0;
        std::optional<std::uint32_t> too_far;
    };
    Filed file(InputLane& lane, const ClientInput& input, std::uint32_t first, Micros now,
               bool stalled);

    // A player goes away or takes its slot back: no held pad until it sends one.
    void forget_held(InputLane& lane) { lane.m_held = 0; }
    // A player left: neutral input for good from the frame after its last input.
    void leave(InputLane& lane) { lane.m_left_from = lane.m_inputs_end; }
    // A member was sent a state of `frame`: it holds the confirmed frames before it.
    void restart_at(InputLane& lane, std::uint32_t frame) { lane.m_client_ack_end = frame; }

    // Confirms every frame it can. `absent` (bit s-1: slot s) gets neutral input without being
    // waited for. Stops at a frame still waiting for input (kWaiting), before a keyframe whose
    // delay is not decided yet (kKeyframe: record the decision in `schedule`, then call again),
    // or when one player alone held everyone back for client_timeout_us (kStuck: `slot`, and
    // `why`, for the caller to drop).
    struct Step {
        enum class Kind { kWaiting, kKeyframe, kStuck };
        Kind kind = Kind::kWaiting;
        std::uint32_t frame = 0;
        int slot = 0;
        std::string why;
    };
    Step confirm(std::span<ServerSlot> players, std::uint8_t absent, const DelaySchedule& schedule,
                 Micros now);
    // Since when confirmation waits on the same frame (-1: it does not).
    Micros blocked_since() const { return m_blocked_since; }

    // An update's share for `member`: its input acknowledgement and, once the session runs and
    // the member holds a state, the confirmed frames and decisions it may not hold yet (and in
    // rollback mode every present player's inputs beyond confirmation). The confirmed frames it
    // carries, [first, end).
    std::pair<std::uint32_t, std::uint32_t> write(ServerUpdate& update, const ServerSlot& member,
                                                  std::span<const ServerSlot> players,
                                                  std::uint8_t absent,
                                                  const DelaySchedule& schedule,
                                                  bool started) const;
    // Frames confirmed (or, in rollback mode, inputs filed) since the last round of updates.
    bool news() const;
    void updates_sent();

    // Forgets the confirmed frames nobody needs: kept while a member has not acknowledged them,
    // for history_frames in any case (joiners and resyncs start in the past), and from
    // `state_frame` on (a cached state still serving joiners).
    void trim(std::span<const ServerSlot> players, const std::vector<ServerSlot>& spectators,
              std::optional<std::uint32_t> state_frame);

  private:
    const ServerConfig& m_config;
    std::uint32_t m_confirmed_end = 0;   // frames [0, this) are confirmed
    std::uint32_t m_confirmed_base = 0;  // m_confirmed[0] is this frame
    std::deque<InputFrame> m_confirmed;  // kept while some client may still need them
    ConfirmationLog m_confirmations;
    std::uint32_t m_last_sent_end = 0;
    std::uint64_t m_inputs_seen = 0, m_last_sent_inputs = 0;  // rollback: any input news
    Micros m_blocked_since = -1;  // since when confirmation waits on the same frame
};

}  // namespace framelock::netplay
