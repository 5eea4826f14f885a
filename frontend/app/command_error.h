// How every `framelock` subcommand ends on an expected failure (a missing core, a bad flag,
// a refused session): one line "framelock: error: MESSAGE" on stderr, and the error's
// ErrorCode as the process's exit code.
#pragma once

#include "netplay/base/result.h"

namespace framelock::frontend {

// Prints `error` as above; returns the exit code to end with.
int fail(const Error& error);

}  // namespace framelock::frontend
