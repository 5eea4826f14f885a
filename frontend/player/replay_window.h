// `framelock replay view`: a replay in the window, moved by the viewer (replay_viewer.h):
// played at the core's rate times the speed chosen, paused, stepped a frame at a time both
// ways and sought anywhere (netplay::ReplaySeeker, from the nearest keyframe), with sound at
// 1x, the players' pads and the chat at the frame shown, until the window is closed, Esc or
// SIGINT/SIGTERM.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "frontend/host/retro_emulator.h"
#include "frontend/player/player_window.h"
#include "netplay/base/result.h"
#include "netplay/determinism/replay.h"
#include "netplay/determinism/replay_seeker.h"

namespace framelock::frontend {

struct ReplayWindowOptions {
    std::optional<std::uint64_t> start_frame;  // shown first (default: the replay's first)
    bool play = true;                          // playing from the start, else paused
    // Each frame the viewer comes to rest on (paused, stepped or sought to) is checked
    // against the recorded hash, and logged: "viewer: frame N shown, as recorded".
    bool check_frames = true;
};

struct ReplayWindowSummary {
    std::uint64_t frames_shown = 0;  // pictures presented
    std::uint64_t seeks = 0;         // moves other than running on (through ReplaySeeker::show)
    std::uint64_t checked = 0;       // frames checked against the recording
    std::uint64_t differed = 0;      // ... that differed from it
    std::uint64_t last_frame = 0;    // the frame shown at the end
};

Result<ReplayWindowSummary> run_replay_window(RetroEmulator& emulator, PlayerWindow& window,
                                              const netplay::ReplayContents& contents,
                                              netplay::ReplaySeeker& seeker,
                                              const ReplayWindowOptions& options);

}  // namespace framelock::frontend
