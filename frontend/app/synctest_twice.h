// The determinism lab's run-twice check (`framelock synctest --mode twice`): two worker
// processes from power-on with the same inputs, driven frame by frame and compared after
// every frame (state hash and every memory region's hash); the first run's lines are the
// cross-machine hash log. At the first difference both dump their state, memory and picture.
//
// The parent writes commands on each worker's stdin:
//   run                    run one frame; answered by its hash-log line ("FRAME HASH NAME=HASH...")
//   mask OFFSET:LENGTH...  leave these savestate bytes out of the state hash from now on (no
//                          answer): bytes that differ between processes from power-on
//   dump                   write state.bin, region-NAME.bin and picture.png into the worker's
//                          directory; answered by "dumped NAME@START..." (START in hex)
//   quit                   end
#pragma once

#include <cstdio>
#include <filesystem>

#include "frontend/app/determinism_lab.h"
#include "frontend/app/synctest_report.h"
#include "frontend/app/synctest_worker.h"

namespace framelock::frontend::synctest {

// The worker's side: answers the commands above on stdin until "quit" or end of file, on
// `out` (the pipe to the parent, which nothing else writes to), with evidence into `dir`. 0,
// or kUsage for an unknown command.
int run_twice_worker(WorkerCore& core, const std::filesystem::path& dir, std::FILE* out);

// The parent's side: two workers in report_dir/twice/{a,b}, the first one's lines written to
// `hash_log`. A check that ran (passed, diverged or crashed), or an error when a worker could
// not start, the core would not load or the log cannot be written.
Result<CheckReport> check_twice(const SynctestOptions& options,
                                const std::filesystem::path& report_dir,
                                const std::filesystem::path& hash_log);

}  // namespace framelock::frontend::synctest
