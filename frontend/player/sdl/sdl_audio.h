// The player's speakers: an SDL audio device pulling from an AudioPipeline (libsamplerate
// with dynamic rate control). play() never blocks, so sound can never hold up emulation or
// netplay timing; the device's thread only ever reads the pipeline's lock-free queue.
#pragma once

#include <SDL.h>

#include <memory>
#include <string>

#include "frontend/host/io.h"
#include "frontend/player/player_settings.h"
#include "frontend/player/player_window.h"
#include "frontend/player/sdl/audio_pipeline.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

// The device buffer and queue target for `latency_ms` at `rate`: the device gets the
// largest power of two up to half the latency (256..4096 frames), the queue the rest.
struct AudioBufferPlan {
    int device_frames = 0;
    std::size_t target_fill = 0;
};
AudioBufferPlan plan_audio_buffers(int latency_ms, int rate);

class SdlAudio final : public AudioSink {
  public:
    // Needs SDL's audio subsystem initialised. Opens the default device (SDL_AUDIODRIVER
    // picks the driver) and starts it. kIo error with SDL's message when there is none.
    static Result<std::unique_ptr<SdlAudio>> open(const AudioSettings& settings,
                                                  double core_sample_rate);
    ~SdlAudio() override;  // stops the device before the pipeline goes
    SdlAudio(const SdlAudio&) = delete;
    SdlAudio& operator=(const SdlAudio&) = delete;

    void play(const std::int16_t* samples, std::size_t frames) override;
    void set_core_rate(double rate) { m_pipeline->set_input_rate(rate); }

    AudioReport report() const;
    AudioPipelineStats stats() const { return m_pipeline->stats(); }
    // The SDL device: SDL_LockAudioDevice() on it holds the callback off (the audio
    // benchmark steps the device one buffer at a time on an emulated clock).
    SDL_AudioDeviceID device() const { return m_device; }
    const AudioPipeline& pipeline() const { return *m_pipeline; }

  private:
    SdlAudio() = default;
    static void callback(void* self, Uint8* stream, int len);

    SDL_AudioDeviceID m_device = 0;
    SDL_AudioSpec m_spec{};
    std::unique_ptr<AudioPipeline> m_pipeline;
};

}  // namespace framelock::frontend
