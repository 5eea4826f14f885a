// The states a client sends and receives whole (netplay/transfer/state_transfer.h): the
// snapshots a player keeps (its own state at every snapshot interval, with the confirmed
// inputs since the oldest), uploading one when the server asks, the session's start state,
// a running session's state for a late joiner, and a reference state replacing a divergent
// one (resync), naming the memory that differed.
//
// Events go to the queue each call is handed; an error Status means the session ends, with
// its message as the reason.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/client/client_link.h"
#include "netplay/client/client_types.h"
#include "netplay/interfaces/emulator.h"
#include "netplay/transfer/state_transfer.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class ClientTransfer {
  public:
    // Where the session stands, as far as states go (Client::State: kOther for idle or ended).
    enum class Stage { kConnecting, kLobby, kJoining, kRunning, kOther };
    struct Position {
        Stage stage = Stage::kOther;
        std::uint32_t next_frame = 0;  // the next frame to run
        // Frames [.., this) are final here: run with confirmed inputs (rollback: verified).
        std::uint32_t final_end = 0;
    };

    // Snapshots of `emulator`'s state, `snapshots_kept` of them at most.
    ClientTransfer(Emulator& emulator, int snapshots_kept)
        : m_emulator(emulator), m_snapshots_kept(snapshots_kept) {}

    // The Welcome's: this client's slot and role, the session's mode and snapshot interval.
    void configure(const Welcome& welcome);
    // A late joiner's Start: the session's state comes next.
    void expect_join() { m_join_header = false; }
    // Messages that overtook the Welcome or Start they belong to, to be read now.
    std::vector<std::vector<std::uint8_t>> take_early();

    struct Received {
        Status status;  // an error: the session ends
        // A joiner's state is of this header's frame, at its delay: confirmed inputs are
        // collected from there.
        std::optional<StateHeader> join_header;
        bool joined = false;  // a joiner's state is loaded: it runs from first_frame() on
    };
    // A state message (StateHeader, StateChunk or StateAck) from the server.
    Received receive(std::span<const std::uint8_t> bytes, const Position& position,
                     ClientLink& link, std::deque<ClientEvent>& events);
    // The server asks for a state: before the start the start state (this emulator's after
    // power-on, loaded here too), later a snapshot (or the live state of the next frame);
    // one of a frame not yet reached is sent when it is (after_frame(), serve_pending()).
    Status on_request(const StateRequest& request, const Position& position, ClientLink& link,
                      std::deque<ClientEvent>& events);
    // Sends what the server's acknowledgements let the upload send.
    void pump(ClientLink& link);

    // Frame lock: whether the state after `frame` is snapshotted (the caller saves it once, and
    // hashes those bytes for its report when `frame` is a hash frame).
    bool snapshot_due(std::uint32_t frame) const { return !m_spectator && wants_snapshot(frame); }
    // Frame lock: `frame` ran with its confirmed `inputs` (the position is after it): they are
    // kept for a resync, and `state` (the state after it, saved when snapshot_due() said so;
    // empty: none) is the snapshot of the next frame, sent when the server waits for it.
    void after_frame(std::uint32_t frame, const InputFrame& inputs, std::vector<std::uint8_t> state,
                     const Position& position, ClientLink& link);
    // Rollback: whether the state after final `frame` is snapshotted (take_snapshot()), and
    // then the request that waited for it, if any (serve_pending()).
    bool wants_snapshot(std::uint32_t frame) const;
    void take_snapshot(std::uint32_t next_frame, std::vector<std::uint8_t> state);
    void serve_pending(const Position& position, ClientLink& link);
    // A reference state that arrived ahead of this client's present is loaded once the
    // present reaches its frame.
    void resync_if_due(const Position& position, ClientLink& link, std::deque<ClientEvent>& events);
    // The server saw a desync at `frame` (a resync's report names it).
    void note_desync(std::uint32_t frame) { m_last_desync_frame = frame; }
    // The session left the hybrid: this player runs in frame lock from its next frame on
    // (every frame before is verified), and a resync re-runs the frames from there.
    void leave_prediction() {
        m_mode = SessionMode::kFrameLock;
        m_history.clear();
    }

    // This player's own snapshot whose next frame is `frame`, while kept (nullptr: none).
    const std::vector<std::uint8_t>* snapshot_of(std::uint32_t frame) const;
    // The states the last resync compared (nullopt: none yet).
    const std::optional<ResyncEvidence>& last_resync() const { return m_last_resync; }

    // The frame this client's emulator started from (0, or a late join's state).
    std::uint32_t first_frame() const { return m_first_frame; }
    // Joining: the state's frame is known (its confirmed inputs are collected).
    bool join_frame_known() const { return m_join_header; }
    // How much of the state on its way has arrived (0..1).
    double progress() const { return m_rx.progress(); }
    // The state on its way is the session's start state.
    bool receiving_start() const {
        return m_rx.active() && m_rx.header().purpose == StatePurpose::kStart;
    }

  private:
    void serve(const StateRequest& request, const Position& position, ClientLink& link);
    void upload(std::uint32_t transfer_id, std::uint32_t frame,
                const std::vector<std::uint8_t>& state, ClientLink& link);
    Status load_join(std::vector<std::uint8_t> state, ClientLink& link);
    Status load_start(std::vector<std::uint8_t> state, ClientLink& link,
                      std::deque<ClientEvent>& events);
    void resync(std::uint32_t frame, const std::vector<std::uint8_t>& state,
                std::uint32_t next_frame, ClientLink& link, std::deque<ClientEvent>& events);
    // After loading `state` (of `frame`) into a machine that held `before`: tells the server
    // which bytes the load moved.
    void report_moved(std::span<const std::uint8_t> state, std::uint32_t frame,
                      std::span<const std::uint8_t> before, ClientLink& link);
    void emit(std::deque<ClientEvent>& events, ClientEvent::Type type, std::uint32_t frame,
              std::string message) const;

    Emulator& m_emulator;
    int m_snapshots_kept;
    int m_slot = 0;
    bool m_spectator = false;
    SessionMode m_mode = SessionMode::kFrameLock;
    std::uint16_t m_snapshot_interval = Welcome{}.snapshot_interval;

    // Own states after every snapshot frame (frame = the next frame to run), newest last,
    // and the confirmed inputs since the oldest: a resync re-runs from one of them.
    struct Snapshot {
        std::uint32_t frame = 0;
        std::vector<std::uint8_t> state;
    };
    std::deque<Snapshot> m_snapshots;
    std::deque<InputFrame> m_history;  // frames [m_history_base, the next frame to run)
    std::uint32_t m_history_base = 0;
    std::optional<StateRequest> m_pending_request;  // for a frame still ahead
    std::optional<StateSender> m_upload;
    StateReceiver m_rx;
    bool m_join_header = false;  // joining: the state's frame is known
    // A state that overtook the Welcome or Start it belongs to.
    std::vector<std::vector<std::uint8_t>> m_early_bulk;
    std::optional<std::pair<std::uint32_t, std::vector<std::uint8_t>>> m_resync_waiting;
    std::uint32_t m_last_desync_frame = 0;
    std::optional<ResyncEvidence> m_last_resync;
    std::uint32_t m_first_frame = 0;
};

}  // namespace framelock::netplay
