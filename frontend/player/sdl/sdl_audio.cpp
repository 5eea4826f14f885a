#include "frontend/player/sdl/sdl_audio.h"

#include <algorithm>

#include "common/log.h"

namespace framelock::frontend {

AudioBufferPlan plan_audio_buffers(int latency_ms, int rate) {
    const long total = static_cast<long>(latency_ms) * rate / 1000;
    int device = 256;
    while (device * 2 <= std::min<long>(total / 2, 4096)) device *= 2;
    AudioBufferPlan plan;
    plan.device_frames = device;
    plan.target_fill = static_cast<std::size_t>(std::max<long>(total - device, device));
    return plan;
}

Result<std::unique_ptr<SdlAudio>> SdlAudio::open(const AudioSettings& settings,
                                                 double core_sample_rate) {
    std::unique_ptr<SdlAudio> audio(new SdlAudio());
    const AudioBufferPlan wanted = plan_audio_buffers(settings.latency_ms, settings.rate);
    SDL_AudioSpec desired{};
    desired.freq = settings.rate;
    desired.format = AUDIO_F32SYS;
    desired.channels = 2;
    desired.samples = static_cast<Uint16>(wanted.device_frames);
    desired.callback = &SdlAudio::callback;
    desired.userdata = audio.get();
    // The pipeline converts to whatever rate the device runs at; SDL converts the format
    // or the channel count only when the device insists.
    audio->m_device =
        SDL_OpenAudioDevice(nullptr, 0, &desired, &audio->m_spec,
                            SDL_AUDIO_ALLOW_FREQUENCY_CHANGE | SDL_AUDIO_ALLOW_SAMPLES_CHANGE);
    if (audio->m_device == 0)
        return make_error(ErrorCode::kIo,
                          std::string("cannot open a sound device: ") + SDL_GetError());

    // The device may have picked another rate or buffer: plan the queue for what it has.
    const AudioBufferPlan plan = plan_audio_buffers(settings.latency_ms, audio->m_spec.freq);
    AudioPipelineConfig config;
    config.input_rate = core_sample_rate > 0 ? core_sample_rate : 48000;
    config.output_rate = audio->m_spec.freq;
    config.target_fill = std::max<std::size_t>(plan.target_fill, audio->m_spec.samples);
    // Room for the target, a device buffer being refilled, and a burst of catch-up frames.
    config.capacity = 4 * config.target_fill + 2 * audio->m_spec.samples;
    config.max_adjust = settings.rate_control_pct / 100.0;
    auto pipeline = AudioPipeline::create(config);
    if (!pipeline) {
        SDL_CloseAudioDevice(audio->m_device);
        audio->m_device = 0;
        return pipeline.error();
    }
    audio->m_pipeline = std::move(pipeline).value();
    SDL_PauseAudioDevice(audio->m_device, 0);
    return audio;
}

SdlAudio::~SdlAudio() {
    // Closing waits for the device's thread: no callback can run into a dead pipeline.
    if (m_device) SDL_CloseAudioDevice(m_device);
}

void SdlAudio::callback(void* self, Uint8* stream, int len) {
    auto* audio = static_cast<SdlAudio*>(self);
    const std::size_t frames = static_cast<std::size_t>(len) / (2 * sizeof(float));
    if (!audio->m_pipeline) {
        SDL_memset(stream, 0, static_cast<std::size_t>(len));
        return;
    }
    audio->m_pipeline->pull(reinterpret_cast<float*>(stream), frames);
}

void SdlAudio::play(const std::int16_t* samples, std::size_t frames) {
    m_pipeline->push(samples, frames);
}

AudioReport SdlAudio::report() const {
    const AudioPipelineStats s = m_pipeline->stats();
    const double ms_per_frame = 1000.0 / m_spec.freq;
    AudioReport r;
    const char* driver = SDL_GetCurrentAudioDriver();
    r.driver = driver ? driver : "?";
    r.device_rate = m_spec.freq;
    r.device_buffer_frames = m_spec.samples;
    r.target_fill_ms = static_cast<double>(m_pipeline->config().target_fill) * ms_per_frame;
    r.frames_played = s.frames_played;
    r.underruns = s.underruns;
    r.underruns_after_warmup = s.underruns_after_warmup;
    r.frames_dropped = s.frames_dropped;
    r.fill_mean_ms = s.fill.mean() * ms_per_frame;
    r.fill_min_ms = s.fill.min() * ms_per_frame;
    r.fill_max_ms = s.fill.max() * ms_per_frame;
    r.fill_stddev_ms = s.fill.stddev() * ms_per_frame;
    r.ratio_factor = s.factor;
    return r;
}

}  // namespace framelock::frontend
