#include "frontend/app/determinism_lab.h"

#include <signal.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "frontend/app/command_error.h"
#include "frontend/app/synctest_report.h"
#include "frontend/app/synctest_roundtrip.h"
#include "frontend/app/synctest_twice.h"
#include "frontend/app/synctest_worker.h"
#include "frontend/host/headless.h"
#include "frontend/host/input_script.h"
#include "netplay/determinism/state_hash.h"
#include "netplay/determinism/synctest.h"

namespace framelock::frontend {

namespace fs = std::filesystem;
using synctest::CheckReport;

namespace {

std::string input_description(const SynctestOptions& options) {
    if (!options.input_script.empty()) return "input script " + options.input_script;
    return "random input (seed " + std::to_string(options.random_seed.value_or(1)) + ")";
}

}  // namespace

int run_synctest(const SynctestOptions& options) {
    ::signal(SIGPIPE, SIG_IGN);  // a worker that died must not take us with it
    const fs::path report_dir = options.report_dir;
    std::error_code ec;
    fs::create_directories(report_dir, ec);
    if (ec) {
        std::fprintf(stderr, "framelock: error: cannot create %s: %s\n", report_dir.c_str(),
                     ec.message().c_str());
        return static_cast<int>(ErrorCode::kIo);
    }
    for (const char* stale : {"summary.txt", "summary.json", "hashes.log", "roundtrip", "twice"})
        fs::remove_all(report_dir / stale, ec);

    // Load the core here once: errors in the setup come out plainly, and the report names
    // the core and content.
    std::string core_name, core_version, content_hash;
    {
        HostConfig host = options.host;
        host.load_sram = host.write_sram = false;
        auto emulator = RetroEmulator::create(host);
        if (!emulator) return fail(emulator.error());
        core_name = emulator.value()->core_info().library_name;
        core_version = emulator.value()->core_info().library_version;
        content_hash = netplay::hash_to_hex(emulator.value()->content_hash());
    }
    const std::string content =
        options.host.content_path.empty() ? "(none)" : options.host.content_path;
    fmt::print("framelock synctest: {} {}, content {} ({}), {} frames of {}\n", core_name,
               core_version, content, content_hash, options.frames, input_description(options));
    std::fflush(stdout);

    std::vector<CheckReport> checks;
    const fs::path hash_log = report_dir / "hashes.log";
    if (options.check_roundtrip) {
        auto r = synctest::check_roundtrip(options, report_dir);
        if (!r) return fail(r.error());
        checks.push_back(std::move(r).value());
    }
    if (options.check_twice) {
        auto r = synctest::check_twice(options, report_dir, hash_log);
        if (!r) return fail(r.error());
        checks.push_back(std::move(r).value());
    }

    const synctest::ReportSubject subject{.core_name = core_name,
                                          .core_version = core_version,
                                          .content = content,
                                          .content_hash = content_hash,
                                          .frames = options.frames,
                                          .input = input_description(options),
                                          .check_distance = options.check_distance};
    std::optional<fs::path> written_log;
    if (options.check_twice && fs::exists(hash_log)) written_log = hash_log;
    return synctest::write_report(subject, checks, report_dir, written_log);
}

int run_synctest_worker(const SynctestOptions& options, const std::string& mode,
                        const std::string& dir) {
    if (mode != "roundtrip" && mode != "twice")
        return fail(make_error(ErrorCode::kUsage, "unknown synctest worker mode '" + mode + "'"));
    // The answers to the parent get the pipe on stdout to themselves; whatever else writes to
    // stdout (a core: gambatte prints "Plain ROM loaded." and three more lines when it loads)
    // goes to stderr. Those lines used to reach the parent as the answers to its first "run"
    // commands, so "twice" compared every frame's line with a few frames' delay: bytes that
    // differ between the two processes from power-on were then seen frames later, where they
    // are no longer told apart from a divergence (README.md, gambatte).
    const int answers_fd = ::dup(STDOUT_FILENO);
    std::FILE* answers = answers_fd < 0 ? nullptr : ::fdopen(answers_fd, "w");
    if (!answers || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        return fail(make_error(ErrorCode::kIo, std::string("synctest worker: cannot set aside "
                                                           "its answers' stdout: ") +
                                                   std::strerror(errno)));
    auto opened = synctest::open_worker_core(options);
    if (!opened) return fail(opened.error());
    synctest::WorkerCore& core = *opened.value();
    const int code = mode == "roundtrip"
                         ? synctest::run_roundtrip_worker(options, core, dir, answers)
                         : synctest::run_twice_worker(core, dir, answers);
    std::fclose(answers);
    return code;
}

Status check_rollback_savestates(const HostConfig& host, std::uint64_t frames,
                                 std::uint32_t distance) {
    HostConfig copy = host;
    copy.private_core_copy = true;
    copy.load_sram = copy.write_sram = false;
    copy.savestate_context = RETRO_SAVESTATE_CONTEXT_ROLLBACK_NETPLAY;
    RandomInput random(1, copy.ports);
    std::vector<netplay::InputFrame> inputs(frames);
    for (std::uint64_t f = 0; f < frames; ++f) inputs[f] = random.input_for(f);
    // A rollback reloads at every depth up to the window, so one distance is not enough: a
    // counter the savestates leave out comes back to where it was every so many frames
    // (nestopia's turbo buttons pulse every 3: reloads 3, 6 and 12 frames back pass, 1, 2, 4
    // and 8 do not). One frame back catches such a counter whatever its period, the window
    // what only shows frames after a load.
    for (const std::uint32_t back : {std::uint32_t{1}, distance}) {
        auto emulator = RetroEmulator::create(copy);
        if (!emulator) return emulator.error();
        HeadlessVideo video;
        HeadlessAudio audio;
        emulator.value()->set_video_sink(&video);
        emulator.value()->set_audio_sink(&audio);
        const auto verdict = netplay::run_round_trip_check(*emulator.value(), inputs, {back});
        if (verdict.result == netplay::RoundTripResult::kDeterministic) {
            if (back == distance) break;
            continue;
        }
        return make_error(ErrorCode::kState,
                          "rollback refused: " + emulator.value()->core_info().library_name +
                              "'s savestates are not deterministic with this content (" +
                              netplay::round_trip_result_name(verdict.result) + " at frame " +
                              std::to_string(verdict.frame) + ", reloading " +
                              std::to_string(back) + " frame(s) back: " + verdict.message +
                              "). Play in frame lock instead (leave out --mode rollback, or add "
                              "--fallback-framelock to do that automatically); `framelock "
                              "synctest` shows the details");
    }
    return {};
}

}  // namespace framelock::frontend
