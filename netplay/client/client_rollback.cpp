// The rollback half of Client: run ahead on predicted input, and when the real input turns
// out different, load the state before the first wrong frame and run again to the present.
//
// Time sync comes from the server's timeline (ClockSync): every client runs frame f at the
// same moment, so a player's prediction depth is (its uplink + the other's downlink), the
// same on both sides of every pair when links are symmetric; nobody has to slow down to let
// the other catch up, as peers without a shared clock must. The frame advantage (frames run
// ahead of complete input) is measured and reported.
#include <algorithm>

#include "netplay/client/client.h"
#include "netplay/determinism/state_hash.h"

namespace framelock::netplay {

void Client::rollback_merge_tails(const ServerUpdate& update, Frame first,
                                  std::uint32_t confirmed_before) {
    // Inputs that became confirmed leave the tails.
    const std::uint32_t newly = m_frames.confirmed_end() - confirmed_before;
    for (auto& tail : m_tails) {
        const std::size_t drop = std::min<std::size_t>(tail.size(), newly);
        tail.erase(tail.begin(), tail.begin() + static_cast<std::ptrdiff_t>(drop));
    }
    if (update.tails.empty()) return;
    // The update's tails start right after its confirmed frames; facts never change, so
    // whatever extends what is known is taken (an older update may know less).
    const Frame tail_start = first + static_cast<std::int32_t>(update.frames.size());
    if (tail_start > Frame(m_frames.confirmed_end())) return;  // a gap: wait for the next update
    const auto skip = static_cast<std::size_t>(Frame(m_frames.confirmed_end()) - tail_start);
    const std::size_t players = std::min<std::size_t>(update.tails.size(), m_tails.size());
    for (std::size_t p = 0; p < players; ++p) {
        const auto& incoming = update.tails[p];
        auto& tail = m_tails[p];
        for (std::size_t i = skip + tail.size(); i < incoming.size(); ++i)
            tail.push_back(incoming[i]);
    }
}

bool Client::rollback_inputs(std::uint32_t frame, InputFrame& out, bool& predicted) const {
    predicted = false;
    if (Frame(frame) < Frame(m_frames.confirmed_end())) {
        out = m_frames.confirmed(frame);
        return true;
    }
    const std::uint32_t own_index = frame - m_own_log_base;
    if (!(Frame(frame) < Frame(m_own_log_base + static_cast<std::uint32_t>(m_own_log.size()))))
        return false;
    const std::size_t ahead = frame - m_frames.confirmed_end();
    for (int p = 0; p < players(); ++p) {
        if (p == slot() - 1) {
            out.pads[p] = m_own_log[own_index];
            continue;
        }
        const auto& tail = m_tails[p];
        if (ahead < tail.size()) {
            out.pads[p] = tail[ahead];
        } else {
            // Predict: the player keeps holding what they held last.
            predicted = true;
            out.pads[p] = !tail.empty() ? tail.back() : m_frames.newest_confirmed().pads[p];
        }
    }
    return true;
}

void Client::rollback_correct(bool frame_due_now) {
    // The first frame run with an input that is now known (or predicted) differently.
    std::uint32_t first_wrong = m_frames.next_frame();
    InputFrame now_known;
    bool predicted = false;
    for (std::uint32_t f = m_verified_end; Frame(f) < Frame(m_frames.next_frame()); ++f) {
        if (!rollback_inputs(f, now_known, predicted)) break;
        if (!(now_known == m_ring[f - m_verified_end].used)) {
            first_wrong = f;
            break;
        }
    }
    if (first_wrong == m_frames.next_frame()) return;
    Speculated& from = m_ring[first_wrong - m_verified_end];
    m_emulator.load_state(from.state_before);
    m_emulator.rewind_to(first_wrong);
    const std::uint32_t length = m_frames.next_frame() - first_wrong;
    ++m_stats.rollbacks;
    m_stats.frames_resimulated += length;
    m_stats.longest_rollback = std::max(m_stats.longest_rollback, length);
    for (std::uint32_t f = first_wrong; Frame(f) < Frame(m_frames.next_frame()); ++f) {
        Speculated& s = m_ring[f - m_verified_end];
        if (f != first_wrong) save_before(s);
        rollback_inputs(f, s.used, s.predicted);
        // Only the last re-run frame is shown, and only when no new frame follows at once.
        const bool last = Frame(f + 1) == Frame(m_frames.next_frame());
        m_emulator.run_frame(s.used, last && !frame_due_now);
    }
}

void Client::save_before(Speculated& s) {
    m_emulator.save_state(s.state_before);
    s.memory_before = m_evidence.newest_is_memory() ? memory_hash(m_emulator.memory_regions()) : 0;
}

void Client::rollback_verify() {
    // Frames run with every input confirmed are final: report their hashes, forget them.
    while (Frame(m_verified_end) < Frame(m_frames.confirmed_end()) &&
           Frame(m_verified_end) < Frame(m_frames.next_frame()) && !m_ring.empty()) {
        const std::uint32_t f = m_verified_end;
        const Speculated& s = m_ring.front();
        const InputFrame& confirmed = m_frames.confirmed(f);
        if (!(s.used == confirmed)) break;  // waits for its correction
        if (s.first_predicted) {
            ++m_stats.predicted_frames;
            if (s.first_used == confirmed) ++m_stats.predicted_right;
        }
        if (m_welcome.hash_interval && f % m_welcome.hash_interval == 0) {
            // The state after f: saved before f + 1 if that ran, else the live one.
            const std::uint64_t hash =
                m_ring.size() < 2 ? m_evidence.hash_after(f, m_emulator)
                                  : m_evidence.hash_after(f, m_emulator, &m_ring[1].state_before,
                                                          m_ring[1].memory_before);
            queue_control(encode(m_evidence.report(f, hash)));
        }
        // Snapshots are of verified states only (joiners start from them).
        const bool requested = m_pending_request && m_pending_request->frame == f + 1;
        if (f % m_welcome.snapshot_interval == 0 || requested) {
            std::vector<std::uint8_t> state;
            if (m_ring.size() > 1) {
                state = m_ring[1].state_before;
            } else {
                m_emulator.save_state(state);
            }
            take_snapshot(f + 1, std::move(state));
        }
        m_ring.pop_front();
        m_frames.drop_oldest_confirmed();
        ++m_verified_end;
        if (Frame(m_own_log_base) < Frame(m_verified_end) && !m_own_log.empty()) {
            m_own_log.pop_front();
            ++m_own_log_base;
        }
        if (m_pending_request && m_pending_request->frame == m_verified_end) {
            const StateRequest request = *m_pending_request;
            m_pending_request.reset();
            handle_state_request(request);
        }
    }
}

std::uint32_t Client::rollback_known_end() const {
    // Own inputs are known here before anyone else has them, so the prediction depth counts
    // only the other players' inputs: confirmed, or relayed ahead of confirmation. (Against
    // confirmation alone a far player would wait a whole extra round trip of its own.)
    std::uint32_t known = m_frames.confirmed_end() + 0x7fffffffu;
    bool any = false;
    for (int p = 0; p < players(); ++p) {
        if (p == slot() - 1) continue;
        const std::uint32_t end =
            m_frames.confirmed_end() + static_cast<std::uint32_t>(m_tails[p].size());
        if (!any || Frame(end) < Frame(known)) known = end;
        any = true;
    }
    return any ? known : m_own_log_base + static_cast<std::uint32_t>(m_own_log.size());
}

int Client::run_rollback(Micros now) {
    // Corrections wait for the next frame: everything learned since the last one is then
    // applied in one re-run (several datagrams arrive per frame).
    // A client waiting at the edge of the prediction window shows nothing new, so it does
    // not re-run either until it can go on.
    const std::uint32_t window = std::max<std::uint8_t>(m_welcome.prediction_window, 1);
    const ClientTimeline timeline = this->timeline();
    const bool can_run = now >= timeline.due(m_frames.next_frame()) && m_frames.next_frame() > 0 &&
                         Frame(m_frames.next_frame()) - Frame(rollback_known_end()) <
                             static_cast<std::int32_t>(window) &&
                         Frame(m_frames.next_frame()) <
                             Frame(m_own_log_base + static_cast<std::uint32_t>(m_own_log.size()));
    if (can_run) rollback_correct(true);
    rollback_verify();
    int ran = 0;
    while (ran < m_config.max_catch_up_frames) {
        const Micros due = timeline.due(m_frames.next_frame());
        if (now < due || m_frames.at_stop()) break;
        Speculated s;
        // Beyond the prediction window (or before this player's own input exists) it waits.
        // Frame 0 waits for confirmed input: some cores finish powering on in their first
        // retro_run, so a state saved before it does not load back faithfully.
        const std::int32_t limit =
            m_frames.next_frame() == 0 ? 0 : static_cast<std::int32_t>(window);
        if (!(Frame(m_frames.next_frame()) - Frame(m_frames.next_frame() == 0
                                                       ? m_frames.confirmed_end()
                                                       : rollback_known_end()) <
              limit) ||
            !rollback_inputs(m_frames.next_frame(), s.used, s.predicted)) {
            m_frames.note_blocked(due, now);
            break;
        }
        m_frames.note_unblocked(now, timeline.frame_time());
        s.first_used = s.used;
        s.first_predicted = s.predicted;
        save_before(s);
        const bool behind = now >= timeline.due(m_frames.next_frame() + 1) &&
                            ran + 1 < m_config.max_catch_up_frames;
        // Frames run ahead of complete input, this one included.
        m_stats.advantage_total += static_cast<std::uint64_t>(
            std::max(0, Frame(m_frames.next_frame() + 1) - Frame(rollback_known_end())));
        m_emulator.run_frame(s.used, !behind);
        m_ring.push_back(std::move(s));
        m_frames.count_run(now - due, !behind);
        ++ran;
    }
    rollback_verify();
    return ran;
}

}  // namespace framelock::netplay
