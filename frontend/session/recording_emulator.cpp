#include "frontend/session/recording_emulator.h"

#include <algorithm>
#include <string>

#include "common/log.h"
#include "netplay/determinism/state_hash.h"

namespace framelock::frontend {

void RecordingEmulator::run_frame(const netplay::InputFrame& inputs, bool present) {
    const std::uint64_t frame = m_inner.frame_count();
    const bool picture = m_video && m_picture_frame == frame;
    // A replay's keyframe: the state before this frame, kept until the frame is final (a
    // rollback re-running it keeps the state it runs from then). Not at the replay's first
    // frame, whose state its header holds.
    if (m_record && m_ran_any && frame % netplay::kReplayKeyframeInterval == 0 &&
        frame >= m_flushed_end) {
        // A state over the format's cap is not kept (a reader would pass it over).
        std::vector<std::uint8_t>& state = m_keyframes[frame];
        if (!m_inner.save_state(state) || state.size() > netplay::kMaxReplayStateBytes)
            m_keyframes.erase(frame);
    }
    m_inner.run_frame(inputs, present || picture);
    m_ran_any = true;
    if (m_bundles && m_client)
        m_bundles->after_frame(frame, inputs, m_inner, m_client->snapshot_interval());
    // Frames beyond the requested count can run in the last catch-up tick; the log
    // stops at the count so logs of equal runs have equal length. A frame run again
    // (rollback) replaces its line; lines are written once final (flush_log). A frame
    // already written is not written again: a desync repair re-runs final frames from
    // the reference state, and the log keeps what this emulator computed the first
    // time (the replay must stay contiguous, too).
    if ((m_log || m_record) && (m_log_frames == 0 || frame < m_log_frames) &&
        frame >= m_flushed_end) {
        // The evidence the server compares (the state without the bytes a load moves):
        // logs of two players compare like their hash reports.
        std::uint64_t hash = 0;
        std::uint16_t generation = 0;
        if (m_client) {
            const netplay::EvidenceMask& mask =
                m_client->evidence_mask_at(static_cast<std::uint32_t>(frame));
            hash = netplay::evidence_hash(m_inner, mask, m_scratch);
            generation = mask.generation;
            if (generation > m_newest_mask) {
                // A replay says from which frame its hashes used this mask: this one.
                m_newest_mask = generation;
                m_masks_used.push_back(mask);
                m_masks_used.back().from_frame = static_cast<std::uint32_t>(frame);
            }
        } else {
            hash = m_inner.state_hash();
        }
        m_lines[frame] = {inputs, hash, generation};
    }
    if (picture) m_picture = to_image(m_video->last_frame());
}

void RecordingEmulator::rewind_to(std::uint64_t next_frame) {
    m_inner.rewind_to(next_frame);
    // A rewind before any frame ran is a late join loading the session's state: the
    // state a replay of this client has to start from. (Rollback and repairs rewind
    // only after frames ran.)
    if (m_record && !m_ran_any) {
        m_start_frame = next_frame;
        if (!m_inner.save_state(m_start_state)) m_start_state.clear();
    }
}

void RecordingEmulator::flush_log(std::uint64_t final_frames) {
    m_flushed_end = std::max(m_flushed_end, final_frames);
    bool wrote = false;
    while (!m_lines.empty() && m_lines.begin()->first < final_frames) {
        const auto& [frame, entry] = *m_lines.begin();
        if (m_log) {
            m_log->write_line(std::to_string(frame) + ' ' + netplay::hash_to_hex(entry.hash));
            ++m_logged;
            wrote = true;
        }
        while (m_replay && m_masks_written < m_masks_used.size() &&
               m_masks_used[m_masks_written].generation <= entry.generation) {
            if (Status s = m_replay->add_mask(m_masks_used[m_masks_written]); !s) {
                log_error("{}; recording stopped", s.error().message);
                m_replay = nullptr;
            }
            ++m_masks_written;
        }
        if (const auto keyframe = m_keyframes.find(frame);
            m_replay && keyframe != m_keyframes.end()) {
            if (Status s = m_replay->add_keyframe(static_cast<std::uint32_t>(frame),
                                                  std::move(keyframe->second));
                !s) {
                log_error("{}; recording stopped", s.error().message);
                m_replay = nullptr;
            }
        }
        if (m_replay) {
            if (Status s = m_replay->add({entry.inputs, entry.hash}); !s) {
                log_error("{}; recording stopped", s.error().message);
                m_replay = nullptr;
            }
        }
        m_lines.erase(m_lines.begin());
    }
    m_keyframes.erase(m_keyframes.begin(), m_keyframes.lower_bound(final_frames));
    // Once per step, not per line: a live session's log is watched while it grows (a
    // rejoin is checked against it), and 60 small writes a second cost nothing.
    if (wrote) m_log->flush();
}

}  // namespace framelock::frontend
