// A player's netplay session, as `framelock join`, `browse` and `host` play it: the core,
// the window (or none), the lobby's room, the session's server in this process for `host`,
// the real-time loop, and the summaries at the end.
#pragma once

#include <memory>

#include "frontend/app/join_args.h"
#include "frontend/app/server_args.h"
#include "frontend/player/player_window.h"

namespace framelock::frontend {

// A player's session, with the session's server in this process when `server_args` is given
// (`framelock host`, unless the lobby assigns a relay server). Returns the exit code.
// With `browser_window` (`framelock browse`), the session plays in that window, already
// open, instead of a new one.
int play_netplay(const JoinArgs& args, const ServerArgs* server_args,
                 std::unique_ptr<PlayerWindow> browser_window = nullptr);

}  // namespace framelock::frontend
