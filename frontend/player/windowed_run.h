// `framelock run` in a window: the core at its own frame rate (FramePacer on the monotonic
// clock), the picture and sound in a PlayerWindow, the pads from the keyboard and
// controllers (plus an optional script or bot, OR-ed in), until the window is closed, the
// quit hotkey, SIGINT/SIGTERM, the core asking to shut down, or --frames.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "frontend/host/io.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/player/frame_pacer.h"
#include "frontend/player/player_window.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

struct WindowedRunOptions {
    std::uint64_t frames = 0;  // 0: until the player quits
    std::string hash_log;      // "FRAME HASH" per frame, as headless runs write it
    bool hash_regions = false;
    std::optional<std::uint64_t> screenshot_frame;
    std::string screenshot_path;         // the core's picture of that frame (PNG)
    std::string window_screenshot_path;  // the window as shown right after it (PNG)
    // One line per frame: "FRAME DUE_NS SAMPLED_NS ISSUED_NS PRESENTED_NS", CLOCK_MONOTONIC
    // nanoseconds (comparable across processes): when the frame was due to be shown, when
    // its pads were read, when the present call was made, and when it returned (the
    // display stack had the picture; on Xvfb that includes a software copy of the window).
    std::string timing_log;
    // The pads every frame got, as an input script (a line per change per port): replaying
    // it with `framelock run --input` gives the same frames, hash for hash.
    std::string input_log;
};

struct WindowedRunSummary {
    std::uint64_t frames = 0;
    std::uint64_t final_state_hash = 0;
    double seconds = 0;
    bool quit = false;  // the player (or a signal) ended it
    bool core_shutdown = false;
    double fps = 0;                // the core's rate at the end
    PacingReport pacing;           // intervals between present calls (the pacer's timing)
    PacingReport pacing_returned;  // ... between their returns (plus the display stack)
    std::uint64_t pacing_restarts = 0;
};

// Two pad sources OR-ed port by port: the window's keyboard and controllers, and a script
// or bot (netplay bots in a window, tests). Both borrowed.
class MergedInput final : public InputSource {
  public:
    MergedInput(InputSource& first, InputSource& second) : m_first(first), m_second(second) {}
    netplay::InputFrame input_for(std::uint64_t frame) override {
        netplay::InputFrame out = m_first.input_for(frame);
        const netplay::InputFrame more = m_second.input_for(frame);
        for (int p = 0; p < netplay::kMaxPlayers; ++p)
            out.pads[p] = static_cast<netplay::InputWord>(out.pads[p] | more.pads[p]);
        return out;
    }

  private:
    InputSource& m_first;
    InputSource& m_second;
};

// Nanoseconds of CLOCK_MONOTONIC (std::chrono::steady_clock's clock on Linux).
Nanos monotonic_ns();
// Sleeps until CLOCK_MONOTONIC reaches `deadline` (absolute: no drift from wake-up delays).
void sleep_until_ns(Nanos deadline);

Result<WindowedRunSummary> run_windowed(RetroEmulator& emulator, PlayerWindow& window,
                                        InputSource* script, const WindowedRunOptions& options);

}  // namespace framelock::frontend
