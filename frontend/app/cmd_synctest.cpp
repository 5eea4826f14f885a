// `framelock synctest`: the determinism lab (frontend/app/determinism_lab.h) on the command
// line: which checks, how many frames of which input, where the report goes; also its
// hidden worker mode and `--compare` of two hash logs or of desync bundles.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "common/log.h"
#include "frontend/app/command_error.h"
#include "frontend/app/commands.h"
#include "frontend/app/determinism_lab.h"
#include "frontend/app/host_args.h"
#include "frontend/app/synctest_bundle_compare.h"

namespace framelock::frontend {
namespace {

// `framelock synctest`: the determinism lab (frontend/app/determinism_lab.h).
struct SynctestArgs {
    HostArgs host;
    std::uint64_t frames = 10'000;
    std::string input_script;
    std::uint64_t random_seed = 1;
    std::vector<std::string> modes{"all"};
    std::uint32_t distance = 8;
    std::string report = "synctest-report";
    std::vector<std::string> compare;
    bool no_progress = false;
    std::string worker, worker_dir;

    void add_to(CLI::App& app) {
        host.add_to(app);
        app.add_option("--frames", frames, "frames to check")
            ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100'000'000}))
            ->capture_default_str();
        auto* input_opt = app.add_option("--input", input_script, "input script for every port");
        auto* random_opt =
            app.add_option("--random", random_seed, "random input with this seed (default 1)");
        input_opt->excludes(random_opt);
        app.add_option("--mode", modes,
                       "checks to run: roundtrip (save/load/re-run), twice (two runs from "
                       "power-on), all")
            ->delimiter(',')
            ->check(CLI::IsMember({"all", "roundtrip", "twice"}))
            ->capture_default_str();
        app.add_option("--distance", distance, "roundtrip: frames between a save and its reload")
            ->check(CLI::Range(1, 600))
            ->capture_default_str();
        app.add_option("--report", report, "report directory")->capture_default_str();
        app.add_option("--compare", compare,
                       "compare instead: two hash logs (from two machines), A B; or two desync "
                       "bundles (one from each player), A B, or one that holds both states")
            ->expected(1, 2);
        app.add_flag("--no-progress", no_progress, "no progress bar");
        app.add_option("--worker", worker)->group("");
        app.add_option("--worker-dir", worker_dir)->group("");
    }
};

int cmd_synctest(const SynctestArgs& args, int argc, char** argv) {
    if (!args.compare.empty()) {
        // Bundles begin with their magic; anything else is read as a hash log.
        if (std::any_of(args.compare.begin(), args.compare.end(), file_is_desync_bundle))
            return run_bundle_compare(args.compare);
        if (args.compare.size() != 2)
            return fail(make_error(ErrorCode::kUsage,
                                   "--compare of hash logs takes two: A B (one file alone must "
                                   "be a desync bundle holding both states)"));
        return run_synctest_compare(args.compare[0], args.compare[1]);
    }
    if (args.worker.empty())
        args.host.apply_log_level();
    else
        set_log_level(LogLevel::kError);
    auto host = args.host.to_host_config();
    if (!host) return fail(host.error());
    SynctestOptions options;
    options.host = host.value();
    options.frames = args.frames;
    options.input_script = args.input_script;
    options.random_seed = args.random_seed;
    const auto wants = [&](const char* mode) {
        return std::find(args.modes.begin(), args.modes.end(), mode) != args.modes.end() ||
               std::find(args.modes.begin(), args.modes.end(), "all") != args.modes.end();
    };
    options.check_roundtrip = wants("roundtrip");
    options.check_twice = wants("twice");
    options.check_distance = args.distance;
    options.report_dir = args.report;
    options.progress = !args.no_progress;
    if (!args.worker.empty()) return run_synctest_worker(options, args.worker, args.worker_dir);
    std::error_code ec;
    const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) return fail(make_error(ErrorCode::kIo, "cannot find this executable: " + ec.message()));
    options.self_command.push_back(self);
    for (int i = 1; i < argc; ++i) options.self_command.emplace_back(argv[i]);
    return run_synctest(options);
}

}  // namespace

Subcommand add_synctest_command(CLI::App& app, int argc, char** argv) {
    auto args = std::make_shared<SynctestArgs>();
    CLI::App* synctest = app.add_subcommand(
        "synctest", "check that a core is deterministic; report where it is not");
    args->add_to(*synctest);
    return {synctest, [args, argc, argv] { return cmd_synctest(*args, argc, argv); }};
}

}  // namespace framelock::frontend
