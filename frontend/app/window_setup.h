// The player's window as the subcommands open it: whether a run gets one (--video), its
// title, the config file's settings, and the sound report printed at the end.
#pragma once

#include <memory>
#include <string>

#include "frontend/app/host_args.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/player/player_window.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

// Whether this run gets a window: --video none never, --video sdl always (or an error
// naming what is missing), --video auto when a display is there (else it says so and runs
// headless).
Result<bool> want_window(VideoMode mode);

// "framelock - CORE - CONTENT": the title of a window playing `emulator`.
std::string window_title(const HostArgs& args, RetroEmulator& emulator);

// Opens the player's window `window` (its title, and the picture's size and sound's rate
// when known) with the config file's [video], [audio], [input] and [hotkeys] and --audio.
Result<std::unique_ptr<PlayerWindow>> open_window(const HostArgs& args, PlayerWindowConfig window);
// The same for a window playing `emulator`, titled by window_title().
Result<std::unique_ptr<PlayerWindow>> open_window(const HostArgs& args, RetroEmulator& emulator);

// The window's sound over the run (driver, underruns, queue fill, rate), on stdout; nothing
// without sound.
void print_audio_report(const PlayerWindow& window);

}  // namespace framelock::frontend
