// A netplay client: runs its Emulator one frame at a time on the server's timeline, only
// ever with every player's confirmed input for that frame (frame lock and no-wait), or ahead
// of it on predicted input, corrected when the real input differs (rollback).
//
// Each frame whose time comes, it samples the local pad for frame f + D (D: the delay in
// force at f, from the server's keyframe schedule), sends its unacknowledged inputs every
// `send_interval` frames, and reports a state hash every `hash_interval` frames. When a
// frame is due but its inputs have not arrived it waits (a stall); when it is more than a
// frame behind it runs frames without presenting them until it has caught up.
//
// The Client is thin: it owns the session's life (connecting, the Welcome, the Start, the
// end) and routes each message and each tick to the parts that own their state:
//   ClientHandshake  the Challenge answered with a Hello, the Welcome's rejoin token
//   ClientLink       the transport: datagrams up with echoes and copies, round trips,
//                    clock offset and loss from what comes back, the server's silence
//   PadSampler       the pad sampled at f for f + D, kept until acknowledged
//   FrameLock        the confirmed-input book, the delay schedule (KeyframeDelays), running
//                    each frame once due (ClientTimeline) with its inputs, stalls
//   ClientRollback   prediction, the ring of saved states, re-simulation
//   ClientTransfer   snapshots, uploads, the start state, joining, resyncs
//   ClientEvidence   the announced evidence masks and the hash a report carries
//
// Driven by tick(): no threads, no callbacks; results come out of poll_event().
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netplay/client/client_evidence.h"
#include "netplay/client/client_handshake.h"
#include "netplay/client/client_link.h"
#include "netplay/client/client_rollback.h"
#include "netplay/client/client_timeline.h"
#include "netplay/client/client_transfer.h"
#include "netplay/client/client_types.h"
#include "netplay/client/correction_log.h"
#include "netplay/client/frame_lock.h"
#include "netplay/client/pad_sampler.h"
#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/emulator.h"
#include "netplay/interfaces/transport.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class Client {
  public:
    enum class State { kIdle, kConnecting, kLobby, kJoining, kRunning, kEnded };

    Client(Transport& transport, const Clock& clock, Emulator& emulator, ClientConfig config);

    void start();  // connect and say Hello
    // Processes the network, then runs every frame that is due and possible. `local_pad`
    // is this player's pad now. Returns how many frames were run.
    int tick(InputWord local_pad);
    // When tick() next has timed work to do (the next frame, the next datagram).
    Micros next_wakeup() const;
    // Says goodbye (reliable) and closes.
    void leave(const std::string& reason);
    // Says `text` in the session's chat (once welcomed; the server relays it to every member,
    // this one too: poll_chat()). kUsage error when there is nothing to say, the client
    // was not welcomed or has ended, or the server has chat off (Welcome::chat). Longer text
    // than kMaxChatBytes is cut on a character's boundary.
    Status say(const std::string& text);
    // Whether the server relays chat (after the Welcome; before it, true).
    bool chat_on() const { return m_welcome.chat; }

    std::optional<ClientEvent> poll_event();
    // The chat lines the server relayed, oldest first, as safe text (from_slot 1..8: a player,
    // 0: a spectator, kChatFromServer: the server's own notice). At most kMaxChatQueued wait:
    // beyond, the oldest are dropped.
    std::optional<ChatLine> poll_chat();
    static constexpr std::size_t kMaxChatQueued = 256;

    State state() const { return m_state; }
    int slot() const { return m_welcome.slot; }
    int players() const { return m_welcome.players; }
    SessionMode mode() const { return m_welcome.mode; }
    std::uint32_t next_frame() const { return m_frames.next_frame(); }
    // Frames [0, this) ran with every player's confirmed input and will not run again
    // (rollback: the verified ones; frame lock: every frame run).
    std::uint32_t final_frames() const {
        return m_welcome.mode == SessionMode::kRollback && !spectator() ? m_rollback.verified_end()
                                                                        : m_frames.next_frame();
    }
    // The next scheduled frame whose pad tick() will sample (bots and tests read their
    // scripted pad for it).
    std::uint32_t next_sample_frame() const { return m_pad.next_sample_frame(); }
    int delay_at(std::uint32_t frame) const;
    ClientStatsSnapshot stats() const;
    // The q-quantile (0..1) of this client's input round trips so far (scheduled sample to
    // confirmation, one per frame), to 0.25 ms; 0 before any.
    Micros round_trip_quantile(double q) const;
    const std::string& end_reason() const { return m_end_reason; }
    bool spectator() const { return m_welcome.role == Role::kSpectator; }
    // After the Welcome: the name the server gave this client (a clash gets a suffix), and a
    // player's rejoin token, which takes its slot back from a new process.
    const std::string& display_name() const { return m_welcome.name; }
    std::optional<RejoinToken> rejoin_token() const { return m_handshake.rejoin_token(); }
    // The key of the server that welcomed this client (the pin, when it had one).
    std::optional<ServerKey> server_key() const { return m_handshake.server_key(); }
    // The transport as this client's messages see it before the seal: what it sends there
    // goes to the server sealed with its keys. For tests and the simulator's modified clients
    // (SealedTransport::rewrite_sends, or a message of their own; the server is peer 1).
    SealedTransport& own_transport() { return m_link.sealed_transport(); }
    // The server said goodbye (the session ended, or it gave the slot up): nothing to rejoin.
    bool closed_by_server() const { return m_closed_by_server; }
    // Slots with a player connected and playing (bit s-1 = slot s), as the server last said.
    std::uint8_t present_slots() const { return m_present; }
    // Joining a running session: how much of its state has arrived (0..1).
    double transfer_progress() const { return m_transfer.progress(); }
    // Before the start: the session's start state is on its way (transfer_progress()).
    bool receiving_start_state() const {
        return m_state == State::kLobby && m_transfer.receiving_start();
    }
    // The frame this client's emulator started from (0, or a late join's state).
    std::uint32_t first_frame() const { return m_transfer.first_frame(); }
    // For a frontend that keeps a desync's evidence (a desync bundle): this player's own
    // state whose next frame is `frame`, while it is kept as a snapshot (nullptr: not or no
    // longer); the states the last repair compared (nullopt: none); the frames at whose
    // multiples the states are kept (a repair's state is of the first after the desync), and
    // the server's time of frame 0 (the same for every player of a session).
    const std::vector<std::uint8_t>* own_state(std::uint32_t frame) const {
        return m_transfer.snapshot_of(frame);
    }
    const std::optional<ResyncEvidence>& last_resync() const { return m_transfer.last_resync(); }
    std::uint16_t snapshot_interval() const { return m_welcome.snapshot_interval; }
    std::int64_t session_start_us() const { return m_start.start_time_us; }

    // The desync evidence mask in force at `frame` (evidence.h), as the server announced it:
    // a hash log that must compare with other players' hashes its states with it.
    const EvidenceMask& evidence_mask_at(std::uint32_t frame) const;

  private:
    FrameTime frame_time() const { return FrameTime(m_start.frame_time_ns); }
    // The session's timeline on this clock, as the clock offset stands now.
    ClientTimeline timeline() const;
    // Where the session stands, for ClientTransfer.
    ClientTransfer::Position transfer_position() const;
    // Whether the next pad sample may be taken once its time comes: a player's, within the
    // lead it may run ahead of its confirmations, with its keyframe's delay known.
    bool may_sample_next() const;
    // How far behind the server's timeline frames run here: a spectator's buffer.
    Micros run_behind_us() const;
    int send_interval() const;

    void handle_message(std::span<const std::uint8_t> bytes);
    void handle_update(const ServerUpdate& update);
    void handle_bulk(std::span<const std::uint8_t> bytes);
    // A joiner's state is loaded: it runs from its frame on.
    void joined();
    void sample_next(InputWord pad);
    int run_frame_lock(Micros now);
    int run_rollback(Micros now);
    // Rollback: each frame made final gets its hash report and snapshot, and is let go.
    void settle_rollback();
    // The hybrid turned into the frame lock and every frame run here is verified: the frame
    // lock runs the next ones, and the server hears from which frame (FrameLockFrom).
    void run_in_frame_lock();
    // The Welcome asked this player to vouch for its savestates: once the check answered
    // (ClientConfig::savestate_check), the SavestateVouch.
    void vouch_if_asked();
    // A state hash report, riding with the next input datagram.
    void report_hash(std::uint32_t frame, std::uint64_t hash);
    void send_input();
    void send_stats();
    void end(const std::string& reason);
    void emit(ClientEvent event) { m_events.push_back(std::move(event)); }

    const Clock& m_clock;
    Emulator& m_emulator;
    ClientConfig m_config;
    State m_state = State::kIdle;
    std::string m_end_reason;
    Welcome m_welcome{};
    Start m_start{};
    bool m_closed_by_server = false;
    bool m_vouched = false;  // vouch_if_asked() sent its SavestateVouch
    std::uint8_t m_present = 0;
    Micros m_last_tick = -1;   // when tick() last ran
    bool m_tick_late = false;  // this tick came late: arrivals waited on the process
    std::deque<ClientEvent> m_events;
    std::deque<ChatLine> m_chat;

    ClientHandshake m_handshake;
    ClientLink m_link;
    PadSampler m_pad;
    FrameLock m_frames;
    ClientRollback m_rollback;
    CorrectionLog m_corrections;  // rollback: what the corrections cost
    ClientTransfer m_transfer;
    ClientEvidence m_evidence;
};

}  // namespace framelock::netplay
