#include "netplay/client/client_rollback.h"

#include <algorithm>

#include "netplay/determinism/evidence.h"

namespace framelock::netplay {

void ClientRollback::configure(int slot, int players, std::uint8_t prediction_window) {
    m_slot = slot;
    m_players = players;
    m_prediction_window = prediction_window;
}

void ClientRollback::start(std::uint8_t delay) {
    m_ring.clear();
    m_verified_end = 0;
    for (auto& tail : m_tails) tail.clear();
    m_own_log.assign(delay, InputWord{0});
    m_own_log_base = 0;
}

void ClientRollback::join(std::uint32_t frame) {
    // Frames before the state are final; what the others relayed ahead is learned again.
    m_verified_end = frame;
    m_ring.clear();
    for (auto& tail : m_tails) tail.clear();
    m_own_log.clear();
    m_own_log_base = frame;
}

void ClientRollback::add_own(InputWord word, std::uint32_t frames, std::uint32_t end) {
    // A joiner's first sample says where its own inputs start (or an empty log its next).
    if (m_own_log.empty() && frames > 0) m_own_log_base = end - frames;
    for (std::uint32_t i = 0; i < frames; ++i) m_own_log.push_back(word);
}

void ClientRollback::merge_tails(const ServerUpdate& update, Frame first,
                                 std::uint32_t confirmed_before, const FrameLock& frames) {
    // Inputs that became confirmed leave the tails.
    const std::uint32_t confirmed_end = frames.confirmed_end();
    const std::uint32_t newly = confirmed_end - confirmed_before;
    for (auto& tail : m_tails) {
        const std::size_t drop = std::min<std::size_t>(tail.size(), newly);
        tail.erase(tail.begin(), tail.begin() + static_cast<std::ptrdiff_t>(drop));
    }
    if (update.tails.empty()) return;
    // The update's tails start right after its confirmed frames; facts never change, so
    // whatever extends what is known is taken (an older update may know less).
    const Frame tail_start = first + static_cast<std::int32_t>(update.frames.size());
    if (tail_start > Frame(confirmed_end)) return;  // a gap: wait for the next update
    const auto skip = static_cast<std::size_t>(Frame(confirmed_end) - tail_start);
    const std::size_t players = std::min<std::size_t>(update.tails.size(), m_tails.size());
    for (std::size_t p = 0; p < players; ++p) {
        const auto& incoming = update.tails[p];
        auto& tail = m_tails[p];
        for (std::size_t i = skip + tail.size(); i < incoming.size(); ++i)
            tail.push_back(incoming[i]);
    }
}

bool ClientRollback::inputs(std::uint32_t frame, const FrameLock& frames, InputFrame& out,
                            bool& predicted) const {
    predicted = false;
    if (Frame(frame) < Frame(frames.confirmed_end())) {
        out = frames.confirmed(frame);
        return true;
    }
    if (!(Frame(frame) < Frame(own_end()))) return false;
    const std::size_t ahead = frame - frames.confirmed_end();
    for (int p = 0; p < m_players; ++p) {
        if (p == m_slot - 1) {
            // Before a joiner's first own input its slot is neutral (the server's filler).
            out.pads[p] = Frame(frame) < Frame(m_own_log_base) ? InputWord{0}
                                                               : m_own_log[frame - m_own_log_base];
            continue;
        }
        const auto& tail = m_tails[p];
        if (ahead < tail.size()) {
            out.pads[p] = tail[ahead];
        } else {
            // Predict: the player keeps holding what they held last.
            predicted = true;
            out.pads[p] = !tail.empty() ? tail.back() : frames.newest_confirmed().pads[p];
        }
    }
    return true;
}

std::uint32_t ClientRollback::known_end(const FrameLock& frames) const {
    // Own inputs are known here before anyone else has them, so the prediction depth counts
    // only the other players' inputs: confirmed, or relayed ahead of confirmation. (Against
    // confirmation alone a far player would wait a whole extra round trip of its own.)
    std::uint32_t known = frames.confirmed_end() + 0x7fffffffu;
    bool any = false;
    for (int p = 0; p < m_players; ++p) {
        if (p == m_slot - 1) continue;
        const std::uint32_t end =
            frames.confirmed_end() + static_cast<std::uint32_t>(m_tails[p].size());
        if (!any || Frame(end) < Frame(known)) known = end;
        any = true;
    }
    return any ? known : own_end();
}

ClientRollback::Correction ClientRollback::correct(Micros now, const ClientTimeline& timeline,
                                                   const FrameLock& frames, Emulator& emulator,
                                                   bool memory_evidence, const Clock& clock) {
    // Corrections wait for the next frame: everything learned since the last one is then
    // applied in one re-run (several datagrams arrive per frame).
    // A client waiting at the edge of the prediction window shows nothing new, so it does
    // not re-run either until it can go on.
    const std::uint32_t window = std::max<std::uint8_t>(m_prediction_window, 1);
    const std::uint32_t next = frames.next_frame();
    const bool can_run =
        now >= timeline.due(next) && next > 0 &&
        Frame(next) - Frame(known_end(frames)) < static_cast<std::int32_t>(window) &&
        Frame(next) < Frame(own_end());
    return can_run ? resimulate(true, frames, emulator, memory_evidence, clock) : Correction{};
}

ClientRollback::Correction ClientRollback::resimulate(bool frame_due_now, const FrameLock& frames,
                                                      Emulator& emulator, bool memory_evidence,
                                                      const Clock& clock) {
    // The first frame run with an input that is now known (or predicted) differently.
    const std::uint32_t next = frames.next_frame();
    std::uint32_t first_wrong = next;
    InputFrame now_known;
    bool predicted = false;
    for (std::uint32_t f = m_verified_end; Frame(f) < Frame(next); ++f) {
        if (!inputs(f, frames, now_known, predicted)) break;
        if (!(now_known == m_ring[f - m_verified_end].used)) {
            first_wrong = f;
            break;
        }
    }
    if (first_wrong == next) return {};
    Speculated& from = m_ring[first_wrong - m_verified_end];
    const Micros load_began = clock.now_us();
    emulator.load_state(from.state_before);
    emulator.rewind_to(first_wrong);
    const Micros load_us = clock.now_us() - load_began;
    const std::uint32_t length = next - first_wrong;
    ++m_rollbacks;
    m_frames_resimulated += length;
    m_longest_rollback = std::max(m_longest_rollback, length);
    for (std::uint32_t f = first_wrong; Frame(f) < Frame(next); ++f) {
        Speculated& s = m_ring[f - m_verified_end];
        if (f != first_wrong) save_before(s, emulator, memory_evidence);
        inputs(f, frames, s.used, s.predicted);
        // Only the last re-run frame is shown, and only when no new frame follows at once.
        const bool last = Frame(f + 1) == Frame(next);
        emulator.run_frame(s.used, last && !frame_due_now);
    }
    return {length, load_us};
}

void ClientRollback::save_before(Speculated& s, Emulator& emulator, bool memory_evidence) {
    emulator.save_state(s.state_before);
    s.memory_before = memory_evidence ? memory_hash(emulator.memory_regions()) : 0;
}

int ClientRollback::run(Micros now, const ClientTimeline& timeline, FrameLock& frames,
                        Emulator& emulator, int max_frames, bool memory_evidence) {
    const std::uint32_t window = std::max<std::uint8_t>(m_prediction_window, 1);
    int ran = 0;
    while (ran < max_frames) {
        const std::uint32_t next = frames.next_frame();
        const Micros due = timeline.due(next);
        if (now < due || frames.at_stop()) break;
        Speculated s;
        // Beyond the prediction window (or before this player's own input exists) it waits.
        // Frame 0 waits for confirmed input: some cores finish powering on in their first
        // retro_run, so a state saved before it does not load back faithfully. So does every
        // frame once the session left the hybrid.
        const bool confirmed_only = next == 0 || m_confirmed_only;
        const std::int32_t limit = confirmed_only ? 0 : static_cast<std::int32_t>(window);
        if (!(Frame(next) - Frame(confirmed_only ? frames.confirmed_end() : known_end(frames)) <
              limit) ||
            !inputs(next, frames, s.used, s.predicted)) {
            frames.note_blocked(due, now);
            break;
        }
        frames.note_unblocked(now, timeline.frame_time());
        s.first_used = s.used;
        s.first_predicted = s.predicted;
        save_before(s, emulator, memory_evidence);
        const bool behind = now >= timeline.due(next + 1) && ran + 1 < max_frames;
        // Frames run ahead of complete input, this one included.
        m_advantage_total +=
            static_cast<std::uint64_t>(std::max(0, Frame(next + 1) - Frame(known_end(frames))));
        emulator.run_frame(s.used, !behind);
        m_ring.push_back(std::move(s));
        frames.count_run(now - due, !behind);
        ++ran;
    }
    return ran;
}

std::optional<ClientRollback::Final> ClientRollback::oldest_final(const FrameLock& frames) const {
    if (!(Frame(m_verified_end) < Frame(frames.confirmed_end()) &&
          Frame(m_verified_end) < Frame(frames.next_frame()) && !m_ring.empty()))
        return std::nullopt;
    // Run with every input confirmed, or waiting for its correction.
    if (!(m_ring.front().used == frames.confirmed(m_verified_end))) return std::nullopt;
    Final final;
    final.frame = m_verified_end;
    // The state after it: saved before the next frame if that ran, else the live one.
    if (m_ring.size() > 1) {
        final.state_after = &m_ring[1].state_before;
        final.memory_after = m_ring[1].memory_before;
    }
    return final;
}

void ClientRollback::retire_oldest(FrameLock& frames) {
    const Speculated& s = m_ring.front();
    if (s.first_predicted) {
        ++m_predicted_frames;
        if (s.first_used == frames.confirmed(m_verified_end)) ++m_predicted_right;
    }
    m_ring.pop_front();
    frames.drop_oldest_confirmed();
    ++m_verified_end;
    if (Frame(m_own_log_base) < Frame(m_verified_end) && !m_own_log.empty()) {
        m_own_log.pop_front();
        ++m_own_log_base;
    }
}

void ClientRollback::fill(ClientStatsSnapshot& stats) const {
    stats.rollbacks = m_rollbacks;
    stats.frames_resimulated = m_frames_resimulated;
    stats.longest_rollback = m_longest_rollback;
    stats.predicted_frames = m_predicted_frames;
    stats.predicted_right = m_predicted_right;
    stats.advantage_total = m_advantage_total;
}

}  // namespace framelock::netplay
