// The sound path without a device: libsamplerate converting with the controlled ratio, the
// queue, and a device pulling on an emulated clock that runs a little fast or slow.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "frontend/player/sdl/audio_pipeline.h"

using namespace framelock::frontend;

namespace {

// A 440 Hz tone at `rate`, one emulated frame's worth (rate / fps frames) at a time.
class SineTone {
  public:
    explicit SineTone(double rate) : m_rate(rate) {}
    const std::vector<std::int16_t>& next(std::size_t frames) {
        m_samples.resize(frames * 2);
        for (std::size_t i = 0; i < frames; ++i) {
            const auto v =
                static_cast<std::int16_t>(8000 * std::sin(2 * M_PI * 440 * m_t++ / m_rate));
            m_samples[2 * i] = m_samples[2 * i + 1] = v;
        }
        return m_samples;
    }

  private:
    double m_rate;
    double m_t = 0;
    std::vector<std::int16_t> m_samples;
};

struct SoakResult {
    AudioPipelineStats stats;
    double seconds_played = 0;
    double output_rms = 0;
};

// `seconds` of emulation at `fps` pushing the core's audio at `core_rate`, a device at
// `device_rate` * (1 + skew) pulling `chunk` frames at a time.
SoakResult soak(double core_rate, double device_rate, double skew, double seconds) {
    AudioPipelineConfig config;
    config.input_rate = core_rate;
    config.output_rate = device_rate;
    config.target_fill = 2048;
    config.capacity = 4 * 2048 + 2 * 1024;
    auto made = AudioPipeline::create(config);
    REQUIRE(made.ok());
    AudioPipeline& pipeline = *made.value();
    const double fps = 60;
    const std::size_t chunk = 1024;
    const double device_period = chunk / (device_rate * (1 + skew));
    SineTone tone(core_rate);
    std::vector<float> out(chunk * 2);
    double device_clock = 0, carry = 0, square_sum = 0;
    std::size_t samples = 0;
    for (int frame = 0; frame < static_cast<int>(seconds * fps); ++frame) {
        const double t = frame / fps;
        while (device_clock <= t) {
            pipeline.pull(out.data(), chunk);
            if (device_clock > 2.0) {
                for (const float v : out) square_sum += v * v;
                samples += out.size();
            }
            device_clock += device_period;
        }
        carry += core_rate / fps;
        const auto n = static_cast<std::size_t>(carry);
        carry -= static_cast<double>(n);
        pipeline.push(tone.next(n).data(), n);
    }
    SoakResult r;
    r.stats = pipeline.stats();
    r.seconds_played = r.stats.frames_played / device_rate;
    r.output_rms = samples ? std::sqrt(square_sum / static_cast<double>(samples)) : 0.0;
    return r;
}

}  // namespace

TEST_CASE(
    "AudioPipeline: 60 emulated seconds against a skewed device clock, no underruns "
    "after the first second, the queue in a band",
    "[frontend][audio]") {
    struct Case {
        double core_rate, device_rate, skew;
    };
    for (const Case c :
         {Case{48000, 48000, 0.0}, Case{48000, 48000, 0.001}, Case{48000, 48000, -0.001},
          Case{32040.5, 48000, 0.0005}, Case{44100, 48000, -0.0005}}) {
        INFO("core " << c.core_rate << " Hz, device " << c.device_rate << " Hz, skew "
                     << c.skew * 100 << "%");
        const SoakResult r = soak(c.core_rate, c.device_rate, c.skew, 60);
        const AudioPipelineStats& s = r.stats;
        CHECK(s.started);
        CHECK(r.seconds_played == Approx(60).margin(0.2));
        CHECK(s.underruns_after_warmup == 0);
        CHECK(s.frames_dropped == 0);
        // The queue stays within a device chunk plus an emulated frame of its target.
        CHECK(s.fill.min() > 2048 - 1024 - 900 - 2048 * std::abs(c.skew) / 0.005);
        CHECK(s.fill.max() < 2048 + 1024 + 900 + 2048 * std::abs(c.skew) / 0.005);
        // The ratio moved no more than the allowed half percent.
        CHECK(std::abs(s.factor - 1.0) <= 0.005 + 1e-12);
        // What came out is the tone (RMS of a sine of amplitude 8000/32768), not silence.
        CHECK(r.output_rms == Approx(8000.0 / 32768 / std::sqrt(2.0)).epsilon(0.02));
    }
}

TEST_CASE("AudioPipeline: silence until the queue first fills, then underruns are counted",
          "[frontend][audio]") {
    AudioPipelineConfig config;
    config.target_fill = 1000;
    config.capacity = 4000;
    config.warmup_seconds = 0;
    auto made = AudioPipeline::create(config);
    REQUIRE(made.ok());
    AudioPipeline& p = *made.value();
    std::vector<float> out(2 * 512, 1.0f);
    p.pull(out.data(), 512);  // nothing queued yet: the start, not an underrun
    CHECK(out[0] == 0.0f);
    CHECK(p.stats().underruns == 0);
    CHECK_FALSE(p.stats().started);
    std::vector<std::int16_t> in(2 * 1200, 1000);
    p.push(in.data(), 1200);
    CHECK(p.stats().started);
    p.pull(out.data(), 512);
    p.pull(out.data(), 512);
    p.pull(out.data(), 512);  // the queue holds about 1200 - the converter's delay
    const auto s = p.stats();
    CHECK(s.underruns >= 1);
    CHECK(s.silent_frames > 0);
    CHECK(s.frames_played == 3 * 512);

    // The queue never grows past its capacity: the rest is dropped and counted.
    for (int i = 0; i < 10; ++i) p.push(in.data(), 1200);
    CHECK(p.queued() <= 4096);
    CHECK(p.stats().frames_dropped > 0);
}

TEST_CASE("AudioPipeline: nonsense settings are refused", "[frontend][audio]") {
    AudioPipelineConfig config;
    config.input_rate = 0;
    CHECK_FALSE(AudioPipeline::create(config).ok());
    config.input_rate = 48000;
    config.target_fill = 8192;
    config.capacity = 4096;
    CHECK_FALSE(AudioPipeline::create(config).ok());
}
