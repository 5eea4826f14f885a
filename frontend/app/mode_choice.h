// Which way a host's own server keeps its players in step, and why: `--mode auto` plays the
// hybrid (rollback over the frame lock's adaptive delay, netplay/timing/delay_controller.h)
// on a core whose savestates pass the rollback check with this content, and the frame lock
// on the others; `rollback` and `hybrid` need the check to pass (or --fallback-framelock);
// `framelock` and `nowait` need no check.
#pragma once

#include <string>

#include "frontend/app/server_args.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/session/server_runner.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

// The frames the rollback check runs (reloading 1 frame and a prediction window back, every
// frame): a host's for `auto`, and a player's when a server asks it to vouch.
inline constexpr std::uint64_t kRollbackCheckFrames = 600;

struct ModeChoice {
    std::string mode;    // what is played: "framelock", "nowait", "rollback" or "hybrid"
    std::string reason;  // why, for the log, the stats and the lobby's room
};

// Decides `args.mode` for a server that runs in this process with the core and content of
// `host` (running the savestate check when the mode needs it), and sets `config` (from
// args.to_config() for the mode chosen). A refusal (rollback or hybrid asked for, the check
// failed, no --fallback-framelock) names the frame and what differed.
Result<ModeChoice> choose_mode(const ServerArgs& args, const HostConfig& host,
                               ServerRunConfig& config);

}  // namespace framelock::frontend
