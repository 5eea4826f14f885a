// Hash votes: the players' state hashes compared frame by frame, a desync named with the
// repair it calls for, and the desync evidence mask (the bytes a load of a state moves, which
// the hashes leave out), widened only by what a player's load of a state the server sent it
// moved.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netplay/interfaces/transport.h"
#include "netplay/server/server_config.h"
#include "netplay/server/server_events.h"
#include "netplay/server/server_slot.h"
#include "netplay/timing/frame_time.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class HashVotes {
  public:
    // Every reference outlives the part (the Server's own).
    HashVotes(Transport& transport, const ServerConfig& config, ServerEvents& events);

    // Player `number`'s HashReport: whether it counts (filed for its frame's vote; a report
    // of a frame nobody ran, of a state a resync replaces or under another mask does not).
    bool file(ServerSlot& slot, int number, const HashReport& report, bool started,
              std::uint32_t confirmed_end);
    // Settles the oldest frame's vote once every playing player reported it (or a report is
    // two intervals and two seconds late): the reference is the hash more players reported
    // than any other; on a tie, the host's (config.host_slot, when it is among the tied), else
    // none: every reporting player is told of the desync and nobody is repaired. Sends Desync
    // and names it when a desync begins. nullopt while the oldest vote waits, or none is left.
    struct Verdict {
        std::uint32_t frame = 0;
        std::uint8_t differing = 0;  // bit s-1: slot s differs from the reference (or, on a
                                     // tie without one, reported at all)
        int reference = 0;           // the first slot holding the reference hash (0: none)
        std::uint8_t holders = 0;    // bit s-1: slot s holds the reference hash
        bool repair = false;         // the divergent players should get the reference state
    };
    std::optional<Verdict> settle(std::span<const ServerSlot> players, std::uint32_t confirmed_end,
                                  FrameTime frame_time);
    // Frames for which every playing slot reported a state hash and all were equal.
    std::uint64_t frames_matched() const { return m_frames_matched; }

    // The session's snapshot interval: the votes on its frames are kept after they settle
    // (vote_on), newest kSettledVotesKept, to check the states uploaded of them.
    void keep_votes_every(std::uint16_t snapshot_interval) { m_keep_every = snapshot_interval; }
    // The vote on hash frame `frame` (a state of frame + 1 is the state after it), for
    // checking a state uploaded of it: still open, settled (its reference hash, 0 on a tie
    // without one; each slot's report; the mask they were made under), or gone (settled and
    // no longer kept, or no report of it counted).
    struct Vote {
        enum class Kind { kOpen, kSettled, kGone };
        Kind kind = Kind::kGone;
        std::uint64_t reference = 0;
        std::array<std::uint64_t, kMaxPlayers> hashes{};  // by slot - 1; 0: none counted
        EvidenceMask mask;
    };
    Vote vote_on(std::uint32_t frame) const;

    // A member was sent a state of `frame` (join): its hashes count from there.
    void count_from(VoteRecord& record, std::uint32_t frame) {
        record.m_hash_from = frame;
        // A joiner welcomed after the hybrid turned into the frame lock runs in frame lock.
        if (m_left_prediction && !record.m_frame_lock_from) record.m_frame_lock_from = frame;
    }
    // A member was sent a state (start, join, resync): the MovedBytes for it is owed, once.
    void owe_moved(VoteRecord& record, std::uint32_t frame, std::uint32_t size) {
        record.m_moved_due.emplace(frame, size);
    }
    // Player `number`, divergent, loaded the reference state (its ResyncReport): its hashes
    // count again from the frame it resumed at.
    void resynced(ServerSlot& slot, int number, const ResyncReport& report);
    // A player took its slot back from a new process: hashes count again once it has a state.
    void new_connection(VoteRecord& record);

    // The hybrid ended (hybrid_guard.h: `reason`, naming the slots `named`): every member is
    // told why (ModeChange) and the event says it. From now on a divergent player is
    // repaired once it said from which frame it runs in frame lock (frame_lock_from), from a
    // state of that frame or later (before, it may still hold frames it ran on predictions).
    void leave_prediction(const std::string& reason, std::uint8_t named,
                          std::uint32_t confirmed_end, std::span<const ServerSlot> players,
                          const std::vector<ServerSlot>& spectators);
    // A player's FrameLockFrom: false when the session never left the hybrid (malformed).
    bool frame_lock_from(VoteRecord& record, std::uint32_t frame);

    // Player `number`'s MovedBytes (what its load of a state moved): false when it was not
    // owed (malformed). Widens the mask for everyone when it moved bytes nobody's did.
    bool handle_moved(ServerSlot& slot, const MovedBytes& moved, bool started,
                      std::uint32_t confirmed_end, std::span<const ServerSlot> players,
                      const std::vector<ServerSlot>& spectators);
    // Before the start: every player said what its load of the start state moved (or none
    // will: no common start).
    bool moved_everywhere(std::span<const ServerSlot> players, bool start_state_refused) const;
    // At the start: the evidence every player hashes from frame 0 on, sent (before Start) when
    // it leaves anything out.
    void start(std::span<ServerSlot> players, const std::vector<ServerSlot>& spectators,
               std::optional<std::uint32_t> start_state_size, bool start_state_refused);
    // Every mask generation kept, oldest first (a joiner's first frame may come before the
    // newest).
    const std::deque<EvidenceMask>& masks() const { return m_mask_history; }

  private:
    // Keeps a settled vote on a snapshot frame (vote_on).
    void keep(std::uint32_t frame, std::uint64_t reference,
              const std::array<std::uint64_t, kMaxPlayers>& hashes);
    void announce_mask(std::uint32_t from_frame, const std::string& why,
                       std::span<const ServerSlot> players,
                       const std::vector<ServerSlot>& spectators);
    std::uint16_t mask_generation_at(std::uint32_t frame) const;

    Transport& m_transport;
    const ServerConfig& m_config;
    ServerEvents& m_events;
    // Each frame's reports, by slot (0: none yet), until its vote is settled.
    std::map<std::uint32_t, std::array<std::uint64_t, kMaxPlayers>> m_hashes;
    // The settled votes on snapshot frames, newest last (vote_on), and the newest frame
    // settled.
    std::uint16_t m_keep_every = 0;
    std::deque<std::pair<std::uint32_t, Vote>> m_settled;
    std::optional<std::uint32_t> m_last_settled;
    std::uint64_t m_frames_matched = 0;
    bool m_in_desync = false;
    bool m_left_prediction = false;  // leave_prediction()
    // The desync evidence mask: the union of what players' loads moved; generation 0 (the
    // whole state) until one moved anything. Each generation's first frame, oldest first.
    EvidenceMask m_mask;
    std::deque<EvidenceMask> m_mask_history;  // every generation kept, with its ranges
    std::uint16_t m_mask_trimmed = 0;         // the newest generation no longer kept
};

}  // namespace framelock::netplay
