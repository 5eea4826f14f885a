// The frame-lock server. It collects every player's input for each frame, confirms a
// frame once all inputs for it are held, and sends confirmed frames to every client
// (redundantly, until acknowledged). It decides the input delay at each keyframe from
// the clients' measured round trips, compares the clients' state hashes, and drops a
// client that goes silent while the others play on with neutral input in its slot.
//
// Driven by update(): no threads, no callbacks; results come out of poll_event().
// One Server serves one session over its Transport (a dedicated `framelock server`
// runs one Server per session port).
//
// Server itself (server.cpp) is thin: it routes each message to the part it concerns, owns
// the timeline (delay_schedule.h: the Start and each keyframe's delay) and the loop's timed
// work, and takes a member through its life (joining, the start, going away, coming back,
// leaving) across the parts. Each part owns its state, a record of its own in every slot
// (server_slot.h) included:
//   roster.h              the slots and spectators, and the one place a slot's life changes
//   admission.h           who may join and as what: challenges, passwords, rejoin tokens, names
//   input_book.h          inputs filed per slot, frames confirmed, the confirmed history
//   delay_measurements.h  echoes, round-trip reports, loss, copies, the path floor, clocks
//   hash_votes.h          hash votes, the repair they call for, the desync evidence mask
//   state_transfers.h     uploads, the start state, join and resync states
//   hybrid_guard.h        whether the hybrid may go on, and its one switch to the frame lock
//   chat_room.h           chat: each member's rate, the line relayed to every member
// Its settings are in server_config.h, its tuning in server_tuning.h, what it reports in
// server_events.h and slot_stats.h.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"
#include "netplay/server/admission.h"
#include "netplay/server/chat_room.h"
#include "netplay/server/delay_measurements.h"
#include "netplay/server/delay_schedule.h"
#include "netplay/server/hash_votes.h"
#include "netplay/server/hybrid_guard.h"
#include "netplay/server/input_book.h"
#include "netplay/server/roster.h"
#include "netplay/server/server_config.h"
#include "netplay/server/server_events.h"
#include "netplay/server/server_slot.h"
#include "netplay/server/slot_stats.h"
#include "netplay/server/state_transfers.h"
#include "netplay/wire/protocol.h"
#include "netplay/wire/sealed_transport.h"

namespace framelock::netplay {

class Server {
  public:
    Server(Transport& transport, const Clock& clock, ServerConfig config);
    // Its parts hold references to its settings and its event queue: it stays where it is.
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // Processes the network and sends what is due. Call often (every millisecond or on
    // every network event); it never blocks.
    void update();
    // When update() next has timed work to do (a frame's updates, a timeout).
    Micros next_wakeup() const;

    std::optional<ServerEvent> poll_event() { return m_events.poll(); }

    bool started() const { return m_roster.started(); }
    // Started, and every player has left since: the session is over.
    bool ended() const { return m_roster.ended(); }
    Micros start_time_us() const { return m_schedule.start().start_time_us; }
    std::uint32_t confirmed_frames() const {
        return m_book.confirmed_end();
    }  // frames [0, this) confirmed
    int current_delay() const { return m_schedule.current_delay(); }
    // How the session runs now: the hybrid (kRollback) turns into kFrameLock on a desync.
    SessionMode mode() const { return m_config.mode; }
    // The path floor in frames as estimated at the last keyframe with players (0 before any):
    // for client i and players j, an ideal pipeline needs the slowest j's way up plus i's way
    // down. Each way is the worst of the last 10 s as the clients measured it on the
    // synchronised clocks (one_way_trips.h), neither longer than the server's own worst round
    // trip to that client; half that round trip each way until a client reported. The
    // largest of the players' floors (each player's: slot_stats(), and its updates).
    int path_floor() const { return m_measure.path_floor(); }
    // The hybrid: the frames prediction covers now, within the players' re-run budget
    // (DelayMeasurements::decide; 0 outside the hybrid).
    int predicted_frames() const { return m_measure.predicted_frames(); }
    // The delay from frame 0, then one entry per change: the whole session's delay.
    const std::vector<ScheduleEntry>& schedule() const { return m_schedule.history(); }
    // Keyframes decided so far (one delay decision each, changed or not).
    std::uint64_t keyframes() const { return m_schedule.keyframes(); }
    // Frames for which every playing slot reported a state hash and all were equal.
    std::uint64_t hash_frames_matched() const { return m_votes.frames_matched(); }
    std::vector<SlotStats> slot_stats() const;
    int spectators() const { return static_cast<int>(m_roster.spectators().size()); }
    // Chat lines relayed to the members so far.
    std::uint64_t chat_lines() const { return m_chat.relayed(); }
    std::uint16_t snapshot_interval() const { return m_transfers.snapshot_interval(); }
    // Connections closed before their Hello (a flood of half-open connections).
    Admission::HalfOpen half_open() const { return m_admission.half_open(); }
    // The key its Welcomes are signed with: what joiners pin (server_identity.h).
    const ServerKey& server_key() const { return m_admission.server_key(); }
    const InputFrame* confirmed_input(std::uint32_t frame) const {
        return m_book.confirmed_input(frame);
    }

  private:
    FrameTime frame_time() const { return m_schedule.frame_time(); }
    void emit(ServerEvent event) { m_events.emit(std::move(event)); }

    // Messages, each to the part it concerns.
    void handle_message(PeerId peer, Channel channel, std::span<const std::uint8_t> bytes);
    void handle_input(ServerSlot& slot, int slot_number, const ClientInput& input);
    void handle_disconnect(PeerId peer, const std::string& reason);

    // A member's life across the parts.
    void handle_hello(PeerId peer, const Hello& hello);
    void join_running(PeerId peer, const Hello& hello, const Admission::Admit& admit);
    void add_spectator(PeerId peer, const std::string& name);
    void welcome(const ServerSlot& member, int slot_number, bool late, const BoxPublicKey& box_key);
    void maybe_start();
    void activate(ServerSlot& slot, int slot_number, std::uint32_t first_frame);
    void go_away(int slot_number, const std::string& why);
    void drop(int slot_number, ByeReason reason, const std::string& message);

    // The timed work.
    // Confirms what the input book can, deciding the delay at each keyframe on the way.
    void confirm_frames();
    void decide_delay(std::uint32_t keyframe, Micros now);
    void send_update(ServerSlot& slot);
    // Settles the hash votes that can be, and starts the repairs they call for; a desync in
    // the hybrid turns the session into the frame lock for good (hybrid_guard.h).
    void check_hashes();
    // The hybrid ended (`leave`, when it did): the parts are told.
    void leave_hybrid(const std::optional<HybridGuard::Leave>& leave);
    // Sends states where they are wanted (StateTransfers::serve) and takes each member that
    // got one from there.
    void serve_states();
    void trim_history();

    // The transport, sealing every message after a member's Welcome (sealed_transport.h).
    SealedTransport m_transport;
    const Clock& m_clock;
    std::vector<std::string> m_config_adjusted;  // normalized() fills it before m_config
    ServerConfig m_config;
    ServerEvents m_events;
    Roster m_roster;
    // The Start and every keyframe's decision: trimmed with the input book's history, so a
    // long session's updates do not scan an hour of keyframes and its memory stays flat.
    DelaySchedule m_schedule;
    Admission m_admission;
    InputBook m_book;
    DelayMeasurements m_measure;
    HashVotes m_votes;
    StateTransfers m_transfers;
    HybridGuard m_guard;
    ChatRoom m_chat;
};

}  // namespace framelock::netplay
