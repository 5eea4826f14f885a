// The frame lock: the book of confirmed inputs, the delay schedule, and the run of frames on
// the server's timeline. A frame runs once its time has come and every player's confirmed
// input for it is here; a frame due without them waits (a stall), and a client more than a
// frame behind runs frames without presenting them until it has caught up.
//
// In a rollback session the book and the count of frames run serve ClientRollback, which
// runs frames ahead of the book on predicted input and drops confirmed frames from the book
// as it verifies them.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "netplay/base/types.h"
#include "netplay/client/client_timeline.h"
#include "netplay/client/client_types.h"
#include "netplay/client/keyframe_delays.h"
#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/emulator.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

class FrameLock {
  public:
    // `stop_at_frame`: no frame at or beyond it runs (0: no limit).
    explicit FrameLock(std::uint32_t stop_at_frame) : m_stop_at(stop_at_frame) {}

    // The Welcome's: the session's mode and the keyframes its delays change at.
    void configure(SessionMode mode, std::uint16_t keyframe_interval);
    // The session starts at frame 0 with `delay`: frames [0, delay) have no input.
    void start(std::uint8_t delay);
    // A late joiner's Start: the state comes first (join()); until then, `delay` holds.
    void start_late(std::uint8_t delay);
    // A joiner's state is of `frame` (the next frame to run), when `delay` is in force.
    void join(std::uint32_t frame, std::uint8_t delay);
    // The wait for a joiner's state is no stall.
    void forget_stall() { m_blocked_since = -1; }

    std::uint32_t next_frame() const { return m_next_frame; }
    // Whether the next frame is the stop frame (ClientConfig::stop_at_frame) or beyond.
    bool at_stop() const;
    int delay_at(std::uint32_t frame) const { return m_delays.at(frame); }
    // Whether the delay in force at `frame` is known (a frame-lock frame waits for its
    // keyframe's entry; rollback and no-wait sessions run at one fixed delay).
    bool schedule_known_for(std::uint32_t frame) const;

    // The book: confirmed inputs for frames [first held, confirmed_end()), contiguous.
    std::uint32_t confirmed_end() const { return m_confirmed_end; }
    const InputFrame& confirmed(std::uint32_t frame) const;
    // The newest confirmed frame's inputs (all zero before any).
    const InputFrame& newest_confirmed() const { return m_newest; }
    // The oldest frame held is verified (rollback): the book lets it go.
    void drop_oldest_confirmed();

    struct Filed {
        Frame first;                               // the update's first confirmed frame
        std::uint32_t before = 0;                  // confirmed_end() before it
        std::vector<ScheduleEntry> delay_changes;  // entries that change the delay
    };
    // Files an update's schedule entries and the confirmed frames that extend the book.
    Filed file(const ServerUpdate& update);

    struct Ran {
        std::uint32_t frame = 0;
        InputFrame inputs;
    };
    // Runs the next frame with its confirmed inputs if it is due (`behind_us` later: a
    // spectator's buffer) and they are here; a due frame without them is a stall. Presents it
    // unless the next one can run right away too (`another` says whether this tick may run
    // another). Nothing when no frame ran.
    std::optional<Ran> run_next(Micros now, const ClientTimeline& timeline, Micros behind_us,
                                bool another, Emulator& emulator);

    // For a run of frames of its own (rollback): a frame due at `due` cannot run; it can.
    void note_blocked(Micros due, Micros now);
    void note_unblocked(Micros now, FrameTime frame_time);
    bool blocked() const { return m_blocked_since >= 0; }
    // A frame ran, `late` after its time, presented or not: the next frame is the one after.
    void count_run(Micros late, bool presented);

    std::uint32_t frames_run() const { return m_frames_run; }
    std::uint32_t stall_frames() const { return m_stall_frames; }
    // Frames run, stalls, catch-up and lateness.
    void fill(ClientStatsSnapshot& stats) const;

  private:
    std::uint32_t m_stop_at;
    SessionMode m_mode = SessionMode::kFrameLock;
    std::uint16_t m_keyframe_interval = 0;
    KeyframeDelays m_delays;

    // Confirmed inputs for frames [m_first_held, m_confirmed_end): from the next frame to run
    // on (frame lock), or from the oldest frame not yet verified (rollback).
    std::deque<InputFrame> m_confirmed;
    std::uint32_t m_first_held = 0;
    std::uint32_t m_confirmed_end = 0;  // every frame < this is held (contiguous)
    InputFrame m_newest;
    std::uint32_t m_next_frame = 0;  // the next frame to run

    Micros m_blocked_since = -1;  // due time of the frame waiting for inputs
    std::uint32_t m_frames_run = 0;
    std::uint32_t m_stall_frames = 0;  // frame periods spent waiting for inputs
    std::uint32_t m_stall_events = 0;  // times a due frame had to wait
    std::uint32_t m_frames_fast_forwarded = 0;
    Micros m_lateness_total_us = 0;
};

}  // namespace framelock::netplay
