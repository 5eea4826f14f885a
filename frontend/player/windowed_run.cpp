#include "frontend/player/windowed_run.h"

#include <fmt/core.h>
#include <time.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "common/log.h"
#include "common/stop_signal.h"
#include "frontend/files/text_file.h"
#include "frontend/host/headless.h"
#include "frontend/host/image.h"
#include "frontend/host/input_log.h"
#include "frontend/host/input_script.h"

namespace framelock::frontend {
namespace {

netplay::Micros to_micros(Nanos ns) {
    return ns / 1000;
}

}  // namespace

Nanos monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<Nanos>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void sleep_until_ns(Nanos deadline) {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(deadline / 1'000'000'000);
    ts.tv_nsec = static_cast<long>(deadline % 1'000'000'000);
    // Absolute: a late wake-up never shifts the next deadline. EINTR (a signal) returns
    // early; the loop checks stop_requested() and goes on.
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

Result<WindowedRunSummary> run_windowed(RetroEmulator& emulator, PlayerWindow& window,
                                        InputSource* script, const WindowedRunOptions& options) {
    std::unique_ptr<HashLogWriter> hash_log;
    if (!options.hash_log.empty()) {
        auto opened = HashLogWriter::open(options.hash_log, options.hash_regions);
        if (!opened) return opened.error();
        hash_log = std::move(opened).value();
    }
    std::unique_ptr<TextFile> timing_log;
    std::unique_ptr<InputLogWriter> input_log;
    if (!options.timing_log.empty()) {
        auto opened = TextFile::open(options.timing_log, "timing log");
        if (!opened) return opened.error();
        timing_log = std::move(opened).value();
    }
    if (!options.input_log.empty()) {
        auto opened = InputLogWriter::open(options.input_log,
                                           "framelock run: the pads of every port, as played");
        if (!opened) return opened.error();
        input_log = std::move(opened).value();
    }

    HeadlessVideo copy;  // the core screenshot's copy, passing every picture on
    const bool want_core_picture = options.screenshot_frame && !options.screenshot_path.empty();
    if (want_core_picture) {
        copy.keep_last_frame(true);
        copy.forward_to(&window.video());
        emulator.set_video_sink(&copy);
    } else {
        emulator.set_video_sink(&window.video());
    }
    emulator.set_audio_sink(window.audio());

    WindowedRunSummary summary;
    FramePacer pacer(emulator.frames_per_second());
    // Ten minutes' worth up front; longer runs grow the vectors (16 bytes a frame).
    const std::size_t expected = static_cast<std::size_t>(
        options.frames && options.frames < 36'000 ? options.frames : 36'000);
    std::vector<Nanos> issued_times, presented;
    issued_times.reserve(expected);
    presented.reserve(expected);
    retro_system_av_info av = emulator.av_info();
    Status core_picture_status;

    const Nanos start = monotonic_ns();
    pacer.start(start);
    while (options.frames == 0 || summary.frames < options.frames) {
        // Prepare the frame (pads, core, drawing) ahead of its due time, show it on time.
        const Nanos due = pacer.due();
        sleep_until_ns(pacer.wake());
        const std::uint64_t frame = emulator.frame_count();
        const Nanos sampled = monotonic_ns();
        window.set_next_frame(frame);
        window.pump_events();
        if (window.quit_requested() || stop_requested()) {
            summary.quit = true;
            break;
        }
        netplay::InputFrame input = window.input().input_for(frame);
        if (script) {
            const netplay::InputFrame scripted = script->input_for(frame);
            for (int p = 0; p < netplay::kMaxPlayers; ++p)
                input.pads[p] = static_cast<netplay::InputWord>(input.pads[p] | scripted.pads[p]);
        }
        if (input_log) input_log->write(frame, input, emulator.ports());
        emulator.run_frame(input, true);
        if (hash_log) hash_log->write(frame, emulator);
        ++summary.frames;

        // SET_SYSTEM_AV_INFO / SET_GEOMETRY: new rate or picture shape from the next frame.
        const retro_system_av_info& now_av = emulator.av_info();
        if (now_av.timing.fps != av.timing.fps && now_av.timing.fps > 0) {
            log_info("the core now runs at {:.4f} fps", now_av.timing.fps);
            pacer.set_fps(now_av.timing.fps);
        }
        if (now_av.timing.sample_rate != av.timing.sample_rate)
            window.set_sample_rate(now_av.timing.sample_rate);
        if (now_av.geometry.base_width != av.geometry.base_width ||
            now_av.geometry.base_height != av.geometry.base_height ||
            now_av.geometry.aspect_ratio != av.geometry.aspect_ratio) {
            window.set_geometry(now_av.geometry.base_width, now_av.geometry.base_height,
                                now_av.geometry.aspect_ratio);
        }
        av = now_av;

        const bool shot = options.screenshot_frame && *options.screenshot_frame == frame;
        if (shot && !options.window_screenshot_path.empty())
            window.capture_next_show(options.window_screenshot_path);
        window.draw(to_micros(monotonic_ns()));
        pacer.prepared(monotonic_ns() - sampled);
        sleep_until_ns(due);
        const Nanos issued = monotonic_ns();
        window.present();
        const Nanos shown = monotonic_ns();
        // The first frame pays for creating textures and warming caches: the schedule
        // starts when it is on screen.
        if (summary.frames == 1) pacer.start(shown);
        issued_times.push_back(issued);
        presented.push_back(shown);
        if (timing_log) {
            std::fprintf(timing_log->get(), "%llu %lld %lld %lld %lld\n",
                         static_cast<unsigned long long>(frame), static_cast<long long>(due),
                         static_cast<long long>(sampled), static_cast<long long>(issued),
                         static_cast<long long>(shown));
        }
        if (shot && want_core_picture) {
            const Image picture = to_image(copy.last_frame());
            core_picture_status =
                picture.width ? write_png(options.screenshot_path, picture)
                              : Status(make_error(ErrorCode::kIo,
                                                  fmt::format("the core showed no picture at frame "
                                                              "{} for {}",
                                                              frame, options.screenshot_path)));
        }
        pacer.frame_done(shown);
        if (emulator.shutdown_requested()) {
            summary.core_shutdown = true;
            break;
        }
    }
    summary.seconds = static_cast<double>(monotonic_ns() - start) / 1e9;
    emulator.set_video_sink(nullptr);
    emulator.set_audio_sink(nullptr);
    summary.fps = pacer.fps();
    summary.pacing = summarize_pacing(issued_times, pacer.fps());
    summary.pacing_returned = summarize_pacing(presented, pacer.fps());
    summary.pacing_restarts = pacer.restarts();
    summary.final_state_hash = emulator.state_hash();
    if (hash_log) {
        if (Status s = hash_log->close(); !s) return s.error();
    }
    if (timing_log) {
        if (Status s = timing_log->close(); !s) return s.error();
    }
    if (input_log) {
        if (Status s = input_log->close(); !s) return s.error();
    }
    if (!core_picture_status) return core_picture_status.error();
    if (Status s = window.capture_status(); !s) return s.error();
    if (options.screenshot_frame && summary.frames <= *options.screenshot_frame) {
        return make_error(ErrorCode::kIo, fmt::format("no picture of frame {}: the run ended after "
                                                      "{} frames",
                                                      *options.screenshot_frame, summary.frames));
    }
    return summary;
}

}  // namespace framelock::frontend
