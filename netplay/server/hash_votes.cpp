// Hash votes: the players' state hashes compared frame by frame, a desync named, the repair
// of the divergent players, and the evidence mask (bytes a load moves) that votes leave out.
#include "netplay/server/server.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "netplay/determinism/evidence.h"
#include "netplay/determinism/state_hash.h"
#include "netplay/server/server_tuning.h"

namespace framelock::netplay {

using namespace server_tuning;

void Server::handle_hash(int slot_number, const HashReport& report) {
    if (!m_roster.started() || Frame(report.frame) >= Frame(m_confirmed_end) + 1)
        return;  // not a frame anyone ran
    Slot& slot = m_roster.player(slot_number);
    if (!slot.any_hash || Frame(report.frame) > Frame(slot.last_hash_frame)) {
        slot.last_hash_frame = report.frame;
        slot.any_hash = true;
    }
    // A report under another mask than the one in force at its frame compares nothing (a
    // player hashed before the new mask reached it).
    if (report.generation != mask_generation_at(report.frame)) {
        ++slot.reports_other_mask;
        return;
    }
    // Reports of the state a resync replaces (sent before it was loaded) compare nothing.
    if (slot.transfer.resyncing() || Frame(report.frame) < Frame(slot.hash_valid_from) ||
        Frame(report.frame) < Frame(slot.hash_from))
        return;
    m_hashes[report.frame][slot_number - 1] = report.hash;
    check_hashes();
}

void Server::check_hashes() {
    while (!m_hashes.empty()) {
        auto it = m_hashes.begin();
        const std::uint32_t frame = it->first;
        const auto& hashes = it->second;
        bool complete = true;
        for (int s = 0; s < m_config.players; ++s) {
            const Slot& slot = m_roster.player(s + 1);
            const bool expected = slot.active() && !slot.transfer.resyncing() &&
                                  Frame(frame) >= Frame(slot.hash_from) &&
                                  Frame(frame) >= Frame(slot.hash_valid_from);
            if (expected && hashes[s] == 0) complete = false;
        }
        // Wait for missing reports, but not forever: a report two intervals and two seconds
        // late is skipped (with a hash every frame, a far player's reports come frames later).
        const auto two_seconds = static_cast<std::uint32_t>(
            frame_time().known() ? frame_time().frames_in(2'000'000) : 120);
        if (!complete && (m_hashes.size() < 3 || Frame(m_confirmed_end) - Frame(frame) <
                                                     static_cast<std::int32_t>(two_seconds)))
            return;
        // The reference: the majority, or on a tie the host (the lowest slot reporting).
        std::map<std::uint64_t, int> votes;
        int host = 0;
        for (int s = 0; s < m_config.players; ++s) {
            if (!hashes[s]) continue;
            ++votes[hashes[s]];
            if (!host) host = s + 1;
        }
        std::uint64_t reference = host ? hashes[host - 1] : 0;
        int best = host ? votes[reference] : 0;
        for (const auto& [hash, count] : votes) {
            if (count > best) {
                best = count;
                reference = hash;
            }
        }
        std::uint8_t differing = 0;
        int reference_slot = 0;
        for (int s = 0; s < m_config.players; ++s) {
            if (!hashes[s]) continue;
            if (hashes[s] != reference) {
                differing |= static_cast<std::uint8_t>(1u << s);
            } else if (!reference_slot) {
                reference_slot = s + 1;
            }
        }
        if (differing && !m_in_desync) {
            Desync desync;
            desync.frame = frame;
            desync.differing_slots = differing;
            desync.hashes.assign(hashes.begin(), hashes.begin() + m_config.players);
            for (int s = 0; s < m_config.players; ++s) {
                if (m_roster.player(s + 1).in_session()) {
                    m_transport.send(m_roster.player(s + 1).peer, Channel::kControl,
                                     encode(desync));
                }
            }
            std::string who;
            for (int s = 0; s < m_config.players; ++s) {
                if (differing & (1u << s)) who += (who.empty() ? "" : ", ") + std::to_string(s + 1);
            }
            emit({ServerEvent::Type::kDesync, 0, frame, 0, differing,
                  "desync at frame " + std::to_string(frame) + ": slot(s) " + who +
                      " differ from " + (best > 1 ? "the majority" : "the host") +
                      " (reference: slot " + std::to_string(reference_slot) + ")"});
        }
        if (differing && !m_transfers.repairing() && m_config.repair_desyncs &&
            m_config.mode != SessionMode::kRollback && reference_slot) {
            m_transfers.start_repair(frame, differing, reference_slot, m_roster.players());
        }
        m_in_desync = differing != 0;
        if (complete && !differing) ++m_hash_frames_matched;
        m_hashes.erase(it);
    }
}

void Server::handle_moved(int slot_number, const MovedBytes& moved) {
    Slot& slot = m_roster.player(slot_number);
    if (!m_roster.started()) {
        // A report of the start state's load each, the latest counting (the host's may come
        // before its upload is complete, and another player's state may replace a refused
        // upload); checked against the start state and taken in at the start.
        if (moved.frame != 0) {
            ++slot.malformed;
            return;
        }
        slot.moved_reported = true;
        slot.start_moved = moved;
        return;
    }
    // Later only for the state this player was sent (join, resync), once, at its size.
    if (!slot.moved_due || slot.moved_due->first != moved.frame ||
        slot.moved_due->second != moved.state_size) {
        ++slot.malformed;
        return;
    }
    slot.moved_due.reset();
    if (!widen_mask(m_mask, moved)) return;
    // Frames the others may run before the new mask reaches them are compared under the old
    // one; this player's reports from then on only count under the new one.
    const std::uint32_t from = m_confirmed_end + kMaskLeadFrames;
    if (Frame(slot.hash_valid_from) < Frame(from)) slot.hash_valid_from = from;
    announce_mask(from, slot.name + "'s load of the state of frame " + std::to_string(moved.frame) +
                            " moved these bytes");
}

void Server::announce_mask(std::uint32_t from_frame, const std::string& why) {
    ++m_mask.generation;
    m_mask.from_frame = from_frame;
    m_mask_history.push_back(m_mask);
    while (m_mask_history.size() > kMaskHistory) {
        m_mask_trimmed = m_mask_history.front().generation;
        m_mask_history.pop_front();
    }
    const auto message = encode(m_mask);
    for (int s = 0; s < m_config.players; ++s) {
        if (m_roster.player(s + 1).in_session())
            m_transport.send(m_roster.player(s + 1).peer, Channel::kControl, message);
    }
    // Spectators report nothing, but their hash logs compare with the players'.
    for (const Slot& spectator : m_roster.spectators())
        m_transport.send(spectator.peer, Channel::kControl, message);
    emit({ServerEvent::Type::kEvidence, 0, from_frame, 0, 0,
          m_mask.kind == EvidenceKind::kMemory
              ? "desyncs are found by comparing the memory the core exposes from frame " +
                    std::to_string(from_frame) + " on (" + why + ")"
              : "desyncs are found by comparing the state without " +
                    describe_ranges(m_mask.ranges) + " from frame " + std::to_string(from_frame) +
                    " on: " + why +
                    " (a value the core takes when a state is loaded, not game "
                    "state)"});
}

std::uint16_t Server::mask_generation_at(std::uint32_t frame) const {
    // Before the oldest generation kept: the one trimmed last (0: none was).
    std::uint16_t generation = m_mask_trimmed;
    for (const EvidenceMask& mask : m_mask_history) {
        if (Frame(frame) >= Frame(mask.from_frame)) generation = mask.generation;
    }
    return generation;
}

bool Server::moved_everywhere() const {
    // Only loads of the common start state are probed before the start.
    if (!m_config.common_start || m_transfers.start_state_refused()) return true;
    for (int s = 0; s < m_config.players; ++s) {
        if (m_roster.player(s + 1).taken() && !m_roster.player(s + 1).moved_reported) return false;
    }
    return true;
}

}  // namespace framelock::netplay
