// What a peer must agree on to stay in sync, read from the running emulator.
#pragma once

#include "frontend/host/retro_emulator.h"
#include "netplay/wire/protocol.h"

namespace framelock::frontend {

// Core name and version, content hash, core options hash, frames per second x 1000 rounded,
// controller ports: what a client says in its Hello, a replay records and a lobby room lists.
netplay::SessionIdentity session_identity(const RetroEmulator& emulator);

}  // namespace framelock::frontend
