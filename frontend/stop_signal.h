// The player's name for the stop on SIGINT/SIGTERM of common/stop_signal.h (the lobby
// service stops on it too).
#pragma once

#include "common/stop_signal.h"

namespace framelock::frontend {

using framelock::install_stop_signal_handlers;
using framelock::request_stop;
using framelock::stop_requested;

}  // namespace framelock::frontend
