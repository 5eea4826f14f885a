// Hash votes (hash_votes.h): the players' state hashes compared frame by frame, a desync
// named, and the evidence mask (bytes a load moves) that votes leave out.
#include "netplay/server/hash_votes.h"

#include "netplay/determinism/byte_diff.h"
#include "netplay/determinism/evidence.h"
#include "netplay/server/server_tuning.h"

namespace framelock::netplay {

using namespace server_tuning;

HashVotes::HashVotes(Transport& transport, const ServerConfig& config, ServerEvents& events)
    : m_transport(transport), m_config(config), m_events(events) {}

bool HashVotes::file(ServerSlot& slot, int number, const HashReport& report, bool started,
                     std::uint32_t confirmed_end) {
    if (!started || Frame(report.frame) >= Frame(confirmed_end) + 1)
        return false;  // not a frame anyone ran
    VoteRecord& record = slot.votes;
    if (!record.m_any_hash || Frame(report.frame) > Frame(record.m_last_hash_frame)) {
        record.m_last_hash_frame = report.frame;
        record.m_any_hash = true;
    }
    // A report under another mask than the one in force at its frame compares nothing (a
    // player hashed before the new mask reached it).
    if (report.generation != mask_generation_at(report.frame)) {
        ++record.m_reports_other_mask;
        return false;
    }
    // Reports of the state a resync replaces (sent before it was loaded) compare nothing.
    if (slot.transfer.resyncing() || Frame(report.frame) < Frame(record.m_hash_valid_from) ||
        Frame(report.frame) < Frame(record.m_hash_from))
        return false;
    m_hashes[report.frame][number - 1] = report.hash;
    return true;
}

std::optional<HashVotes::Verdict> HashVotes::settle(std::span<const ServerSlot> players,
                                                    std::uint32_t confirmed_end,
                                                    FrameTime frame_time) {
    if (m_hashes.empty()) return std::nullopt;
    const int count = static_cast<int>(players.size());
    auto it = m_hashes.begin();
    const std::uint32_t frame = it->first;
    const auto& hashes = it->second;
    bool complete = true;
    for (int s = 0; s < count; ++s) {
        const ServerSlot& slot = players[s];
        const bool expected = slot.active() && !slot.transfer.resyncing() &&
                              Frame(frame) >= Frame(slot.votes.m_hash_from) &&
                              Frame(frame) >= Frame(slot.votes.m_hash_valid_from);
        if (expected && hashes[s] == 0) complete = false;
    }
    // Wait for missing reports, but not forever: a report two intervals and two seconds
    // late is skipped (with a hash every frame, a far player's reports come frames later).
    const auto two_seconds =
        static_cast<std::uint32_t>(frame_time.known() ? frame_time.frames_in(2'000'000) : 120);
    if (!complete && (m_hashes.size() < 3 ||
                      Frame(confirmed_end) - Frame(frame) < static_cast<std::int32_t>(two_seconds)))
        return std::nullopt;
    // The reference: the hash more players reported than any other. On a tie, the host's
    // when the host runs this server and is among the tied (it could do anything with its
    // own server anyway); else none, so that whoever took the lowest slot of a relay first
    // cannot make its state everyone's by reporting a hash of its own.
    std::map<std::uint64_t, int> votes;
    for (int s = 0; s < count; ++s) {
        if (hashes[s]) ++votes[hashes[s]];
    }
    std::uint64_t reference = 0;
    int best = 0, at_best = 0;
    for (const auto& [hash, n] : votes) {
        if (n > best) {
            best = n;
            reference = hash;
            at_best = 1;
        } else if (n == best) {
            ++at_best;
        }
    }
    const bool tie = at_best > 1;
    const int host = m_config.host_slot;
    const bool host_decides =
        tie && host >= 1 && host <= count && hashes[host - 1] && votes[hashes[host - 1]] == best;
    if (tie) reference = host_decides ? hashes[host - 1] : 0;
    Verdict verdict;
    verdict.frame = frame;
    for (int s = 0; s < count; ++s) {
        if (!hashes[s]) continue;
        if (hashes[s] != reference) {
            verdict.differing |= static_cast<std::uint8_t>(1u << s);
        } else {
            verdict.holders |= static_cast<std::uint8_t>(1u << s);
            if (!verdict.reference) verdict.reference = s + 1;
        }
    }
    if (verdict.differing && !m_in_desync) {
        Desync desync;
        desync.frame = frame;
        desync.differing_slots = verdict.differing;
        desync.hashes.assign(hashes.begin(), hashes.begin() + count);
        for (const ServerSlot& slot : players) {
            if (slot.in_session()) m_transport.send(slot.peer, Channel::kControl, encode(desync));
        }
        std::string who;
        for (int s = 0; s < count; ++s) {
            if (verdict.differing & (1u << s))
                who += (who.empty() ? "" : ", ") + std::to_string(s + 1);
        }
        std::string what;
        if (!reference) {
            what = "slots " + who +
                   " disagree and no state has a majority: nobody's state is the reference, so "
                   "nobody is repaired (on a tie only the player running the server decides)";
        } else {
            what = "slot(s) " + who + " differ from " +
                   (tie ? "the host (a tie: the host runs this server;" : "the majority (") +
                   " reference: slot " + std::to_string(verdict.reference) + ")";
        }
        m_events.emit({ServerEvent::Type::kDesync, 0, frame, 0, verdict.differing,
                       "desync at frame " + std::to_string(frame) + ": " + what});
    }
    verdict.repair = verdict.differing && m_config.repair_desyncs &&
                     m_config.mode != SessionMode::kRollback && verdict.reference;
    if (verdict.repair && m_left_prediction) {
        // Each divergent player must run this frame's successor in frame lock already: the
        // reference state is of a later frame, which it then reaches on confirmed inputs.
        for (int s = 0; s < count; ++s) {
            if (!(verdict.differing & (1u << s))) continue;
            const auto& from = players[static_cast<std::size_t>(s)].votes.m_frame_lock_from;
            if (!from || Frame(*from) > Frame(frame + 1)) verdict.repair = false;
        }
    }
    m_in_desync = verdict.differing != 0;
    if (complete && !verdict.differing) ++m_frames_matched;
    keep(frame, reference, hashes);
    m_hashes.erase(it);
    return verdict;
}

void HashVotes::keep(std::uint32_t frame, std::uint64_t reference,
                     const std::array<std::uint64_t, kMaxPlayers>& hashes) {
    m_last_settled = frame;
    if (!m_keep_every || frame % m_keep_every != 0) return;
    Vote vote;
    vote.kind = Vote::Kind::kSettled;
    vote.reference = reference;
    vote.hashes = hashes;
    // The mask the reports were made under (file() took only those): the newest generation
    // kept whose first frame is at or before this one, or the whole state (generation 0).
    const std::uint16_t generation = mask_generation_at(frame);
    for (const EvidenceMask& mask : m_mask_history) {
        if (mask.generation == generation) vote.mask = mask;
    }
    if (vote.mask.generation != generation) return;  // trimmed: nothing to check with
    m_settled.emplace_back(frame, std::move(vote));
    while (m_settled.size() > kSettledVotesKept) m_settled.pop_front();
}

HashVotes::Vote HashVotes::vote_on(std::uint32_t frame) const {
    for (const auto& [settled, vote] : m_settled) {
        if (settled == frame) return vote;
    }
    Vote vote;
    const bool open =
        m_hashes.count(frame) != 0 || !m_last_settled || Frame(frame) > Frame(*m_last_settled);
    vote.kind = open ? Vote::Kind::kOpen : Vote::Kind::kGone;
    return vote;
}

void HashVotes::resynced(ServerSlot& slot, int number, const ResyncReport& report) {
    // Never earlier than a mask its load widened says (handle_moved, just before).
    if (Frame(report.resumed_frame) > Frame(slot.votes.m_hash_valid_from))
        slot.votes.m_hash_valid_from = report.resumed_frame;
    m_events.emit({ServerEvent::Type::kResynced, number, report.frame, 0, 0,
                   slot.name + " loaded the reference state of frame " +
                       std::to_string(report.frame) + " (first differing hash: frame " +
                       std::to_string(report.desync_frame) + "); differing memory: " +
                       (report.regions.empty() ? "none reported" : report.regions)});
}

void HashVotes::new_connection(VoteRecord& record) {
    record.m_hash_from = record.m_hash_valid_from = 0;
    record.m_any_hash = false;
    // Welcomed into the frame lock: it runs every frame so (from the state it is sent).
    record.m_frame_lock_from.reset();
    if (m_left_prediction) record.m_frame_lock_from = 0;
}

void HashVotes::leave_prediction(const std::string& reason, std::uint8_t named,
                                 std::uint32_t confirmed_end, std::span<const ServerSlot> players,
                                 const std::vector<ServerSlot>& spectators) {
    m_left_prediction = true;
    const std::vector<std::uint8_t> message =
        encode(ModeChange{SessionMode::kFrameLock, confirmed_end, reason});
    for (const ServerSlot& slot : players) {
        if (slot.in_session()) m_transport.send(slot.peer, Channel::kControl, message);
    }
    for (const ServerSlot& spectator : spectators)
        m_transport.send(spectator.peer, Channel::kControl, message);
    m_events.emit({ServerEvent::Type::kModeChanged, 0, confirmed_end, 0, named, reason});
}

bool HashVotes::frame_lock_from(VoteRecord& record, std::uint32_t frame) {
    if (!m_left_prediction) return false;
    // The later of two (a joiner's state, then its own word): a repair waits for both.
    if (!record.m_frame_lock_from || Frame(frame) > Frame(*record.m_frame_lock_from))
        record.m_frame_lock_from = frame;
    return true;
}

bool HashVotes::handle_moved(ServerSlot& slot, const MovedBytes& moved, bool started,
                             std::uint32_t confirmed_end, std::span<const ServerSlot> players,
                             const std::vector<ServerSlot>& spectators) {
    VoteRecord& record = slot.votes;
    if (!started) {
        // A report of the start state's load each, the latest counting (the host's may come
        // before its upload is complete, and another player's state may replace a refused
        // upload); checked against the start state and taken in at the start.
        if (moved.frame != 0) return false;
        record.m_moved_reported = true;
        record.m_start_moved = moved;
        return true;
    }
    // Later only for the state this player was sent (join, resync), once, at its size.
    if (!record.m_moved_due || record.m_moved_due->first != moved.frame ||
        record.m_moved_due->second != moved.state_size)
        return false;
    record.m_moved_due.reset();
    if (!widen_mask(m_mask, moved)) return true;
    // Frames the others may run before the new mask reaches them are compared under the old
    // one; this player's reports from then on only count under the new one.
    const std::uint32_t from = confirmed_end + kMaskLeadFrames;
    if (Frame(record.m_hash_valid_from) < Frame(from)) record.m_hash_valid_from = from;
    announce_mask(from,
                  slot.name + "'s load of the state of frame " + std::to_string(moved.frame) +
                      " moved these bytes",
                  players, spectators);
    return true;
}

void HashVotes::start(std::span<ServerSlot> players, const std::vector<ServerSlot>& spectators,
                      std::optional<std::uint32_t> start_state_size, bool start_state_refused) {
    if (m_config.common_start && start_state_refused) m_mask.kind = EvidenceKind::kMemory;
    for (ServerSlot& slot : players) {
        std::optional<MovedBytes>& moved = slot.votes.m_start_moved;
        if (slot.taken() && moved && start_state_size && moved->state_size == *start_state_size)
            widen_mask(m_mask, *moved);
        moved.reset();
    }
    if (m_mask.kind == EvidenceKind::kMemory || !m_mask.ranges.empty())
        announce_mask(0,
                      start_state_refused ? "the core cannot save its state"
                                          : "loading the start state moved these bytes",
                      players, spectators);
}

void HashVotes::announce_mask(std::uint32_t from_frame, const std::string& why,
                              std::span<const ServerSlot> players,
                              const std::vector<ServerSlot>& spectators) {
    ++m_mask.generation;
    m_mask.from_frame = from_frame;
    m_mask_history.push_back(m_mask);
    while (m_mask_history.size() > kMaskHistory) {
        m_mask_trimmed = m_mask_history.front().generation;
        m_mask_history.pop_front();
    }
    const auto message = encode(m_mask);
    for (const ServerSlot& slot : players) {
        if (slot.in_session()) m_transport.send(slot.peer, Channel::kControl, message);
    }
    // Spectators report nothing, but their hash logs compare with the players'.
    for (const ServerSlot& spectator : spectators)
        m_transport.send(spectator.peer, Channel::kControl, message);
    m_events.emit({ServerEvent::Type::kEvidence, 0, from_frame, 0, 0,
                   m_mask.kind == EvidenceKind::kMemory
                       ? "desyncs are found by comparing the memory the core exposes from frame " +
                             std::to_string(from_frame) + " on (" + why + ")"
                       : "desyncs are found by comparing the state without " +
                             describe_ranges(m_mask.ranges) + " from frame " +
                             std::to_string(from_frame) + " on: " + why +
                             " (a value the core takes when a state is loaded, not game "
                             "state)"});
}

std::uint16_t HashVotes::mask_generation_at(std::uint32_t frame) const {
    // Before the oldest generation kept: the one trimmed last (0: none was).
    std::uint16_t generation = m_mask_trimmed;
    for (const EvidenceMask& mask : m_mask_history) {
        if (Frame(frame) >= Frame(mask.from_frame)) generation = mask.generation;
    }
    return generation;
}

bool HashVotes::moved_everywhere(std::span<const ServerSlot> players,
                                 bool start_state_refused) const {
    // Only loads of the common start state are probed before the start.
    if (!m_config.common_start || start_state_refused) return true;
    for (const ServerSlot& slot : players) {
        if (slot.taken() && !slot.votes.m_moved_reported) return false;
    }
    return true;
}

}  // namespace framelock::netplay
