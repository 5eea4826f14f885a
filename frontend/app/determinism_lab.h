// `framelock synctest`: the determinism lab. Tells a core developer whether a core is a pure
// function of its inputs, and if not, the first frame where it stops being one and which
// memory and which savestate bytes differ.
//
// Each check runs the core in child processes (this executable again, with --worker), so a
// core that crashes is reported with its frame and the two runs of "run twice" share no
// globals (synctest_worker.h: both ends of that channel):
// - roundtrip (synctest_roundtrip.h): netplay::RoundTripCheck (save every frame, serialize
//   twice, reload `distance` frames back, compare right after loading and every re-run
//   frame) in one worker;
// - twice (synctest_twice.h): two workers from power-on with the same inputs, driven frame by
//   frame over pipes and compared after every frame (state hash and every memory region's
//   hash); at the first difference both dump their state, memory and picture;
// - the cross-machine hash log (report/hashes.log; synctest_hash_log.h: `--compare A B`
//   compares two of them).
//
// The report directory (synctest_report.h) holds summary.txt, summary.json and, per failed
// check, the two states at the divergent frame, the differing memory and a PNG of both
// pictures side by side with the differing pixels highlighted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontend/app/synctest_hash_log.h"  // run_synctest_compare, for `--compare A B`
#include "frontend/host/retro_emulator.h"

namespace framelock::frontend {

struct SynctestOptions {
    HostConfig host;  // SRAM is neither loaded nor written
    std::uint64_t frames = 10'000;
    std::string input_script;
    std::optional<std::uint64_t> random_seed;  // neither: random with seed 1
    bool check_roundtrip = true;
    bool check_twice = true;
    std::uint32_t check_distance = 8;
    std::string report_dir = "synctest-report";
    // How to start a worker: this executable and the arguments that gave these options;
    // the worker flags are appended.
    std::vector<std::string> self_command;
    bool progress = true;
};

// Runs the selected checks, writes the report, prints the verdicts. Exit code: 0 when every
// selected check passed, 1 when one found the core nondeterministic (or crashing, or without
// savestates), the ErrorCode of a setup error otherwise.
int run_synctest(const SynctestOptions& options);

// The child side. mode "roundtrip": the whole round-trip check, progress and result lines on
// stdout, evidence into `dir`. mode "twice": reads "run"/"dump"/"quit" commands from stdin,
// answers each "run" with a hash-log line and "dump" by writing evidence into `dir`.
int run_synctest_worker(const SynctestOptions& options, const std::string& mode,
                        const std::string& dir);

// Before a rollback session: the round-trip check (netplay::RoundTripCheck, the same code
// as `framelock synctest`) for `frames` frames of seeded random input, on a private copy of
// the core with the same content and options, told the savestate context is rollback
// netplay, reloading 1 frame back and then `distance` frames back (the prediction window):
// a rollback reloads at every depth up to it. An error saying where
// the check diverged when the savestates cannot be trusted for rollback.
Status check_rollback_savestates(const HostConfig& host, std::uint64_t frames,
                                 std::uint32_t distance);

}  // namespace framelock::frontend
