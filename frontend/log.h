// The player's name for the process-wide log of common/log.h (the lobby service logs there
// too): the frontend's files keep including this header and calling frontend::log_*.
#pragma once

#include "common/log.h"

namespace framelock::frontend {

using framelock::log_debug;
using framelock::log_error;
using framelock::log_info;
using framelock::log_level;
using framelock::log_line;
using framelock::log_warn;
using framelock::LogLevel;
using framelock::set_log_level;

}  // namespace framelock::frontend
