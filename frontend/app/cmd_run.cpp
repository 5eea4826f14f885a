// `framelock run`: a core alone, in a window at the core's rate, or headless at full speed
// with scripted input; a summary of what ran on stdout.
#include <fmt/core.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/stop_signal.h"
#include "frontend/app/command_error.h"
#include "frontend/app/commands.h"
#include "frontend/app/host_args.h"
#include "frontend/app/window_setup.h"
#include "frontend/host/headless.h"
#include "frontend/host/input_script.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/player/windowed_run.h"
#include "netplay/determinism/state_hash.h"

namespace framelock::frontend {
namespace {

struct RunArgs {
    HostArgs host;
    std::uint64_t frames = 600;
    CLI::Option* frames_opt = nullptr;
    std::int64_t screenshot_frame = -1;
    std::string screenshot;
    std::string window_screenshot;
    std::string timing_log;
    std::string input_log;
    std::string input_script;
    std::uint64_t random_seed = 0;
    bool random = false;
    std::string hash_log;
    bool hash_regions = false;
};

// `framelock run` in a window: real time at the core's rate, until the player quits (or
// --frames).
int run_in_window(const RunArgs& args, RetroEmulator& emu, const HostConfig& host,
                  InputSource& input) {
    auto window = open_window(args.host, emu);
    if (!window) return fail(window.error());
    install_stop_signal_handlers();
    WindowedRunOptions options;
    options.frames = args.frames_opt->count() ? args.frames : 0;
    options.hash_log = args.hash_log;
    options.hash_regions = args.hash_regions;
    if (args.screenshot_frame >= 0) {
        options.screenshot_frame = static_cast<std::uint64_t>(args.screenshot_frame);
        options.screenshot_path = args.screenshot;
        options.window_screenshot_path = args.window_screenshot;
    }
    options.timing_log = args.timing_log;
    options.input_log = args.input_log;
    const bool scripted = !args.input_script.empty() || args.random;
    auto summary = run_windowed(emu, *window.value(), scripted ? &input : nullptr, options);
    if (!summary) return fail(summary.error());
    const auto& s = summary.value();
    fmt::print("core     {} {}\n", emu.core_info().library_name, emu.core_info().library_version);
    fmt::print("content  {}\n", host.content_path.empty() ? "(none)" : host.content_path);
    fmt::print("options  {} ({} options)\n", netplay::hash_to_hex(emu.options().hash()),
               emu.options().options().size());
    fmt::print("frames   {}{}\n", s.frames, s.quit ? " (quit)" : "");
    fmt::print("state    {}\n", netplay::hash_to_hex(s.final_state_hash));
    for (const auto& [what, p] :
         {std::pair{"presents", &s.pacing}, std::pair{"returns ", &s.pacing_returned}}) {
        fmt::print(
            "pacing   {} {} intervals at {:.4f} fps: mean {:.4f} ms ({:+.4f}% of {:.4f} ms), "
            "p99 deviation {:.3f} ms, max {:.3f} ms\n",
            what, p->intervals, s.fps, p->mean_ms, p->mean_error_pct, p->target_ms,
            p->p99_abs_deviation_ms, p->max_abs_deviation_ms);
    }
    if (s.pacing_restarts)
        fmt::print("note     fell behind by more than 250 ms {} times\n", s.pacing_restarts);
    print_audio_report(*window.value());
    if (s.core_shutdown)
        fmt::print("note     the core asked to shut down after frame {}\n", s.frames);
    return 0;
}

int cmd_run(const RunArgs& args) {
    args.host.apply_log_level();
    auto host = args.host.to_host_config();
    if (!host) return fail(host.error());

    auto made = make_input_source(args.input_script,
                                  args.random ? std::optional(args.random_seed) : std::nullopt,
                                  host.value().ports);
    if (!made) return fail(made.error());
    std::unique_ptr<InputSource> input = std::move(made).value();

    auto windowed = want_window(args.host.video);
    if (!windowed) return fail(windowed.error());
    if (!windowed.value() && !args.window_screenshot.empty())
        return fail(make_error(ErrorCode::kUsage, "--window-screenshot needs a window"));

    auto emulator = RetroEmulator::create(host.value());
    if (!emulator) return fail(emulator.error());
    RetroEmulator& emu = *emulator.value();
    if (windowed.value()) return run_in_window(args, emu, host.value(), *input);

    HeadlessVideo video;
    HeadlessAudio audio;
    emu.set_video_sink(&video);
    emu.set_audio_sink(&audio);

    HeadlessRunOptions options{args.frames, args.hash_log, args.hash_regions, std::nullopt, {}};
    if (args.screenshot_frame >= 0) {
        options.screenshot_frame = static_cast<std::uint64_t>(args.screenshot_frame);
        options.screenshot_path = args.screenshot;
    }
    auto summary = run_headless(emu, *input, options);
    if (!summary) return fail(summary.error());
    const auto& s = summary.value();
    const double fps = emu.frames_per_second();
    fmt::print("core     {} {}\n", emu.core_info().library_name, emu.core_info().library_version);
    fmt::print("content  {}\n",
               host.value().content_path.empty() ? "(none)" : host.value().content_path);
    fmt::print("options  {} ({} options)\n", netplay::hash_to_hex(emu.options().hash()),
               emu.options().options().size());
    fmt::print("frames   {}\n", s.frames);
    fmt::print("state    {}\n", netplay::hash_to_hex(s.final_state_hash));
    fmt::print("speed    {:.0f} frames/s ({:.1f}x the core's {:.3f} fps)\n", s.frames / s.seconds,
               s.frames / s.seconds / fps, fps);
    fmt::print("output   {} video frames, {} audio frames\n", video.frames(), audio.frames());
    if (s.core_shutdown)
        fmt::print("note     the core asked to shut down after frame {}\n", s.frames);
    return 0;
}

}  // namespace

Subcommand add_run_command(CLI::App& app) {
    auto args = std::make_shared<RunArgs>();
    CLI::App* run = app.add_subcommand(
        "run", "play a core in a window (or headless at full speed with scripted input)");
    args->host.add_to(*run);
    args->frames_opt =
        run->add_option("--frames", args->frames,
                        "frames to run (default: 600 headless; in a window, until you quit)");
    auto* run_shot_frame = run->add_option("--screenshot-frame", args->screenshot_frame,
                                           "save the picture of this frame (0-based) ...")
                               ->check(CLI::NonNegativeNumber);
    run->add_option("--screenshot", args->screenshot, "... the core's picture, as this PNG")
        ->needs(run_shot_frame);
    run->add_option("--window-screenshot", args->window_screenshot,
                    "... the window as shown right after it, as this PNG")
        ->needs(run_shot_frame);
    run->add_option("--timing-log", args->timing_log,
                    "in a window: 'FRAME DUE_NS SAMPLED_NS PRESENTED_NS' per frame (monotonic "
                    "clock)");
    run->add_option("--input-log", args->input_log,
                    "in a window: the pads played, as an input script (replay with --input)");
    auto* input_opt =
        run->add_option("--input", args->input_script, "input script (see docs/input-script.md)");
    auto* random_opt =
        run->add_option("--random", args->random_seed, "random bot input with this seed");
    input_opt->excludes(random_opt);
    run->add_option("--hash-log", args->hash_log,
                    "write 'FRAME HASH' for every frame to this file");
    run->add_flag("--hash-regions", args->hash_regions,
                  "add each memory region's hash to every hash-log line");
    return {run, [args, random_opt] {
                args->random = random_opt->count() > 0;
                if (args->screenshot_frame >= 0 && args->screenshot.empty() &&
                    args->window_screenshot.empty()) {
                    return fail(
                        make_error(ErrorCode::kUsage,
                                   "--screenshot-frame needs --screenshot or --window-screenshot"));
                }
                return cmd_run(*args);
            }};
}

}  // namespace framelock::frontend
