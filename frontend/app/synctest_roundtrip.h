// The determinism lab's round-trip check (`framelock synctest --mode roundtrip`):
// netplay::RoundTripCheck (save every frame, serialize twice, reload `check_distance` frames
// back, compare right after loading and every re-run frame) in one worker process.
//
// The worker writes a line per frame it runs ("f FRAME") and re-runs ("r FRAME"), then
// "result JSON" with the verdict and its evidence; the state bytes and the picture of a
// divergence go into its directory. The parent reads the lines into a CheckReport, or reports
// a crash at the last frame it saw.
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>

#include "frontend/app/determinism_lab.h"
#include "frontend/app/synctest_report.h"
#include "frontend/app/synctest_worker.h"

namespace framelock::frontend::synctest {

// The worker's side: runs the whole check on `core`, its lines on `out` (the pipe to the
// parent, which nothing else writes to), evidence into `dir`. 0.
int run_roundtrip_worker(const SynctestOptions& options, WorkerCore& core,
                         const std::filesystem::path& dir, std::FILE* out);

// The parent's side: one worker in report_dir/roundtrip. A check that ran (passed, failed or
// crashed), or an error when the worker could not start or the core would not load.
Result<CheckReport> check_roundtrip(const SynctestOptions& options,
                                    const std::filesystem::path& report_dir);

}  // namespace framelock::frontend::synctest
