// The sound path between a core and a sound device, without the device: core samples in
// (int16 stereo at the core's rate), libsamplerate converts them to the device's rate with
// the ratio nudged by AudioRateControl, an AudioRing queues them, and the device's
// callback pulls float frames out. SdlAudio puts an SDL device behind pull(); tests pull
// on an emulated clock.
//
// Threading: push(), set_input_rate() and stats() on one thread (the emulator's); pull()
// on one other thread (the device's). Neither ever blocks the other.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "frontend/player/audio_rate_control.h"
#include "frontend/player/audio_ring.h"
#include "netplay/base/result.h"

typedef struct SRC_STATE_tag SRC_STATE;

namespace framelock::frontend {

struct AudioPipelineConfig {
    double input_rate = 48000;       // the core's sample rate, Hz
    double output_rate = 48000;      // the device's, Hz
    std::size_t target_fill = 2048;  // frames kept queued for the device (the latency)
    std::size_t capacity = 8192;     // frames the queue holds at most (rounded to 2^n)
    double max_adjust = 0.005;       // rate control range: +-0.5%
    // Underruns and fill figures are kept separately from this much played output on:
    // the start (the device's first pulls, the core's first frames) is not steady state.
    double warmup_seconds = 1.0;
};

struct AudioPipelineStats {
    std::uint64_t frames_in = 0;       // core frames pushed
    std::uint64_t frames_queued = 0;   // converted frames queued
    std::uint64_t frames_dropped = 0;  // converted frames that found the queue full
    std::uint64_t frames_played = 0;   // frames pulled by the device since playback started
    std::uint64_t underruns = 0;       // pulls that found the queue short, since the start
    std::uint64_t underruns_after_warmup = 0;
    std::uint64_t silent_frames = 0;  // frames of silence an underrun filled in
    bool started = false;             // the queue reached its target once; the device plays
    double factor = 1.0;              // the rate control's last ratio factor
    FillStats fill;                   // queue fill (frames) at each push after the warmup
};

class AudioPipeline {
  public:
    // kUsage error for nonsensical rates or sizes; libsamplerate's own errors as kIo.
    static Result<std::unique_ptr<AudioPipeline>> create(const AudioPipelineConfig& config);
    ~AudioPipeline();
    AudioPipeline(const AudioPipeline&) = delete;
    AudioPipeline& operator=(const AudioPipeline&) = delete;

    // Emulator thread. Converts and queues `frames` interleaved stereo frames. Never
    // blocks: what does not fit is dropped and counted.
    void push(const std::int16_t* samples, std::size_t frames);
    // Emulator thread. The core changed its sample rate (SET_SYSTEM_AV_INFO).
    void set_input_rate(double rate);

    // Device thread. Fills `frames` interleaved stereo float frames. Until the queue first
    // reaches its target, that is silence (the start); afterwards a short queue is an
    // underrun: what is there, then silence.
    void pull(float* out, std::size_t frames);

    // Emulator thread: the counters (the device's side read atomically).
    AudioPipelineStats stats() const;
    std::size_t queued() const { return m_ring.size(); }
    const AudioPipelineConfig& config() const { return m_config; }

  private:
    explicit AudioPipeline(const AudioPipelineConfig& config);

    AudioPipelineConfig m_config;
    SRC_STATE* m_src = nullptr;
    AudioRing m_ring;
    AudioRateControl m_control;
    std::vector<float> m_in, m_out;
    std::uint64_t m_warmup_frames = 0;

    // Emulator thread only.
    std::uint64_t m_frames_in = 0, m_frames_queued = 0, m_frames_dropped = 0;
    FillStats m_fill;
    // Written by the device thread, read by the emulator thread.
    std::atomic<bool> m_started{false};
    std::atomic<std::uint64_t> m_frames_played{0};
    std::atomic<std::uint64_t> m_underruns{0}, m_underruns_after_warmup{0};
    std::atomic<std::uint64_t> m_silent_frames{0};
};

}  // namespace framelock::frontend
