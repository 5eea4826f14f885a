// Confirmation: inputs in, frames confirmed (frame lock: when every input is held; no-wait:
// at the frame's deadline), and the updates that carry them, with the delay schedule, to
// every client.
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

void Server::handle_input(Slot& slot, const ClientInput& input) {
    const Micros now = m_clock.now_us();
    ++slot.datagrams;
    const bool newest = slot.up_loss.record(input.seq);
    if (slot.up_loss.lost() > slot.up_lost_seen) note_loss(slot, now);
    slot.up_lost_seen = slot.up_loss.lost();
    if (newest) {
        slot.last_client_seq = input.seq;
        slot.last_client_seq_at = now;
        int number = 0;
        m_roster.member(slot.peer, number);
        note_echo(slot, number, input);
    }
    if (!m_roster.started()) return;
    // An input round trip includes the wait for every player's input: while a player is
    // going away (its silence, before the slot turns neutral) or away with the session
    // paused, that wait is the absence, not the network, and must not raise the delay.
    // Nor does what an away player reports as it comes back: after a network outage its
    // first datagram carries the round trip of a frame confirmed before the outage and
    // heard of only after it (activate() below starts the settling time for the others).
    const bool absence = m_roster.unsettled(slot, now);
    const Frame acked = expand_frame(input.confirmed_ack, Frame(m_confirmed_end));
    const std::uint32_t ack_end = acked.value() + 1;
    if (newest && !slot.spectator) {
        int number = 0;
        m_roster.member(slot.peer, number);
        if (input.latency_100us && !absence && number)
            note_round_trip_report(slot, number, input, ack_end);
        if (Frame(ack_end) <= Frame(m_confirmed_end) && Frame(ack_end) > Frame(slot.report_from))
            slot.report_from = ack_end;
    }
    if (Frame(ack_end) <= Frame(m_confirmed_end) && Frame(ack_end) > Frame(slot.client_ack_end)) {
        slot.client_ack_end = ack_end;
    }
    const std::uint32_t first = expand_frame(input.first_frame, Frame(slot.inputs_end)).value();
    if ((slot.life() == SlotLife::kJoining || slot.away()) && !slot.spectator &&
        !input.inputs.empty()) {
        int number = 0;
        m_roster.member(slot.peer, number);
        // activate() fills the gap up to `first` with neutral input: never further than an
        // input may run ahead, or the frames between would all be confirmed at once.
        if (Frame(first) - Frame(m_confirmed_end) >
            static_cast<std::int32_t>(m_config.max_frames_ahead)) {
            ++slot.malformed;
            emit({ServerEvent::Type::kMalformed, number, first, 0, 0,
                  "input too far ahead of the session dropped"});
            return;
        }
        activate(slot, number, first);
    }
    for (std::size_t i = 0; i < input.inputs.size(); ++i) {
        const Frame frame = Frame(first) + static_cast<std::int32_t>(i);
        if (m_config.mode == SessionMode::kNoWait && frame < Frame(slot.inputs_end)) {
            // Late (its frame went out without it): the newest such pad applies from the
            // next frame confirmed without this player's input.
            if (!slot.any_input || frame > Frame(slot.newest_input)) {
                slot.held = input.inputs[i];
                slot.newest_input = frame.value();
                slot.any_input = true;
            }
            continue;
        }
        if (frame < Frame(slot.inputs_end)) continue;  // already held
        if (frame > Frame(slot.inputs_end)) break;     // a gap: the next datagram repeats it
        if (frame - Frame(m_confirmed_end) > static_cast<std::int32_t>(m_config.max_frames_ahead)) {
            ++slot.malformed;
            emit({ServerEvent::Type::kMalformed, m_roster.slot_of(slot.peer), frame.value(), 0, 0,
                  "input too far ahead of the session dropped"});
            break;
        }
        slot.pending.push_back(input.inputs[i]);
        const bool stalled = input.late_ms >= kStalledMs;
        slot.arrivals.push_back({frame.value(), now, stalled});
        if (!stalled) {
            // How long after its scheduled sampling this input arrived: the client's uplink
            // (plus its clock's offset error, which its downlink reports carry the other way).
            const Micros up = now - m_schedule.sample_time(frame.value());
            while (!slot.up_min.empty() && slot.up_min.back().second >= up) slot.up_min.pop_back();
            slot.up_min.emplace_back(now, up);
            while (slot.up_min.front().first < now - kCheckWindowUs) slot.up_min.pop_front();
        }
        ++slot.inputs_end;
        ++m_inputs_seen;
        slot.newest_input = frame.value();
        slot.any_input = true;
    }
}

void Server::confirm_frames() {
    const Micros now = m_clock.now_us();
    // With nobody left playing there is nothing to confirm (and no end to neutral frames).
    if (m_roster.ended()) return;
    // Likewise with every player absent at once (all away, or away and joining): nobody's
    // input bounds the loop below, which would confirm neutral frames until memory runs
    // out. Confirmation resumes when a player is back (activate() fills its gap).
    bool anyone_playing = false;
    for (int s = 0; s < m_config.players; ++s)
        anyone_playing |= !m_roster.absent(m_roster.player(s + 1));
    if (!anyone_playing) return;
    for (;;) {
        const std::uint32_t g = m_confirmed_end;
        // Absent slots (never joined, gone, away, joining) get neutral input without
        // anyone waiting for them.
        for (int s = 0; s < m_config.players; ++s) {
            Slot& slot = m_roster.player(s + 1);
            if (m_roster.absent(slot) && Frame(slot.inputs_end) <= Frame(g)) {
                slot.pending.push_back(0);
                slot.inputs_end = g + 1;
            }
        }
        int missing = 0, missing_count = 0;
        for (int s = 0; s < m_config.players; ++s) {
            const Slot& slot = m_roster.player(s + 1);
            if (Frame(slot.inputs_end) <= Frame(g)) {
                missing = s + 1;
                ++missing_count;
            }
        }
        if (missing && m_config.mode == SessionMode::kNoWait) {
            // Nobody waits for anybody: at the deadline the missing players' held pads go in,
            // and what they send for this frame later counts as late.
            if (now < m_schedule.no_wait_deadline(g, m_config.delay.fixed_delay)) return;
            for (int s = 0; s < m_config.players; ++s) {
                Slot& slot = m_roster.player(s + 1);
                if (Frame(slot.inputs_end) <= Frame(g)) {
                    slot.pending.push_back(slot.away() ? InputWord{0} : slot.held);
                    slot.inputs_end = g + 1;
                }
            }
            missing = 0;
        }
        if (missing) {
            // One player alone holding everyone back for the timeout is dropped, even if it
            // still talks: the others play on. (An away player, with pause_on_drop, has its
            // grace period instead.)
            if (m_blocked_since < 0) m_blocked_since = now;
            if (missing_count == 1 && !m_roster.player(missing).away() &&
                now - m_blocked_since > m_config.client_timeout_us) {
                char why[96];
                std::snprintf(why, sizeof why, "no input for frame %u for %.1f s", g,
                              (now - m_blocked_since) / 1e6);
                m_blocked_since = -1;
                drop(missing, ByeReason::kTimeout, why);  // confirms what it can
            }
            return;
        }
        m_blocked_since = -1;
        // The delay that holds from a keyframe is fixed before the keyframe is confirmed:
        // a client may run frame g only with its confirmation, which carries the decision.
        if (m_schedule.undecided(g, m_config.keyframe_interval)) {
            const int current = m_schedule.current_delay();
            m_delay.observe_srtt(srtt_worst());
            if (const int floor = estimate_path_floor(); floor > 0) m_path_floor = floor;
            const int delay = m_delay.decide(now, current, m_delay.target(now));
            if (m_schedule.decide(g, delay))
                emit({ServerEvent::Type::kDelayChanged, 0, g, delay, 0, {}});
        }
        InputFrame frame;
        Confirmation info{now - m_schedule.sample_time(g), false};
        for (int s = 0; s < m_config.players; ++s) {
            Slot& slot = m_roster.player(s + 1);
            frame.pads[s] = slot.pending.front();
            if (!slot.away()) slot.held = frame.pads[s];
            slot.pending.pop_front();
            while (!slot.arrivals.empty() && Frame(slot.arrivals.front().frame) <= Frame(g)) {
                info.stalled |= slot.arrivals.front().frame == g && slot.arrivals.front().stalled;
                slot.arrivals.pop_front();
            }
        }
        m_confirmed.push_back(frame);
        if (m_info.empty()) m_info_base = g;
        m_info.push_back(info);
        if (m_info.size() > kInfoFrames) {
            m_info.pop_front();
            ++m_info_base;
        }
        ++m_confirmed_end;
    }
}

void Server::send_update(Slot& slot) {
    const Micros now = m_clock.now_us();
    ServerUpdate update;
    update.seq = slot.next_update_seq++;
    update.server_time = static_cast<std::uint32_t>(now);
    update.echo_seq = slot.last_client_seq;
    update.echo_hold_10us = slot.last_client_seq_at < 0
                                ? kEchoHoldUnknown
                                : static_cast<std::uint16_t>(std::clamp<Micros>(
                                      (now - slot.last_client_seq_at) / 10, 0, kEchoHoldUnknown));
    update.input_ack = static_cast<std::uint16_t>(slot.inputs_end - 1);
    update.players = static_cast<std::uint8_t>(m_config.players);
    update.copies = redundant(slot) ? 2 : 1;
    update.path_floor = static_cast<std::uint8_t>(path_floor());
    for (int s = 0; s < m_config.players; ++s) {
        const Slot& other = m_roster.player(s + 1);
        if (other.in_session() && !other.away() && !other.awaiting_state())
            update.present |= static_cast<std::uint8_t>(1u << s);
    }
    std::pair<std::uint32_t, std::uint32_t> carried{0, 0};  // confirmed frames [first, end)
    if (m_roster.started() && !slot.awaiting_state()) {
        // Frames and decisions the client may not hold yet, oldest first.
        const std::uint32_t from = std::max(slot.client_ack_end, m_confirmed_base);
        for (const auto& entry : m_schedule.entries()) {
            if (Frame(entry.frame) >= Frame(from) && update.schedule.size() < kMaxScheduleEntries) {
                update.schedule.push_back(entry);
            }
        }
        update.first_frame = static_cast<std::uint16_t>(from);
        for (std::uint32_t f = from;
             Frame(f) < Frame(m_confirmed_end) && update.frames.size() < kMaxFramesPerMessage;
             ++f) {
            update.frames.push_back(m_confirmed[f - m_confirmed_base]);
        }
        carried = {from, from + static_cast<std::uint32_t>(update.frames.size())};
        if (m_config.mode == SessionMode::kRollback &&
            Frame(from) + static_cast<std::int32_t>(update.frames.size()) ==
                Frame(m_confirmed_end)) {
            // Everyone's inputs beyond confirmation, so predictions are corrected early.
            update.tails.resize(static_cast<std::size_t>(m_config.players));
            for (int s = 0; s < m_config.players; ++s) {
                const Slot& other = m_roster.player(s + 1);
                if (m_roster.absent(other)) continue;
                const std::size_t n = std::min(other.pending.size(), kMaxFramesPerMessage);
                update.tails[s].assign(other.pending.begin(),
                                       other.pending.begin() + static_cast<std::ptrdiff_t>(n));
            }
        }
    }
    std::vector<std::uint8_t> bytes = encode(update);
    m_transport.send(slot.peer, Channel::kInput, bytes);
    slot.update_sent_at[update.seq] = now;
    slot.update_frames[update.seq] = carried;
    slot.update_echoed[update.seq] = false;
    slot.last_update_sent = now;
    // On a lossy link the same datagram goes again a moment later, unless a newer one
    // replaces it first: a lost update then costs a couple of milliseconds, not a frame.
    if (update.copies > 1) {
        slot.copy = std::move(bytes);
        slot.copy_at = now + kCopySpacingUs;
    } else {
        slot.copy_at = -1;
    }
}

void Server::trim_history() {
    // Confirmed inputs are kept while a member may still need them (it has not acknowledged
    // them), and for history_frames in any case (joiners and resyncs start in the past).
    std::uint32_t keep_from = m_confirmed_end - std::min(m_confirmed_end, m_config.history_frames);
    const auto hold = [&](const Slot& member) {
        if (member.in_session() && !member.awaiting_state() &&
            Frame(member.client_ack_end) < Frame(keep_from) &&
            Frame(m_confirmed_end) - Frame(member.client_ack_end) <
                static_cast<std::int32_t>(4 * m_config.history_frames))
            keep_from = member.client_ack_end;
    };
    for (int s = 0; s < m_config.players; ++s) hold(m_roster.player(s + 1));
    for (const Slot& spectator : m_roster.spectators()) hold(spectator);
    if (const std::optional<std::uint32_t> state = m_transfers.state_to_keep(m_confirmed_end);
        state && Frame(*state) < Frame(keep_from))
        keep_from = *state;
    while (Frame(m_confirmed_base) < Frame(keep_from) && !m_confirmed.empty()) {
        m_confirmed.pop_front();
        ++m_confirmed_base;
    }
    m_schedule.trim(m_confirmed_base);
}

}  // namespace framelock::netplay
