// What every `framelock replay` subcommand starts from: the replay read, and its emulator ready
// at its first frame (the core and content the replay names, checked against its recorded
// identity; its start state loaded; its save RAM if asked).
#pragma once

#include <memory>
#include <string>

#include "frontend/app/host_args.h"
#include "frontend/host/retro_emulator.h"
#include "netplay/base/result.h"
#include "netplay/determinism/replay.h"

namespace framelock::frontend {

// The replay at `file`, read whole; a file cut short (a crash while recording) is read up to
// its last complete block, with a warning saying where it ends.
Result<netplay::ReplayContents> read_replay(const std::string& file);

// `sram`: the session was played with `join --sram` and started from that save RAM (which
// is never written). Errors say which setup differs, or that the core refused the state.
Result<std::unique_ptr<RetroEmulator>> start_replay_emulator(
    const HostArgs& args, const netplay::ReplayContents& contents, bool sram);

}  // namespace framelock::frontend
