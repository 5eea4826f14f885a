// The `framelock` command line: one executable, one subcommand per job.
#pragma once

namespace framelock::frontend {

// Returns the process exit code: 0 on success, an ErrorCode value on an expected failure.
int run_cli(int argc, char** argv);

}  // namespace framelock::frontend
