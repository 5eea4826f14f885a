// Dynamic rate control: the emulator makes sound on its own frame clock, the sound card
// plays it on its crystal, and the two never agree exactly. Instead of letting the queue
// between them run dry (crackle) or overflow (growing lag, then dropped sound), the
// resampling ratio is nudged by at most +-max_adjust (0.5%: a pitch change of under nine
// cents, inaudible) in proportion to how far the queue is from its target fill.
//
// Pure arithmetic on frame counts; the caller measures the fill. Not thread-safe.
#pragma once

#include <cstdint>
#include <limits>

namespace framelock::frontend {

class AudioRateControl {
  public:
    // `target_fill` (> 0): the queued output frames to hold. `max_adjust`: the largest
    // relative change of the ratio (0.005 = 0.5%). `smoothing` in (0, 1]: weight of each
    // new fill measurement in the running average the control acts on (the fill a callback
    // chunk just took away is measurement noise, not drift).
    explicit AudioRateControl(double target_fill, double max_adjust = 0.005,
                              double smoothing = 0.125);

    // Takes a fill measurement (frames queued) and returns the factor to multiply the
    // nominal output/input ratio by: 1 + max_adjust at an empty queue, 1 at the target,
    // 1 - max_adjust at twice the target or more.
    double update(double fill_frames);

    double factor() const { return m_factor; }
    double smoothed_fill() const { return m_smoothed; }
    double target_fill() const { return m_target; }
    double max_adjust() const { return m_max_adjust; }

  private:
    double m_target;
    double m_max_adjust;
    double m_smoothing;
    double m_smoothed = -1;  // < 0: no measurement yet
    double m_factor = 1.0;
};

// Running figures of a queue's fill, in frames: count, min, max, mean and standard
// deviation (Welford's method, stable over hours of samples).
class FillStats {
  public:
    void add(double value);
    std::uint64_t count() const { return m_count; }
    double min() const { return m_count ? m_min : 0; }
    double max() const { return m_count ? m_max : 0; }
    double mean() const { return m_mean; }
    double stddev() const;

  private:
    std::uint64_t m_count = 0;
    double m_min = std::numeric_limits<double>::max();
    double m_max = std::numeric_limits<double>::lowest();
    double m_mean = 0;
    double m_m2 = 0;
};

}  // namespace framelock::frontend
