// Holds a core's own frame rate (59.185 Hz, 57.5 Hz, 60.0988 Hz, ...) on the wall clock,
// whatever the monitor's refresh: frame n is due at anchor + (n - anchor_frame) / fps,
// computed from n every time, so rounding never accumulates into drift. No vsync.
//
// The due time is when a frame is *shown*. Running the core and drawing take a varying
// while (a busy machine, a software renderer), so the caller wakes `lead()` earlier, does
// that work, then sleeps to the due time and only presents: the shown times then vary by
// the present call alone. The lead follows the slowest of the recent preparations.
//
// Pure schedule arithmetic on nanosecond timestamps from any monotonic clock: the caller
// reads the clock and sleeps; tests drive it with made-up times.
#pragma once

#include <cstdint>
#include <span>

namespace framelock::frontend {

using Nanos = std::int64_t;

class FramePacer {
  public:
    // `fps` > 0 (retro_system_timing::fps). Falling further behind than `max_lag_ns` (a
    // window drag, a stopped debugger, a slow disk) restarts the schedule from the current
    // time instead of running the missed frames back to back.
    explicit FramePacer(double fps, Nanos max_lag_ns = 250'000'000);

    // Frame 0 is due at `now`.
    void start(Nanos now);
    // When the next frame is due to be shown, and when to start preparing it.
    Nanos due() const { return due_of(m_next); }
    Nanos wake() const { return due() - lead(); }
    // How long preparing the next frame probably takes, with a margin: the longest of the
    // last kPrepareHistory preparations plus kLeadMargin, within [kMinLead, period / 2].
    Nanos lead() const;
    // Preparing the last frame (waking to ready to present) took `duration`.
    void prepared(Nanos duration);
    // The next frame ran and was shown at `now`: schedules the one after. When `now` is
    // more than max_lag past that frame's due time, the schedule restarts at `now`.
    void frame_done(Nanos now);
    // The core changed its rate (SET_SYSTEM_AV_INFO): the next frame keeps its due time,
    // the ones after follow the new rate.
    void set_fps(double fps);

    double fps() const { return m_fps; }
    double period_ns() const { return 1e9 / m_fps; }
    std::uint64_t frames() const { return m_next; }        // frames done
    std::uint64_t restarts() const { return m_restarts; }  // times it fell too far behind

    static constexpr int kPrepareHistory = 32;
    static constexpr Nanos kLeadMargin = 1'000'000;
    static constexpr Nanos kMinLead = 500'000;

  private:
    Nanos due_of(std::uint64_t frame) const;

    double m_fps;
    Nanos m_max_lag;
    Nanos m_anchor = 0;
    std::uint64_t m_anchor_frame = 0;
    std::uint64_t m_next = 0;
    std::uint64_t m_restarts = 0;
    Nanos m_prepare[kPrepareHistory] = {};
    int m_prepare_next = 0;
};

// How evenly frames were shown: from the times consecutive frames were presented.
struct PacingReport {
    std::size_t intervals = 0;
    double target_ms = 0;             // 1000 / fps
    double mean_ms = 0;               // mean interval
    double mean_error_pct = 0;        // (mean - target) / target, in percent
    double stddev_ms = 0;             // of the intervals
    double p99_abs_deviation_ms = 0;  // 99th percentile of |interval - target|
    double max_abs_deviation_ms = 0;  // worst |interval - target|
    double min_ms = 0, max_ms = 0;    // shortest and longest interval
};

// `present_times` in presentation order (at least two for any figure).
PacingReport summarize_pacing(std::span<const Nanos> present_times, double fps);

}  // namespace framelock::frontend
