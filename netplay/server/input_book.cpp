// The input book (input_book.h): inputs filed per slot, frames confirmed, the confirmed
// history kept and trimmed, and an update's share of it.
#include "netplay/server/input_book.h"

#include <algorithm>
#include <cstdio>

#include "netplay/server/server_tuning.h"

namespace framelock::netplay {

using namespace server_tuning;

void InputBook::start(int delay, std::span<ServerSlot> players) {
    // Frames before the first sampled input are neutral for everyone.
    m_confirmed_base = 0;
    m_confirmed.assign(static_cast<std::size_t>(delay), InputFrame{});
    m_confirmed_end = static_cast<std::uint32_t>(delay);
    for (ServerSlot& slot : players) {
        slot.inputs.m_inputs_end = m_confirmed_end;
        slot.inputs.m_pending.clear();
        slot.inputs.m_arrivals.clear();
    }
}

const InputFrame* InputBook::confirmed_input(std::uint32_t frame) const {
    if (Frame(frame) < Frame(m_confirmed_base) || Frame(frame) >= Frame(m_confirmed_end))
        return nullptr;
    return &m_confirmed[frame - m_confirmed_base];
}

void ConfirmationLog::add(std::uint32_t frame, Confirmation confirmation) {
    if (m_frames.empty()) m_base = frame;
    m_frames.push_back(confirmation);
    if (m_frames.size() > kInfoFrames) {
        m_frames.pop_front();
        ++m_base;
    }
}

const Confirmation* ConfirmationLog::find(std::uint32_t frame) const {
    if (Frame(frame) < Frame(m_base) ||
        Frame(frame) >= Frame(m_base) + static_cast<std::int32_t>(m_frames.size()))
        return nullptr;
    return &m_frames[frame - m_base];
}

std::uint32_t InputBook::ack_end(const ClientInput& input) const {
    return expand_frame(input.confirmed_ack, Frame(m_confirmed_end)).value() + 1;
}

void InputBook::note_ack(InputLane& lane, std::uint32_t ack_end) {
    if (Frame(ack_end) <= Frame(m_confirmed_end) && Frame(ack_end) > Frame(lane.m_client_ack_end))
        lane.m_client_ack_end = ack_end;
}

std::uint32_t InputBook::first_frame(const InputLane& lane, const ClientInput& input) const {
    return expand_frame(input.first_frame, Frame(lane.m_inputs_end)).value();
}

bool InputBook::too_far(std::uint32_t frame) const {
    return Frame(frame) - Frame(m_confirmed_end) >
           static_cast<std::int32_t>(m_config.max_frames_ahead);
}

void InputBook::fill_to(InputLane& lane, std::uint32_t first) {
    while (Frame(lane.m_inputs_end) < Frame(first)) {
        lane.m_pending.push_back(0);
        ++lane.m_inputs_end;
    }
}

InputBook::Filed InputBook::file(InputLane& lane, const ClientInput& input, std::uint32_t first,
                                 Micros now, bool stalled) {
    Filed filed;
    filed.from = lane.m_inputs_end;
    for (std::size_t i = 0; i < input.inputs.size(); ++i) {
        const Frame frame = Frame(first) + static_cast<std::int32_t>(i);
        if (m_config.mode == SessionMode::kNoWait && frame < Frame(lane.m_inputs_end)) {
            // Late (its frame went out without it): the newest such pad applies from the
            // next frame confirmed without this player's input.
            if (!lane.m_any_input || frame > Frame(lane.m_newest_input)) {
                lane.m_held = input.inputs[i];
                lane.m_newest_input = frame.value();
                lane.m_any_input = true;
            }
            continue;
        }
        if (frame < Frame(lane.m_inputs_end)) continue;  // already held
        if (frame > Frame(lane.m_inputs_end)) break;     // a gap: the next datagram repeats it
        if (too_far(frame.value())) {
            filed.too_far = frame.value();
            break;
        }
        lane.m_pending.push_back(input.inputs[i]);
        lane.m_arrivals.push_back({frame.value(), now, stalled});
        ++lane.m_inputs_end;
        ++m_inputs_seen;
        lane.m_newest_input = frame.value();
        lane.m_any_input = true;
    }
    filed.end = lane.m_inputs_end;
    return filed;
}

InputBook::Step InputBook::confirm(std::span<ServerSlot> players, std::uint8_t absent,
                                   const DelaySchedule& schedule, Micros now) {
    const int count = static_cast<int>(players.size());
    const auto is_absent = [&](int s) { return (absent >> s) & 1u; };
    // With every player absent at once (all away, or away and joining) nobody's input bounds
    // the loop below, which would confirm neutral frames until memory runs out. Confirmation
    // resumes when a player is back (fill_to() fills its gap).
    bool anyone_playing = false;
    for (int s = 0; s < count; ++s) anyone_playing |= !is_absent(s);
    if (!anyone_playing) return {};
    for (;;) {
        const std::uint32_t g = m_confirmed_end;
        // Absent slots (never joined, gone, away, joining) get neutral input without
        // anyone waiting for them.
        for (int s = 0; s < count; ++s) {
            InputLane& lane = players[s].inputs;
            if (is_absent(s) && Frame(lane.m_inputs_end) <= Frame(g)) {
                lane.m_pending.push_back(0);
                lane.m_inputs_end = g + 1;
            }
        }
        int missing = 0, missing_count = 0;
        for (int s = 0; s < count; ++s) {
            if (Frame(players[s].inputs.m_inputs_end) <= Frame(g)) {
                missing = s + 1;
                ++missing_count;
            }
        }
        if (missing && m_config.mode == SessionMode::kNoWait) {
            // Nobody waits for anybody: at the deadline the missing players' held pads go in,
            // and what they send for this frame later counts as late.
            if (now < schedule.no_wait_deadline(g, m_config.delay.fixed_delay)) return {};
            for (ServerSlot& slot : players) {
                InputLane& lane = slot.inputs;
                if (Frame(lane.m_inputs_end) <= Frame(g)) {
                    lane.m_pending.push_back(slot.away() ? InputWord{0} : lane.m_held);
                    lane.m_inputs_end = g + 1;
                }
            }
            missing = 0;
        }
        if (missing) {
            // One player alone holding everyone back for the timeout is dropped, even if it
            // still talks: the others play on. (An away player, with pause_on_drop, has its
            // grace period instead.)
            if (m_blocked_since < 0) m_blocked_since = now;
            if (missing_count == 1 && !players[missing - 1].away() &&
                now - m_blocked_since > m_config.client_timeout_us) {
                char why[96];
                std::snprintf(why, sizeof why, "no input for frame %u for %.1f s", g,
                              (now - m_blocked_since) / 1e6);
                m_blocked_since = -1;
                return {Step::Kind::kStuck, g, missing, why};
            }
            // Clients sample a keyframe's frame only with its decision. Blocked past the time
            // the next keyframe's would have been taken (its inputs' arrival, about half its
            // delay before it is due), the server takes it now: the waiting players' samplers
            // would stop there too, and cost everyone a round trip after the wait.
            const std::uint32_t interval = m_config.keyframe_interval;
            const std::uint32_t key = g + (interval - g % interval) % interval;
            const Micros due = schedule.start().start_time_us + schedule.frame_time().span_us(key);
            if (schedule.undecided(key, m_config.keyframe_interval) &&
                now >= due - schedule.frame_time().span_us(schedule.current_delay()) / 2)
                return {Step::Kind::kKeyframe, key, 0, {}};
            return {};
        }
        m_blocked_since = -1;
        // The delay that holds from a keyframe is fixed before the keyframe is confirmed:
        // a client may run frame g only with its confirmation, which carries the decision.
        if (schedule.undecided(g, m_config.keyframe_interval))
            return {Step::Kind::kKeyframe, g, 0, {}};
        InputFrame frame;
        Confirmation info{now - schedule.sample_time(g), false};
        // A hiccup excuses the frame only when its input was the last to come (held it up).
        Micros last_at = -1;
        for (int s = 0; s < count; ++s) {
            ServerSlot& slot = players[s];
            InputLane& lane = slot.inputs;
            frame.pads[s] = lane.m_pending.front();
            if (!slot.away()) lane.m_held = frame.pads[s];
            lane.m_pending.pop_front();
            while (!lane.m_arrivals.empty() && Frame(lane.m_arrivals.front().frame) <= Frame(g)) {
                const InputLane::Arrival& arrival = lane.m_arrivals.front();
                if (arrival.frame == g && arrival.at >= last_at) {
                    info.stalled = arrival.stalled || (arrival.at == last_at && info.stalled);
                    last_at = arrival.at;
                }
                lane.m_arrivals.pop_front();
            }
        }
        m_confirmed.push_back(frame);
        m_confirmations.add(g, info);
        ++m_confirmed_end;
    }
}

std::pair<std::uint32_t, std::uint32_t> InputBook::write(
    ServerUpdate& update, const ServerSlot& member, std::span<const ServerSlot> players,
    std::uint8_t absent, const DelaySchedule& schedule, bool started) const {
    update.input_ack = static_cast<std::uint16_t>(member.inputs.m_inputs_end - 1);
    if (!started || member.awaiting_state()) return {0, 0};
    // Frames and decisions the client may not hold yet, oldest first. A client runs and
    // samples a frame only once it holds its keyframe's decision: frames from the first
    // decision that does not fit wait for a later update, or the client would acknowledge
    // them and never be sent the decisions between (a player back from 3 s away, with
    // keyframes every 15 frames: 12 decisions behind, stuck at the 9th).
    const std::uint32_t from = std::max(member.inputs.m_client_ack_end, m_confirmed_base);
    std::uint32_t end = m_confirmed_end;
    for (const auto& entry : schedule.entries()) {
        if (Frame(entry.frame) < Frame(from)) continue;
        if (update.schedule.size() == kMaxScheduleEntries) {
            end = Frame(entry.frame) < Frame(end) ? entry.frame : end;
            break;
        }
        update.schedule.push_back(entry);
    }
    update.first_frame = static_cast<std::uint16_t>(from);
    for (std::uint32_t f = from;
         Frame(f) < Frame(end) && update.frames.size() < kMaxFramesPerMessage; ++f) {
        update.frames.push_back(m_confirmed[f - m_confirmed_base]);
    }
    const auto carried = static_cast<std::uint32_t>(update.frames.size());
    if (m_config.mode == SessionMode::kRollback &&
        Frame(from) + static_cast<std::int32_t>(carried) == Frame(m_confirmed_end)) {
        // Everyone's inputs beyond confirmation, so predictions are corrected early.
        update.tails.resize(players.size());
        for (std::size_t s = 0; s < players.size(); ++s) {
            if ((absent >> s) & 1u) continue;
            const std::deque<InputWord>& pending = players[s].inputs.m_pending;
            const std::size_t n = std::min(pending.size(), kMaxFramesPerMessage);
            update.tails[s].assign(pending.begin(),
                                   pending.begin() + static_cast<std::ptrdiff_t>(n));
        }
    }
    return {from, from + carried};
}

bool InputBook::news() const {
    return m_confirmed_end > m_last_sent_end ||
           (m_config.mode == SessionMode::kRollback && m_inputs_seen != m_last_sent_inputs);
}

void InputBook::updates_sent() {
    m_last_sent_end = m_confirmed_end;
    m_last_sent_inputs = m_inputs_seen;
}

void InputBook::trim(std::span<const ServerSlot> players, const std::vector<ServerSlot>& spectators,
                     std::optional<std::uint32_t> state_frame) {
    // Confirmed inputs are kept while a member may still need them (it has not acknowledged
    // them), and for history_frames in any case (joiners and resyncs start in the past).
    std::uint32_t keep_from = m_confirmed_end - std::min(m_confirmed_end, m_config.history_frames);
    const auto hold = [&](const ServerSlot& member) {
        const std::uint32_t acked = member.inputs.m_client_ack_end;
        if (member.in_session() && !member.awaiting_state() && Frame(acked) < Frame(keep_from) &&
            Frame(m_confirmed_end) - Frame(acked) <
                static_cast<std::int32_t>(4 * m_config.history_frames))
            keep_from = acked;
    };
    for (const ServerSlot& player : players) hold(player);
    for (const ServerSlot& spectator : spectators) hold(spectator);
    if (state_frame && Frame(*state_frame) < Frame(keep_from)) keep_from = *state_frame;
    while (Frame(m_confirmed_base) < Frame(keep_from) && !m_confirmed.empty()) {
        m_confirmed.pop_front();
        ++m_confirmed_base;
    }
}

}  // namespace framelock::netplay
