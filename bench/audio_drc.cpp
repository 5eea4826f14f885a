// Sound through SDL for an emulated minute: the bundled arcade core's audio, through
// framelock's SdlAudio (libsamplerate + dynamic rate control + the lock-free queue) into a
// real SDL audio device on SDL's "disk" driver, which calls the device callback on SDL's
// own audio thread and writes what it gets to a file.
//
// Time is emulated so the minute takes seconds: the device's clock is the frames SDL has
// pulled, and the emulator runs frame k once that clock reaches k / fps x (1 + skew): an
// emulator running `skew` slow against the sound card (+0.1%: the core's 60 Hz is 59.94
// on the card's crystal), far more than real hardware drifts. The benchmark holds the
// device's lock (SDL_LockAudioDevice) and lets SDL's thread through for one buffer at a
// time, exactly when the emulated clock says it is due: a busy machine slows the minute
// down but cannot make the emulator late. The disk driver sleeps SDL_DISKAUDIODELAY ms
// between buffers (4: about 5x faster than real time); a buffer it takes before the lock
// is back (a stalled benchmark thread) is counted as a missed step.
//
// A minute with a missed step did not measure the pipeline: the emulated device itself
// ran out of turn, by as much as this machine stalled the benchmark. With --attempts N the
// benchmark says so and plays the minute again on a freshly opened device, up to N times;
// the check judges the first minute whose device stepped in turn, and fails when none did.
//
// Prints the underruns (all, and after the first second), the queue's fill (mean, min,
// max, spread) against its target, the frames dropped, the final rate factor, and how much
// SDL wrote. With --check, exits 1 unless: no underrun after the first second, nothing
// dropped, the fill stayed above zero and within a band around the target.
#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "common/log.h"
#include "frontend/host/core_locator.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/player/sdl/sdl_audio.h"
#include "frontend/player/sdl/sdl_player_window.h"

using namespace framelock;
using namespace framelock::frontend;
namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage =
    "usage: bench_audio_drc [--core NAME|PATH] [--seconds 60] [--skew 0.001]\n"
    "                       [--device-rate 44100] [--latency 64] [--disk-delay 4] [--check]\n"
    "                       [--attempts 1]\n"
    "  --skew: how much slower the emulator runs than the card (0.001: 0.1%)\n"
    "  --latency: audio.latency_ms; --disk-delay: SDL_DISKAUDIODELAY, wall ms per buffer\n"
    "  --check: exit 1 unless the figures meet the acceptance criteria\n"
    "  --attempts: minutes to play at most while the machine stalls the device's steps\n";

// What one emulated minute plays: the emulator, the device's settings, and where SDL writes.
struct Minute {
    RetroEmulator& emu;
    AudioSettings settings;
    double seconds;
    double skew;
    fs::path out_file;
};

// kStalled: SDL's thread took a buffer out of turn, so the minute measured the machine.
enum class Verdict { kPass, kFail, kStalled, kError };

// Plays one minute on a freshly opened device and prints its figures; with `check`, judges
// them against the acceptance criteria.
Verdict play_minute(const Minute& m, bool check) {
    RetroEmulator& emu = m.emu;
    const double seconds = m.seconds, skew = m.skew;
    const fs::path& out_file = m.out_file;
    const double fps = emu.frames_per_second();
    const double core_rate = emu.av_info().timing.sample_rate;
    auto opened = SdlAudio::open(m.settings, core_rate);
    if (!opened) {
        fmt::print(stderr, "bench_audio_drc: {}\n", opened.error().message);
        return Verdict::kError;
    }
    SdlAudio& audio = *opened.value();
    emu.set_audio_sink(&audio);
    const double rate = audio.report().device_rate;

    // The emulator's frame k is due at k / fps (1 + skew) on the device's clock; until the
    // queue first fills and playback starts, the emulator's own pace is the clock.
    const auto wall_start = std::chrono::steady_clock::now();
    const auto total = static_cast<std::uint64_t>(seconds * fps);
    const auto buffer = static_cast<std::uint64_t>(audio.report().device_buffer_frames);
    double started_at = -1;  // emulated time playback started
    std::uint64_t missed_steps = 0;
    SDL_LockAudioDevice(audio.device());
    for (std::uint64_t k = 0; k < total; ++k) {
        const double due = static_cast<double>(k) / fps * (1 + skew);
        if (started_at >= 0) {
            // Step the device until its clock reaches the frame's time.
            std::uint64_t played = audio.stats().frames_played;
            while (started_at + static_cast<double>(played) / rate < due) {
                SDL_UnlockAudioDevice(audio.device());
                std::uint64_t now = played;
                while (now == played) {
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
                    now = audio.stats().frames_played;
                }
                SDL_LockAudioDevice(audio.device());
                now = audio.stats().frames_played;
                if (now - played > buffer) ++missed_steps;
                played = now;
            }
        }
        emu.run_frame({}, true);
        if (started_at < 0 && audio.stats().started) started_at = due;
    }
    SDL_UnlockAudioDevice(audio.device());
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    const AudioReport r = audio.report();
    const AudioPipelineStats s = audio.stats();
    emu.set_audio_sink(nullptr);
    opened.value().reset();  // closes the device: the file is complete
    std::error_code ec;
    const auto written = fs::file_size(out_file, ec);
    fs::remove(out_file, ec);

    const double played_s = static_cast<double>(r.frames_played) / rate;
    const double target_ms = r.target_fill_ms;
    const double chunk_ms = 1000.0 * r.device_buffer_frames / rate;
    fmt::print(
        "audio_drc  SDL '{}' driver, {} Hz device, {}-frame buffer; core {:.0f} Hz at "
        "{:.3f} fps running {:+.2f}% against the device\n",
        r.driver, r.device_rate, r.device_buffer_frames, core_rate, fps, skew * 100);
    fmt::print(
        "audio_drc  {:.1f} emulated s played in {:.1f} wall s; {} MB written by SDL; {} "
        "missed steps\n",
        played_s, wall, written / 1000000, missed_steps);
    fmt::print("audio_drc  underruns {} ({} after the first second), {} frames dropped\n",
               r.underruns, r.underruns_after_warmup, r.frames_dropped);
    fmt::print(
        "audio_drc  queue fill after the first second: mean {:.1f} ms, min {:.1f}, max "
        "{:.1f}, sd {:.2f} (target {:.1f} ms, device buffer {:.1f} ms)\n",
        r.fill_mean_ms, r.fill_min_ms, r.fill_max_ms, r.fill_stddev_ms, target_ms, chunk_ms);
    fmt::print("audio_drc  rate factor at the end x{:.5f} (the skew asks for x{:.5f})\n",
               r.ratio_factor, 1 + skew);

    if (!check) return missed_steps > 0 ? Verdict::kStalled : Verdict::kPass;
    // The band: the queue settles off its target by skew / range of it (proportional
    // control), and moves by a device buffer plus an emulated frame between measurements.
    const double settle_ms = target_ms * std::abs(skew) / 0.005;
    const double frame_ms = core_rate / fps / core_rate * 1000.0;
    const double band_lo = target_ms - settle_ms - chunk_ms - frame_ms - 2.0;
    const double band_hi = target_ms + settle_ms + chunk_ms + frame_ms + 2.0;
    bool ok = true;
    auto require = [&](bool condition, const std::string& what) {
        if (!condition) {
            fmt::print("audio_drc  FAIL: {}\n", what);
            ok = false;
        }
    };
    require(played_s >= seconds - 1, fmt::format("only {:.1f} s played", played_s));
    require(r.underruns_after_warmup == 0,
            fmt::format("{} underruns after the first second", r.underruns_after_warmup));
    require(r.frames_dropped == 0, fmt::format("{} frames dropped", r.frames_dropped));
    require(s.fill.count() > 0 && r.fill_min_ms > 0, "the queue ran empty");
    require(r.fill_min_ms >= band_lo && r.fill_max_ms <= band_hi,
            fmt::format("fill left the band {:.1f}..{:.1f} ms", band_lo, band_hi));
    require(written >= r.frames_played * 2 * sizeof(float),
            fmt::format("SDL wrote {} bytes for {} frames", written, r.frames_played));
    if (missed_steps > 0) {
        fmt::print(
            "audio_drc  SDL's thread took {} buffers out of turn (this machine stalled the "
            "benchmark for more than --disk-delay ms){}\n",
            missed_steps, ok ? "" : ": the figures above measure the stall");
        return Verdict::kStalled;
    }
    return ok ? Verdict::kPass : Verdict::kFail;
}

}  // namespace

int main(int argc, char** argv) {
    std::string core = "arcade";
    double seconds = 60, skew = 0.001;
    int device_rate = 44100, latency_ms = 64, delay_ms = 4;
    int attempts = 1;
    bool check = false;
    // A handful of flags: parsed by hand (CLI11 costs more to compile than this program).
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        const bool has_value = i + 1 < argc;
        if (flag == "--check") {
            check = true;
        } else if (flag == "--core" && has_value) {
            core = argv[++i];
        } else if (flag == "--seconds" && has_value) {
            seconds = std::atof(argv[++i]);
        } else if (flag == "--skew" && has_value) {
            skew = std::atof(argv[++i]);
        } else if (flag == "--device-rate" && has_value) {
            device_rate = std::atoi(argv[++i]);
        } else if (flag == "--latency" && has_value) {
            latency_ms = std::atoi(argv[++i]);
        } else if (flag == "--disk-delay" && has_value) {
            delay_ms = std::atoi(argv[++i]);
        } else if (flag == "--attempts" && has_value) {
            attempts = std::atoi(argv[++i]);
        } else {
            std::fputs(kUsage, flag == "--help" ? stdout : stderr);
            return flag == "--help" ? 0 : 2;
        }
    }
    if (!(seconds > 0) || device_rate <= 0 || latency_ms <= 0 || delay_ms < 0 || attempts < 1) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    set_log_level(LogLevel::kWarn);

    const fs::path out_file =
        fs::temp_directory_path() / ("framelock-audio-drc-" + std::to_string(::getpid()) + ".raw");
    ::setenv("SDL_AUDIODRIVER", "disk", 1);
    ::setenv("SDL_DISKAUDIOFILE", out_file.c_str(), 1);
    ::setenv("SDL_DISKAUDIODELAY", std::to_string(delay_ms).c_str(), 1);

    HostConfig host;
    auto path = locate_core(core, core_search_dirs({}));
    if (!path) {
        fmt::print(stderr, "bench_audio_drc: {}\n", path.error().message);
        return 2;
    }
    host.core_path = path.value();
    host.load_sram = host.write_sram = false;
    auto emulator = RetroEmulator::create(host);
    if (!emulator) {
        fmt::print(stderr, "bench_audio_drc: {}\n", emulator.error().message);
        return 2;
    }
    RetroEmulator& emu = *emulator.value();

    SdlSubsystems sdl(SDL_INIT_AUDIO);
    if (!sdl.ok()) {
        fmt::print(stderr, "bench_audio_drc: SDL audio: {}\n", sdl.error());
        return 2;
    }
    AudioSettings settings;
    settings.rate = device_rate;
    settings.latency_ms = latency_ms;
    const Minute minute{emu, settings, seconds, skew, out_file};
    for (int attempt = 1; attempt <= attempts; ++attempt) {
        if (attempts > 1) fmt::print("audio_drc  minute {} of at most {}\n", attempt, attempts);
        const Verdict v = play_minute(minute, check);
        if (v == Verdict::kError) return 2;
        if (v != Verdict::kStalled) {
            if (check) fmt::print("audio_drc  {}\n", v == Verdict::kPass ? "PASS" : "FAIL");
            return v == Verdict::kFail ? 1 : 0;
        }
        if (!check) return 0;
        fmt::print("audio_drc  this minute is not judged: the machine stalled the benchmark\n");
    }
    fmt::print("audio_drc  FAIL: the machine stalled the benchmark in all {} minutes\n", attempts);
    return 1;
}
