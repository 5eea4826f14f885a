#include "frontend/app/window_setup.h"

#include <fmt/core.h>

#include <filesystem>

#include "common/log.h"
#include "frontend/app/config.h"
#include "frontend/files/user_dirs.h"

namespace framelock::frontend {

Result<bool> want_window(VideoMode mode) {
    if (mode == VideoMode::kNone) return false;
    std::string why;
    const bool available = display_available(&why);
    if (mode == VideoMode::kSdl) {
        if (available) return true;
        return make_error(ErrorCode::kUsage, "--video sdl: " + why +
                                                 "; use --video none to run "
                                                 "headless");
    }
    if (!available) log_info("{}: running headless (--video none says so quietly)", why);
    return available;
}

std::string window_title(const HostArgs& args, RetroEmulator& emulator) {
    return "framelock - " + emulator.core_info().library_name +
           (args.content.empty() ? std::string()
                                 : " - " + std::filesystem::path(args.content).filename().string());
}

Result<std::unique_ptr<PlayerWindow>> open_window(const HostArgs& args, PlayerWindowConfig window) {
    auto config = args.load();
    if (!config) return config.error();
    window.settings = config.value().player;
    window.audio = args.audio != AudioMode::kNone && window.settings.audio.enabled;
    window.audio_required = args.audio == AudioMode::kSdl;
    window.screenshot_dir = !window.settings.video.screenshot_dir.empty()
                                ? window.settings.video.screenshot_dir
                                : default_data_dir() + "/screenshots";
    auto opened = open_player_window(window);
    if (!opened) return opened.error();
    log_info("window: {}", opened.value()->describe());
    return opened;
}

Result<std::unique_ptr<PlayerWindow>> open_window(const HostArgs& args, RetroEmulator& emulator) {
    const retro_system_av_info& av = emulator.av_info();
    PlayerWindowConfig window;
    window.title = window_title(args, emulator);
    window.base_width = av.geometry.base_width;
    window.base_height = av.geometry.base_height;
    window.aspect = av.geometry.aspect_ratio;
    window.sample_rate = av.timing.sample_rate;
    return open_window(args, std::move(window));
}

void print_audio_report(const PlayerWindow& window) {
    const auto audio = window.audio_report();
    if (!audio) return;
    fmt::print(
        "audio    {} at {} Hz: {} underruns ({} after the first second), {} frames "
        "dropped; queue {:.1f} ms mean ({:.1f}..{:.1f}, sd {:.2f}) for a {:.1f} ms target, "
        "rate x{:.5f}\n",
        audio->driver, audio->device_rate, audio->underruns, audio->underruns_after_warmup,
        audio->frames_dropped, audio->fill_mean_ms, audio->fill_min_ms, audio->fill_max_ms,
        audio->fill_stddev_ms, audio->target_fill_ms, audio->ratio_factor);
}

}  // namespace framelock::frontend
