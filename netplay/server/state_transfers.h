// State transfers: the states the server asks of a player (uploads, received in chunks and
// checked once: format, size and CRC, then its hash against the reference hash the players'
// vote on its frame settled on), the session's start state, and the states it sends to
// joiners, rejoiners and divergent players (a repair's resync), served from the newest
// snapshot it holds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"
#include "netplay/server/delay_schedule.h"
#include "netplay/server/hash_votes.h"
#include "netplay/server/server_config.h"
#include "netplay/server/server_events.h"
#include "netplay/server/server_slot.h"
#include "netplay/transfer/state_transfer.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class StateTransfers {
  public:
    // Every reference outlives the part (the Server's own).
    StateTransfers(Transport& transport, const Clock& clock, const ServerConfig& config,
                   ServerEvents& events);

    // Frames between the snapshots a state is served from: keyframes (a joiner needs that
    // keyframe's delay) that are hash frames (a resync compares a hashed state).
    std::uint16_t snapshot_interval() const { return m_snapshot_interval; }

    // Before the start: asks the first player in (the host) for the start state, and again
    // of another once an upload stalls.
    void prepare_start_state(std::span<const ServerSlot> players);
    // Sends the start state to `member` once it is here, unless it holds it already.
    void offer_start_state(ServerSlot& member, bool started);
    // Every member holds the start state, or there is none to wait for.
    bool start_state_everywhere(std::span<const ServerSlot> players,
                                const std::vector<ServerSlot>& spectators) const;
    // The start state's size once uploaded (nullopt: not yet, or none).
    std::optional<std::uint32_t> start_state_size() const;
    // The host's core cannot save its state: every player starts from its own power-on state.
    bool start_state_refused() const { return m_start_state_refused; }

    // A StateHeader, StateChunk or StateAck from member `number` (0: a spectator): taken,
    // dropped as malformed (the caller counts it), or it completed an upload (serve() checks
    // it against the vote on its frame, then sends it where it is wanted).
    enum class Bulk { kTaken, kMalformed, kCached };
    Bulk handle_bulk(ServerSlot& slot, int number, std::span<const std::uint8_t> bytes,
                     bool started, std::uint32_t confirmed_end, const DelaySchedule& schedule,
                     std::span<ServerSlot> players, std::vector<ServerSlot>& spectators);

    // A state going out to it or coming in from it fills this member's link (its echoes and
    // clock readings measure the transfer, not the path).
    bool busy(const TransferRecord& record, int number) const;
    // When the upload asked for is given up (nullopt: none asked).
    std::optional<Micros> upload_expiry() const;
    // Player `number` left or took its slot back from a new process: its upload is asked
    // again, of whoever is asked next.
    void forget_upload_from(int number);
    void stop_sending(TransferRecord& record) { record.m_sender.reset(); }

    // Checks a completed upload against `votes` once its frame's vote settled: a state that
    // hashes (under the evidence mask of its frame) to the reference is cached; one that does
    // not is refused, counted and its sender named, and another player is asked. Under memory
    // evidence (no state can be hashed) only the state of a player whose own report was the
    // reference is cached. Then sends
    // the cached state to the members waiting for one and to a repair's divergent players,
    // and asks a player for a state when one is needed. Returns each state sent, for the
    // other parts to take the member from there.
    struct Served {
        ServerSlot* member = nullptr;
        StatePurpose purpose = StatePurpose::kJoin;  // kJoin or kResync
        std::uint32_t frame = 0;                     // the state's frame
        std::uint32_t size = 0;                      // its raw size
    };
    std::vector<Served> serve(std::span<ServerSlot> players, std::vector<ServerSlot>& spectators,
                              std::uint32_t confirmed_base, std::uint32_t confirmed_end,
                              const HashVotes& votes);
    // Sends every member the next chunks of the state it is being sent.
    void pump(std::span<ServerSlot> players, std::vector<ServerSlot>& spectators);

    // A desync at `desync_frame`: the players in `slots` (bit s-1: slot s) get the reference
    // state at the first snapshot from there, asked of the players in `holders` (those that
    // reported the reference hash) in turn until one sends a state that hashes to it.
    void start_repair(std::uint32_t desync_frame, std::uint8_t slots, std::uint8_t holders,
                      std::span<const ServerSlot> players);
    bool repairing() const { return m_repair.has_value(); }
    // The member reported it loaded the reference state it was sent.
    void resynced(TransferRecord& record) { record.m_resync_pending = false; }

    // The cached state's frame while it may still serve a joiner (its inputs since are kept).
    std::optional<std::uint32_t> state_to_keep(std::uint32_t confirmed_end) const;

  private:
    struct Upload {
        int slot = 0;
        std::uint32_t id = 0;
        std::uint32_t frame = 0;
        Micros asked_at = 0;
    };
    struct Repair {
        std::uint32_t desync_frame = 0;
        std::uint32_t state_frame = 0;
        std::uint8_t slots = 0;    // bit s-1: slot s gets the state
        std::uint8_t holders = 0;  // bit s-1: slot s may be asked for it (not yet refused)
        int reference = 0;         // the holder asked
        bool sent = false;
    };
    // An upload complete and well formed, waiting for its frame's vote to be checked.
    struct Received {
        int slot = 0;
        PackedState packed;
        std::vector<std::uint8_t> raw;
        Micros at = 0;
    };

    void request_state(std::uint32_t frame, int prefer_slot, std::span<const ServerSlot> players);
    // Gives up on an upload asked for longer than state_request_timeout_us ago (an event
    // naming `what` and the player, who is not asked first again): whether it did.
    bool expire_upload(const char* what, std::span<const ServerSlot> players);
    // Player `number`'s upload failed: it is asked last, and a repair asks its next holder
    // (or is given up when none is left).
    void distrust(int number, std::span<const ServerSlot> players);
    // The check of m_received against the vote on its frame (serve()).
    void check_received(std::span<ServerSlot> players, const HashVotes& votes);

    Transport& m_transport;
    const Clock& m_clock;
    const ServerConfig& m_config;
    ServerEvents& m_events;
    std::uint16_t m_snapshot_interval = 60;
    // The session's start state (common_start) once uploaded; refused: the core cannot save
    // its state, so every player starts from its own power-on state.
    std::optional<PackedState> m_start_state;
    bool m_start_state_refused = false;
    std::optional<Upload> m_upload;
    StateReceiver m_upload_rx;
    std::optional<Received> m_received;
    std::optional<PackedState> m_cached;  // checked: the state the players agreed on
    // A join state is asked of frames after this one (0: any): the players agreed on no state
    // of it (a tie), and a later one is waited for. Said once until a state is agreed again.
    std::uint32_t m_join_after = 0;
    bool m_said_no_agreement = false;
    std::uint32_t m_next_transfer_id = 1;
    std::optional<Repair> m_repair;
    int m_bad_reference = 0;  // the slot whose last upload failed: asked last
};

}  // namespace framelock::netplay
