#include "frontend/player/replay_window.h"

#include "common/log.h"
#include "common/stop_signal.h"
#include "frontend/player/frame_pacer.h"
#include "frontend/player/replay_viewer.h"
#include "frontend/player/windowed_run.h"
#include "netplay/determinism/state_hash.h"

namespace framelock::frontend {
namespace {

// Up to this many frames ahead, the viewer runs them (the last with its picture) instead of
// seeking: playing at 4x moves 4 a display frame.
constexpr std::uint64_t kRunAhead = 8;

}  // namespace

Result<ReplayWindowSummary> run_replay_window(RetroEmulator& emulator, PlayerWindow& window,
                                              const netplay::ReplayContents& contents,
                                              netplay::ReplaySeeker& seeker,
                                              const ReplayWindowOptions& options) {
    ReplayWindowSummary summary;
    if (seeker.end() == seeker.first())
        return make_error(ErrorCode::kState, "the replay has no frames");
    const double fps = emulator.frames_per_second() > 0 ? emulator.frames_per_second() : 60;
    ReplayViewer viewer(seeker.first(), seeker.end(), fps);
    emulator.set_video_sink(&window.video());
    window.set_viewer_mode(true);
    if (options.start_frame) viewer.rest_at(*options.start_frame);
    if (options.play) viewer.apply({ViewerCommand::kPlayPause, 0});

    FramePacer pacer(fps);
    Nanos last_tick = monotonic_ns();
    pacer.start(last_tick);
    bool sound = false;
    bool playing = false;
    std::optional<std::uint64_t> checked;  // the frame last checked where the viewer rested
    while (true) {
        sleep_until_ns(pacer.wake());
        window.pump_events();
        if (window.quit_requested() || stop_requested()) break;
        for (const ViewerInput& input : window.take_viewer_inputs()) viewer.apply(input);
        if (viewer.playing() != playing) {
            playing = viewer.playing();
            if (playing)
                log_info("viewer: playing from frame {} at {}x", viewer.target(), viewer.speed());
        }
        const Nanos now = monotonic_ns();
        const std::uint64_t target = viewer.tick((now - last_tick) / 1000);
        last_tick = now;
        // Sound at 1x only: other speeds skip or repeat frames.
        if (viewer.sound() != sound) {
            sound = viewer.sound();
            emulator.set_audio_sink(sound ? window.audio() : nullptr);
        }
        const bool moved = !seeker.shown_any() || seeker.shown() != target;
        if (moved) {
            if (seeker.shown_any() && target > seeker.shown() &&
                target - seeker.shown() <= kRunAhead) {
                while (seeker.shown() + 1 < target) seeker.advance(false);
                seeker.advance(true);
            } else {
                auto ran = seeker.show(target);
                if (!ran) {
                    window.overlay().messages().post(ran.error().message, Tone::kError, now / 1000,
                                                     5'000'000);
                    log_error("viewer: {}", ran.error().message);
                    viewer.rest_at(seeker.shown_any() ? seeker.shown() : seeker.first());
                } else {
                    ++summary.seeks;
                }
                // A long seek (a heavy core re-running hundreds of frames) is no time played.
                last_tick = monotonic_ns();
            }
            ++summary.frames_shown;
        }
        // Where the viewer comes to rest (paused), the state is checked against the
        // recording's: what a core developer stepping through a desync needs to trust.
        if (options.check_frames && !viewer.playing() && seeker.shown_any() &&
            checked != seeker.shown()) {
            checked = seeker.shown();
            ++summary.checked;
            const std::uint64_t here = seeker.hash_now(), recorded = seeker.recorded_hash();
            if (here == recorded) {
                log_info("viewer: frame {} shown, as recorded", seeker.shown());
            } else {
                ++summary.differed;
                log_warn("viewer: frame {} shown, state {} here, {} recorded", seeker.shown(),
                         netplay::hash_to_hex(here), netplay::hash_to_hex(recorded));
            }
        }
        window.overlay().set_replay(viewer.panel(contents, seeker.shown()));
        window.draw(monotonic_ns() / 1000);
        sleep_until_ns(pacer.due());
        window.present();
        pacer.frame_done(monotonic_ns());
    }
    emulator.set_video_sink(nullptr);
    emulator.set_audio_sink(nullptr);
    window.set_viewer_mode(false);
    window.overlay().set_replay(std::nullopt);
    summary.last_frame = seeker.shown_any() ? seeker.shown() : seeker.first();
    if (Status s = window.capture_status(); !s) return s.error();
    return summary;
}

}  // namespace framelock::frontend
