// A frame-lock client: runs its Emulator one frame at a time on the server's timeline,
// only ever with every player's confirmed input for that frame.
//
// Each frame it runs, it samples the local pad for frame f + D (D: the delay in force at
// f, from the server's keyframe schedule), sends its unacknowledged inputs every
// `send_interval` frames, and reports a state hash every `hash_interval` frames. When a
// frame is due but its inputs have not arrived it waits (a stall); when it is more than a
// frame behind it runs frames without presenting them until it has caught up.
//
// Driven by tick(): no threads, no callbacks; results come out of poll_event().
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "netplay/client/client_evidence.h"
#include "netplay/client/client_handshake.h"
#include "netplay/client/client_link.h"
#include "netplay/client/client_rollback.h"
#include "netplay/client/client_timeline.h"
#include "netplay/client/client_types.h"
#include "netplay/client/frame_lock.h"
#include "netplay/client/pad_sampler.h"
#include "netplay/determinism/evidence.h"
#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/emulator.h"
#include "netplay/interfaces/transport.h"
#include "netplay/timing/clock_sync.h"
#include "netplay/timing/frame_time.h"
#include "netplay/timing/loss_counter.h"
#include "netplay/timing/rtt_estimator.h"
#include "netplay/transfer/state_transfer.h"
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

    std::optional<ClientEvent> poll_event();

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
    // The server said goodbye (the session ended, or it gave the slot up): nothing to rejoin.
    bool closed_by_server() const { return m_closed_by_server; }
    // Slots with a player connected and playing (bit s-1 = slot s), as the server last said.
    std::uint8_t present_slots() const { return m_present; }
    // Joining a running session: how much of its state has arrived (0..1).
    double transfer_progress() const { return m_rx.progress(); }
    // Before the start: the session's start state is on its way (transfer_progress()).
    bool receiving_start_state() const {
        return m_state == State::kLobby && m_rx.active() &&
               m_rx.header().purpose == StatePurpose::kStart;
    }
    // The frame this client's emulator started from (0, or a late join's state).
    std::uint32_t first_frame() const { return m_first_frame; }
    // The desync evidence mask in force at `frame` (evidence.h), as the server announced it:
    // a hash log that must compare with other players' hashes its states with it.
    const EvidenceMask& evidence_mask_at(std::uint32_t frame) const;

  private:
    // The session's timeline on this clock, as the clock offset stands now.
    ClientTimeline timeline() const;
    int run_frame_lock(Micros now);
    int run_rollback(Micros now);
    // Rollback: everything learned is applied, the frames due run ahead, the final ones
    // are settled.
    void settle_rollback();
    void handle_message(std::span<const std::uint8_t> bytes);
    void handle_update(const ServerUpdate& update);
    // Whether the next pad sample may be taken once its time comes: a player's, within the
    // lead it may run ahead of its confirmations, with its keyframe's delay known.
    bool may_sample_next() const;
    // How far behind the server's timeline frames run here: a spectator's buffer.
    Micros run_behind_us() const;
    void sample_next(InputWord pad);
    void send_input();
    void answer(const Challenge& challenge);  // says Hello (ClientHandshake)
    void send_stats();
    // A reliable message that rides with the next input datagram (send_input()).
    void queue_control(std::vector<std::uint8_t> message);
    int send_interval() const;
    void end(const std::string& reason);
    // State transfer, snapshots, resync.
    void after_frame(std::uint32_t frame, const InputFrame& inputs);
    void take_snapshot(std::uint32_t next_frame, std::vector<std::uint8_t> state);
    void handle_state_request(const StateRequest& request);
    void upload(std::uint32_t transfer_id, std::uint32_t frame,
                const std::vector<std::uint8_t>& state);
    void handle_bulk(std::span<const std::uint8_t> bytes);
    void apply_join(std::vector<std::uint8_t> state);
    void apply_start(std::vector<std::uint8_t> state);
    bool apply_resync(std::uint32_t frame, const std::vector<std::uint8_t>& state);
    // After loading `state` (of `frame`) into a machine that held `before`: tells the server
    // which bytes the load moved.
    void report_moved(std::span<const std::uint8_t> state, std::uint32_t frame,
                      std::span<const std::uint8_t> before);
    void emit(ClientEvent event) { m_events.push_back(std::move(event)); }

    const Clock& m_clock;
    Emulator& m_emulator;
    ClientConfig m_config;
    State m_state = State::kIdle;
    std::string m_end_reason;

    Welcome m_welcome{};
    ClientLink m_link;
    ClientHandshake m_handshake;
    bool m_closed_by_server = false;
    Start m_start{};
    FrameLock m_frames;
    PadSampler m_pad;
    Micros m_last_tick = -1;   // when tick() last ran
    bool m_tick_late = false;  // this tick came late: arrivals waited on the process

    ClientRollback m_rollback;
    std::deque<ClientEvent> m_events;

    // Own states after every snapshot frame (frame = the next frame to run), newest last,
    // and the confirmed inputs since the oldest: a resync re-runs from one of them.
    struct Snapshot {
        std::uint32_t frame = 0;
        std::vector<std::uint8_t> state;
    };
    std::deque<Snapshot> m_snapshots;
    std::deque<InputFrame> m_history;  // frames [m_history_base, m_next_frame)
    std::uint32_t m_history_base = 0;
    std::optional<StateRequest> m_pending_request;  // for a frame still ahead
    std::optional<StateSender> m_upload;
    StateReceiver m_rx;
    bool m_join_header = false;  // joining: the state's frame is known
    // A state that overtook the Welcome or Start it belongs to.
    std::vector<std::vector<std::uint8_t>> m_early_bulk;
    std::optional<std::pair<std::uint32_t, std::vector<std::uint8_t>>> m_resync_waiting;
    std::uint32_t m_last_desync_frame = 0;
    std::uint32_t m_first_frame = 0;
    ClientEvidence m_evidence;
    std::uint8_t m_present = 0;
};

}  // namespace framelock::netplay
