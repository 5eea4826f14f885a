#include "frontend/session/session_identity.h"

#include <cmath>

namespace framelock::frontend {

netplay::SessionIdentity session_identity(const RetroEmulator& emulator) {
    netplay::SessionIdentity id;
    id.core_name = emulator.core_info().library_name;
    id.core_version = emulator.core_info().library_version;
    id.content_hash = emulator.content_hash();
    id.options_hash = emulator.options().hash();
    id.fps_milli = static_cast<std::uint32_t>(std::lround(emulator.frames_per_second() * 1000.0));
    id.ports = static_cast<std::uint8_t>(emulator.ports());
    return id;
}

}  // namespace framelock::frontend
