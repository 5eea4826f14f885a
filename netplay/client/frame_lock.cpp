#include "netplay/client/frame_lock.h"

#include <algorithm>

namespace framelock::netplay {
namespace {
constexpr Micros kStallToleranceUs = 1'000;  // the loop's own timing granularity
}  // namespace

void FrameLock::configure(SessionMode mode, std::uint16_t keyframe_interval) {
    m_mode = mode;
    m_keyframe_interval = keyframe_interval;
}

void FrameLock::start(std::uint8_t delay) {
    m_delays.reset(0, delay);
    m_next_frame = 0;
    m_confirmed.assign(delay, InputFrame{});
    m_first_held = 0;
    m_confirmed_end = delay;
}

void FrameLock::start_late(std::uint8_t delay) {
    m_delays.assume(delay);
    m_confirmed.clear();
    m_first_held = m_confirmed_end;
}

void FrameLock::join(std::uint32_t frame, std::uint8_t delay) {
    // Confirmed inputs from the state's frame on are collected from now.
    m_next_frame = m_confirmed_end = m_first_held = frame;
    m_confirmed.clear();
    m_delays.reset(frame - frame % m_keyframe_interval, delay);
}

bool FrameLock::at_stop() const {
    return m_stop_at && Frame(m_next_frame) >= Frame(m_stop_at);
}

bool FrameLock::schedule_known_for(std::uint32_t frame) const {
    // Rollback and no-wait run at one fixed delay: nothing to wait for (waiting for each
    // keyframe's confirmation would stall a zero-delay client at every keyframe).
    if (m_mode != SessionMode::kFrameLock) return true;
    const std::uint32_t keyframe = frame - frame % m_keyframe_interval;
    return keyframe == 0 || m_delays.has(keyframe);
}

const InputFrame& FrameLock::confirmed(std::uint32_t frame) const {
    return m_confirmed[frame - m_first_held];
}

void FrameLock::drop_oldest_confirmed() {
    m_confirmed.pop_front();
    ++m_first_held;
}

FrameLock::Filed FrameLock::file(const ServerUpdate& update) {
    Filed filed;
    filed.delay_changes = m_delays.add(update.schedule);
    m_delays.forget_before(m_next_frame);
    filed.first = expand_frame(update.first_frame, Frame(m_confirmed_end));
    filed.before = m_confirmed_end;
    for (std::size_t i = 0; i < update.frames.size(); ++i) {
        const Frame frame = filed.first + static_cast<std::int32_t>(i);
        if (frame < Frame(m_confirmed_end)) continue;
        if (frame > Frame(m_confirmed_end)) break;
        m_confirmed.push_back(update.frames[i]);
        m_newest = update.frames[i];
        ++m_confirmed_end;
    }
    return filed;
}

std::optional<FrameLock::Ran> FrameLock::run_next(Micros now, const ClientTimeline& timeline,
                                                  Micros behind_us, bool another,
                                                  Emulator& emulator) {
    const Micros due = timeline.due(m_next_frame) + behind_us;
    if (now < due || at_stop()) return std::nullopt;
    if (!(Frame(m_confirmed_end) > Frame(m_next_frame)) || !schedule_known_for(m_next_frame)) {
        note_blocked(due, now);
        return std::nullopt;
    }
    note_unblocked(now, timeline.frame_time());
    Ran ran{m_next_frame, m_confirmed.front()};
    drop_oldest_confirmed();
    // Not looked at only if the next frame is due too and can run right away; the last
    // frame a tick can run is always shown, even when the client runs behind.
    const bool next_runs_now = now >= timeline.due(ran.frame + 1) + behind_us &&
                               !(m_stop_at && ran.frame + 1 >= m_stop_at) && !m_confirmed.empty() &&
                               another;
    emulator.run_frame(ran.inputs, !next_runs_now);
    count_run(now - due, !next_runs_now);
    return ran;
}

void FrameLock::note_blocked(Micros due, Micros now) {
    if (m_blocked_since >= 0) return;
    // Only the time spent waiting from now on is a stall: a client already behind (catching
    // up) must not count its backlog again.
    m_blocked_since = std::max(due, now);
    ++m_stall_events;
}

void FrameLock::note_unblocked(Micros now, FrameTime frame_time) {
    if (m_blocked_since < 0) return;
    const Micros frame_us = frame_time.us();
    const Micros waited = now - m_blocked_since;
    if (waited > kStallToleranceUs)
        m_stall_frames += static_cast<std::uint32_t>((waited + frame_us - 1) / frame_us);
    m_blocked_since = -1;
}

void FrameLock::count_run(Micros late, bool presented) {
    // A frame more than a minute late counts as a minute: the sum stays meaningful and
    // cannot overflow, whatever times the server sent.
    m_lateness_total_us += std::min<Micros>(late, 60'000'000);
    if (!presented) ++m_frames_fast_forwarded;
    ++m_frames_run;
    ++m_next_frame;
}

void FrameLock::fill(ClientStatsSnapshot& stats) const {
    stats.frames_run = m_frames_run;
    stats.stall_frames = m_stall_frames;
    stats.stall_events = m_stall_events;
    stats.frames_fast_forwarded = m_frames_fast_forwarded;
    stats.lateness_total_us = m_lateness_total_us;
}

}  // namespace framelock::netplay
