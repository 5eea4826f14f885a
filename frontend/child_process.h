// The player's name for common/child_process.h (the lobby's tests run processes with it
// too).
#pragma once

#include "common/child_process.h"

namespace framelock::frontend {

using framelock::ChildProcess;
using framelock::ExitStatus;
using framelock::parse_port_file;
using framelock::wait_for_port_file;

}  // namespace framelock::frontend
