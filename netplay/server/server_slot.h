// The server's record of one slot: a player's (Roster::players()) or a spectator's. Its life is
// one explicit state (SlotLife), changed by the Roster only; who holds it is written by the
// Roster and the Server; the rest is one record per part of the server, each record's fields
// private to the part that owns them (a friend), which the other parts read through the
// record's const accessors:
//   InputLane       InputBook          inputs filed and not yet confirmed, acknowledgements
//   LinkRecord      DelayMeasurements  echoes, reports, loss, copies, the client's clock
//   VoteRecord      HashVotes          from when its hashes count, the evidence it owes
//   TransferRecord  StateTransfers     the state on its way, a resync pending
//   ChatRecord      ChatRoom           what it may still say, when it was told it said too much
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"
#include "netplay/timing/clock_check.h"
#include "netplay/timing/loss_counter.h"
#include "netplay/timing/rtt_estimator.h"
#include "netplay/transfer/state_transfer.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class ChatRoom;
class DelayMeasurements;
class HashVotes;
class InputBook;
class Roster;
class StateTransfers;

// A slot's life. A player's: kEmpty -> kPlaying (joined before the start) or
// kAwaitingState (joined a running session, or took its slot back) -> kJoining (holds the
// state: neutral input until its first input) -> kPlaying <-> kAway (silent or
// disconnected, within the reconnect grace) -> kLeft (neutral input for good; before the
// start, back to kEmpty). A spectator's: kAwaitingState (joined a running session) ->
// kWatching, or kWatching from the start.
enum class SlotLife : std::uint8_t {
    kEmpty,
    kAwaitingState,
    kJoining,
    kPlaying,
    kAway,
    kLeft,
    kWatching,
};

// The input book's record of a member (input_book.h): its inputs filed and not yet
// confirmed, and what it acknowledged.
class InputLane {
  public:
    std::uint32_t inputs_end() const { return m_inputs_end; }  // inputs held for [.., this)
    std::uint32_t left_from() const { return m_left_from; }    // after leaving: neutral from here

  private:
    friend class InputBook;
    std::uint32_t m_inputs_end = 0;      // inputs held for frames [.., m_inputs_end)
    std::deque<InputWord> m_pending;     // inputs for [confirmed_end, m_inputs_end)
    std::uint32_t m_left_from = 0;       // after leaving: neutral input from here
    std::uint32_t m_client_ack_end = 0;  // the client holds confirmed frames [0, this)
    // No-wait: the pad used while this slot's input is late, and the newest frame whose
    // input arrived (late inputs newer than it replace the held pad).
    InputWord m_held = 0;
    std::uint32_t m_newest_input = 0;
    bool m_any_input = false;
    struct Arrival {
        std::uint32_t frame = 0;
        Micros at = 0;
        bool stalled = false;  // sampled late by a stalled process (a hiccup its arrival backs)
    };
    std::deque<Arrival> m_arrivals;  // inputs held and not yet confirmed
};

// State transfers' record of a member (state_transfers.h): the state on its way to it.
class TransferRecord {
  public:
    bool sending() const { return m_sender.has_value(); }
    // It was sent a reference state and has not reported loading it: its hashes wait.
    bool resyncing() const { return m_resync_pending; }
    // States it uploaded that did not hash to the reference its frame's vote settled on.
    std::uint64_t states_refused() const { return m_states_refused; }

  private:
    friend class StateTransfers;
    std::optional<StateSender> m_sender;
    bool m_start_loaded = false;    // holds the session's start state (common_start)
    bool m_resync_pending = false;  // a reference state is on its way to it
    std::uint64_t m_states_refused = 0;
};

// The delay measurements' record of a member (delay_measurements.h): what the server
// measures of its link and what it reports of itself.
class LinkRecord {
  public:
    Micros last_update_sent() const { return m_last_update_sent; }
    Micros copy_at() const { return m_copy_at; }  // the last update's copy goes then (-1: none)

  private:
    friend class DelayMeasurements;
    std::uint8_t m_last_client_seq = 0;  // the newest ClientInput, echoed in updates
    Micros m_last_client_seq_at = -1;    // when it arrived (-1: none yet)
    Micros m_last_update_sent = 0;
    std::uint8_t m_next_update_seq = 0;
    // The client's own measurement (ClientStats), 0 = unknown, and what else it reports.
    Micros m_client_srtt = 0, m_client_rttvar = 0;
    // Its worst one-way trips lately, up and down (ClientStats, one_way_trips.h), when they
    // came (-1: never), and this player's path floor from them (frames, 0: not estimated).
    Micros m_client_up = 0, m_client_down = 0, m_client_trips_at = -1;
    int m_path_floor = 0;
    std::uint32_t m_frames_run = 0, m_stall_frames = 0;
    std::uint16_t m_down_loss_permille = 0;
    Micros m_rerun_frame_us = 0;  // a rollback client's cost of re-running a frame (0: unknown)
    std::uint64_t m_datagrams = 0;
    LossCounter m_up_loss;
    // The server's own round trip to the client, its recent worst and best, and the earliest
    // an input arrived after its scheduled sample time lately (all over kCheckWindowUs), for
    // checking what the client reports and for the floor under the delay.
    RttEstimator m_rtt;
    std::array<Micros, 256> m_update_sent_at{};  // by ServerUpdate::seq
    // The confirmed frames each update carried, [first, end) by ServerUpdate::seq, and
    // whether the client echoed it: a frame whose first update never came back may have
    // reached the client only in the next one (resend_gap).
    std::array<std::pair<std::uint32_t, std::uint32_t>, 256> m_update_frames{};
    std::array<bool, 256> m_update_echoed{};
    std::deque<std::pair<Micros, Micros>> m_rtt_max;  // (time, rtt), decreasing rtt
    std::deque<std::pair<Micros, Micros>> m_rtt_min;  // (time, rtt), increasing rtt
    std::deque<std::pair<Micros, Micros>> m_up_min;   // (time, lateness), increasing
    // The latest an input arrived after its sampling lately, inputs of a hiccup left out:
    // the network's own spread, which a hiccup claim must stand out of.
    std::deque<std::pair<Micros, Micros>> m_up_max;  // (time, lateness), decreasing
    // The echo checks: updates sent on this connection (ServerUpdate::seq is its low byte),
    // the newest update an accepted echo named (-1: none yet), and the hold the newest
    // datagram claimed (-1: none).
    std::uint64_t m_updates_sent = 0;
    std::int64_t m_echo_newest = -1;
    Micros m_echo_hold = -1;
    // Claims refused because what the server saw contradicts them, and when each kind was
    // last named in the log (-1: never).
    std::uint64_t m_echoes_refused = 0, m_hiccups_refused = 0;
    Micros m_echo_named_at = -1, m_hiccup_named_at = -1, m_report_named_at = -1;
    std::uint32_t m_report_from = 0;  // the next report covers frames from here
    std::uint64_t m_reports_used = 0, m_reports_inflated = 0, m_reports_hiccup = 0;
    // Redundancy: loss last seen on this link (either direction), how long before its
    // newest loss event the loss before it was seen (-1: none; losses within
    // kLossEventUs are one event), and the copy of the last update still to go out a
    // moment after it.
    Micros m_loss_seen_at = -1;
    Micros m_loss_gap = -1;
    Micros m_burst_seen_at = -1;  // when every copy of two datagrams in a row was last lost
    std::uint8_t m_copies = 1;    // times the last update goes (ServerUpdate::copies)
    std::uint64_t m_up_lost_seen = 0;
    std::uint32_t m_down_lost_seen = 0;
    std::vector<std::uint8_t> m_copy;
    Micros m_copy_sent_at = 0;    // when the update m_copy repeats was first sent
    std::size_t m_copy_next = 0;  // the copy still to go: kCopyOffsetsUs[m_copy_next]
    Micros m_copy_at = -1;
    // Its clock against the server's; whether a refusal or its pace was reported.
    ClockCheck m_clock;
    bool m_clock_refusal_reported = false;
    bool m_named_off_pace = false;
    // Its pace as its inputs show it: the scheduled sampling of each newest input (where the
    // client's timeline stood as it sent) against its arrival, and the newest frame read.
    ClockCheck m_input_pace;
    std::uint32_t m_pace_frame = 0;
    bool m_pace_any = false;
};

// Hash votes' record of a player (hash_votes.h): from when its hashes count, and the
// evidence it owes.
class VoteRecord {
  public:
    // The newest frame it reported a hash for (nullopt: none since it joined).
    std::optional<std::uint32_t> last_hash() const {
        return m_any_hash ? std::optional<std::uint32_t>(m_last_hash_frame) : std::nullopt;
    }

  private:
    friend class HashVotes;
    std::uint32_t m_hash_from = 0;        // reports hashes from this frame on
    std::uint32_t m_hash_valid_from = 0;  // resynced: earlier hashes were the old state's
    std::uint32_t m_last_hash_frame = 0;
    bool m_any_hash = false;
    // It said which bytes its load of the start state moved; hash reports it sent under a
    // mask not in force at their frame.
    bool m_moved_reported = false;
    std::uint64_t m_reports_other_mask = 0;
    // The state it was sent (start, join, resync) whose MovedBytes it owes: (frame, size).
    // Only such a report is taken, once: a player cannot widen the mask at will.
    std::optional<std::pair<std::uint32_t, std::uint32_t>> m_moved_due;
    std::optional<MovedBytes> m_start_moved;  // before the start: its load of the start state
    // After the hybrid turned into the frame lock: the frame from which it runs in frame lock
    // (its FrameLockFrom; a repair reaches it from there only).
    std::optional<std::uint32_t> m_frame_lock_from;
};

// The chat's record of a member (chat_room.h): its rate.
class ChatRecord {
  private:
    friend class ChatRoom;
    // Messages it may say at once now (a token bucket of server_tuning::kChatBurst) as of
    // m_refilled_at (-1: not yet: a full bucket).
    int m_tokens = 0;
    Micros m_refilled_at = -1;
    Micros m_told_at = -1;  // when it last heard that a message was dropped (-1: never)
};

struct ServerSlot {
    // Where the slot is in its life: changed by Roster::set_life() only.
    SlotLife life() const { return m_life; }
    bool taken() const { return m_life != SlotLife::kEmpty; }
    // Taken and not left: a member of the session (away ones too).
    bool in_session() const { return m_life != SlotLife::kEmpty && m_life != SlotLife::kLeft; }
    bool away() const { return m_life == SlotLife::kAway; }
    bool awaiting_state() const { return m_life == SlotLife::kAwaitingState; }
    // Playing: reports hashes, may serve states.
    bool active() const { return m_life == SlotLife::kPlaying && !spectator; }

    // Who holds the slot, as Admission decided: written by Roster::seat() and
    // Roster::add_spectator() (a spectator's slot lives kAwaitingState, then kWatching).
    bool spectator = false;
    PeerId peer = 0;
    std::string name;
    // Written by the Server as it routes messages: when the last well-formed one came, the
    // malformed ones, and (a spectator) whether its refused input was reported already.
    Micros last_heard = 0;
    std::uint64_t malformed = 0;
    bool refused_input = false;

    // Each part's own record of the slot.
    InputLane inputs;
    LinkRecord link;
    VoteRecord votes;
    TransferRecord transfer;
    ChatRecord chat;

  private:
    friend class Roster;
    SlotLife m_life = SlotLife::kEmpty;
    // In kAway: what it was before (an away joiner never played: it is not waited for), and
    // since when.
    SlotLife m_away_from = SlotLife::kPlaying;
    Micros m_away_since = 0;
};

}  // namespace framelock::netplay
