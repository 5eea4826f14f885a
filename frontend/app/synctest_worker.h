// The determinism lab's worker processes (`framelock synctest`): each check runs the core in
// a child process, this executable again with `--worker MODE --worker-dir DIR` appended, so a
// core that crashes is reported with its frame and two runs share no globals. The two talk in
// lines of text: the child writes on stdout, the parent writes on its stdin (each check
// defines its lines: synctest_roundtrip.h, synctest_twice.h); the child's stderr goes to
// DIR/worker.stderr, whose last line explains a crash.
//
// This file holds both ends of that channel: the child's core (WorkerCore) and the parent's
// handle on a child (PipedWorker). Single-threaded.
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "common/child_process.h"
#include "frontend/app/determinism_lab.h"
#include "frontend/host/headless.h"
#include "frontend/host/input_script.h"
#include "frontend/host/retro_emulator.h"
#include "netplay/base/result.h"

namespace framelock::frontend::synctest {

// The longest line either end writes, newline included.
inline constexpr std::size_t kMaxLine = 4096;

// ---- the child's end ----------------------------------------------------------------------

// The core a worker runs, with its input and headless sinks (the picture of the last frame
// kept for evidence). SRAM is neither loaded nor written.
struct WorkerCore {
    std::unique_ptr<RetroEmulator> emulator;
    std::unique_ptr<InputSource> input;
    HeadlessVideo video;
    HeadlessAudio audio;
};

// Loads the core and content of `options` and the input (the script, or random input with
// the seed, 1 when neither is given). The core's or the input's error otherwise.
Result<std::unique_ptr<WorkerCore>> open_worker_core(const SynctestOptions& options);

// ---- the parent's end ---------------------------------------------------------------------

// A running worker: its process, its stdout to read lines from, where it writes evidence.
struct PipedWorker {
    explicit PipedWorker(ChildProcess c) : child(std::move(c)) {}
    PipedWorker(const PipedWorker&) = delete;
    PipedWorker& operator=(const PipedWorker&) = delete;
    ChildProcess child;
    std::FILE* out = nullptr;  // the worker's stdout
    std::filesystem::path dir;
    std::filesystem::path stderr_path;
    ~PipedWorker() {
        if (out) std::fclose(out);
    }
};

// Starts a worker in `mode` with `dir` (created) for its evidence and stderr. kIo when the
// directory or the pipes fail, the spawn's error otherwise.
Result<std::unique_ptr<PipedWorker>> start_worker(const SynctestOptions& options,
                                                  const std::string& mode,
                                                  const std::filesystem::path& dir);

// Closes the pipes and waits up to 10 s for the worker to end (then stops it).
ExitStatus finish_worker(PipedWorker& worker);

// Writes `line` (with its newline) to the worker's stdin; false when it is gone.
bool send_line(ChildProcess& child, const char* line);

// One line from a worker, without its newline; nullopt at end of file.
std::optional<std::string> read_line(std::FILE* in);

// The last non-empty line a worker wrote to stderr, to explain how it failed.
std::string last_line_of(const std::filesystem::path& path);

// "the core crashed (STATUS) WHAT; its last message: ..." for a worker that ended early.
std::string crash_message(const ExitStatus& status, const std::string& what,
                          const std::filesystem::path& stderr_path);

}  // namespace framelock::frontend::synctest
