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

// For `--mode auto` (a host's own choice, and a player vouching to a server): whether the
// hybrid may rely on this core's savestates with this content. Not where the core atlas
// (common/core_atlas.h, the verdicts `framelock atlas` measured) found this core and version
// unsafe for rollback: that answer, with the atlas's reason, without running anything. Else
// the rollback check (check_rollback_savestates) on this content, kRollbackCheckFrames
// frames, reloading 1 and `window` frames back.
Status rollback_trusted_for_auto(const HostConfig& host, std::uint32_t window);

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
