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
// Its code is a file per concern: server.cpp (the loop, a slot's life), admission.cpp
// (who plays), input_book.cpp (inputs in, frames out), delay_measurements.cpp (the delay's
// measurements), hash_votes.cpp (hash votes, repair, evidence), state_transfers.cpp (states);
// its settings in server_config.h, a slot's record in server_slot.h, its tuning in
// server_tuning.h.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"
#include "netplay/server/delay_measurements.h"
#include "netplay/server/delay_schedule.h"
#include "netplay/server/hash_votes.h"
#include "netplay/server/input_book.h"
#include "netplay/server/roster.h"
#include "netplay/server/server_config.h"
#include "netplay/server/server_events.h"
#include "netplay/server/server_slot.h"
#include "netplay/server/slot_stats.h"
#include "netplay/server/state_transfers.h"
#include "netplay/timing/clock_check.h"
#include "netplay/timing/delay_controller.h"
#include "netplay/timing/frame_time.h"
#include "netplay/timing/loss_counter.h"
#include "netplay/timing/rtt_estimator.h"
#include "netplay/transfer/state_transfer.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class Server {
  public:
    Server(Transport& transport, const Clock& clock, ServerConfig config);

    // Processes the network and sends what is due. Call often (every millisecond or on
    // every network event); it never blocks.
    void update();
    // When update() next has timed work to do (a frame's updates, a timeout).
    Micros next_wakeup() const;

    std::optional<ServerEvent> poll_event();

    bool started() const { return m_roster.started(); }
    // Started, and every player has left since: the session is over.
    bool ended() const { return m_roster.ended(); }
    Micros start_time_us() const { return m_schedule.start().start_time_us; }
    std::uint32_t confirmed_frames() const {
        return m_book.confirmed_end();
    }  // frames [0, this) confirmed
    int current_delay() const { return m_schedule.current_delay(); }
    // The path floor in frames, from the server's own round trips, as estimated at the last
    // keyframe with players (0 before any): the slowest playing client's worst round trip of
    // the last 10 s, each of its one-way paths taken as half of it. For client i and players
    // j, an ideal pipeline needs j's uplink plus i's downlink, so the slowest player's round
    // trip bounds every client's need.
    int path_floor() const { return m_measure.path_floor(); }
    // The delay from frame 0, then one entry per change: the whole session's delay.
    const std::vector<ScheduleEntry>& schedule() const { return m_schedule.history(); }
    // Keyframes decided so far (one delay decision each, changed or not).
    std::uint64_t keyframes() const { return m_schedule.keyframes(); }
    // Frames for which every playing slot reported a state hash and all were equal.
    std::uint64_t hash_frames_matched() const { return m_votes.frames_matched(); }
    std::vector<SlotStats> slot_stats() const;
    int spectators() const { return static_cast<int>(m_roster.spectators().size()); }
    std::uint16_t snapshot_interval() const { return m_transfers.snapshot_interval(); }
    const InputFrame* confirmed_input(std::uint32_t frame) const;

  private:
    FrameTime frame_time() const { return m_schedule.frame_time(); }
    using Slot = ServerSlot;
    // A connection that was sent a Challenge and has not said Hello yet.
    struct Pending {
        Nonce nonce{};
        Micros since = 0;
    };

    void handle_message(PeerId peer, Channel channel, std::span<const std::uint8_t> bytes);
    void handle_hello(PeerId peer, const Hello& hello);
    void handle_input(Slot& slot, int slot_number, const ClientInput& input);
    void handle_disconnect(PeerId peer, const std::string& reason);
    void drop(int slot_number, ByeReason reason, const std::string& message);
    void reject(PeerId peer, RejectReason reason, const std::string& message);
    void maybe_start();
    // Confirms what the input book can, deciding the delay at each keyframe on the way.
    void confirm_frames();
    void decide_delay(std::uint32_t keyframe, Micros now);
    void send_update(Slot& slot);
    // Settles the hash votes that can be, and starts the repairs they call for.
    void check_hashes();
    void emit(ServerEvent event) { m_events.emit(std::move(event)); }
    // Late join, reconnect, state transfer.
    // The player slot whose rejoin token the Hello proves (0: none).
    int proven_slot(const Hello& hello, const Nonce& nonce) const;
    // Whether the Hello proves the password its role needs; rejects the peer if not.
    bool check_password(PeerId peer, const Hello& hello, const Nonce& nonce);
    // `wanted`, or with a suffix when another player or spectator goes by it already.
    std::string unique_name(std::string wanted, const Slot* self) const;
    // The display name slot `slot_number` gets for this Hello ("player N" when it asks none).
    std::string player_name(const Hello& hello, int slot_number) const;
    // The first slot nobody holds (0: the session is full).
    int free_slot() const;
    // free_slot(), or 0 after refusing the peer: the session is full, then `advice`.
    int free_slot_or_reject(PeerId peer, const Hello& hello, const std::string& advice);
    // For a refusal: the name asked for is a player's here (a name is no key to a slot).
    std::string name_hint(const Hello& hello) const;
    void hello_running(PeerId peer, const Hello& hello, int proven);
    void add_spectator(PeerId peer, const Hello& hello);
    void go_away(int slot_number, const std::string& why);
    void activate(Slot& slot, int slot_number, std::uint32_t first_frame);
    void welcome(Slot& slot, int slot_number, bool late);
    // Sends states where they are wanted (StateTransfers::serve) and takes each member that
    // got one from there.
    void serve_states();
    void trim_history();

    Transport& m_transport;
    const Clock& m_clock;
    std::vector<std::string> m_config_adjusted;  // normalized() fills it before m_config
    ServerConfig m_config;
    ServerEvents m_events;
    DelayMeasurements m_measure;
    Roster m_roster;
    HashVotes m_votes;
    StateTransfers m_transfers;
    InputBook m_book;
    std::optional<SessionIdentity> m_identity;
    std::string m_content_name;
    Micros m_lobby_full_since = -1;
    // The Start and every keyframe's decision: trimmed with m_confirmed, so a long session's
    // updates do not scan an hour of keyframes and its memory stays flat.
    DelaySchedule m_schedule;
    // The join handshake (join_proof.h): the salt and the keys derived from the passwords,
    // and each connection's Challenge until it says Hello.
    Salt m_salt{};
    std::optional<PasswordKey> m_player_key, m_spectator_key;
    std::map<PeerId, Pending> m_pending;
};

}  // namespace framelock::netplay
