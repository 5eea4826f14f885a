// `framelock atlas`: every installed core of the catalogue measured for netplay
// (frontend/app/atlas.h), written as docs/cores.md and its JSON.
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "common/log.h"
#include "frontend/app/atlas.h"
#include "frontend/app/command_error.h"
#include "frontend/app/commands.h"

namespace framelock::frontend {
namespace {

struct AtlasArgs {
    AtlasOptions options;
    bool no_progress = false;

    void add_to(CLI::App& app) {
        AtlasSettings& s = options.settings;
        app.add_option("--catalogue", options.catalogue, "the cores to measure, with their ROMs")
            ->capture_default_str();
        s.roms_dir = "build/roms";
        app.add_option("--roms", s.roms_dir,
                       "where the catalogue's test ROMs are (the build's roms/)")
            ->capture_default_str();
        s.work_dir = "atlas-work";
        app.add_option("--work", s.work_dir, "each check's logs and reports")
            ->capture_default_str();
        app.add_option("--markdown", options.markdown_out, "write the page here (docs/cores.md)");
        app.add_option("--json", options.json_out,
                       "write the results as JSON here (docs/cores.json)");
        app.add_option("--info-dir", options.info_dir, "libretro's core info files")
            ->capture_default_str();
        app.add_option("--only", options.only, "measure only these cores (names in the catalogue)")
            ->delimiter(',');
        app.add_option("--frames", s.check_frames, "frames of each synctest check")
            ->check(CLI::Range(std::uint64_t{60}, std::uint64_t{1'000'000}))
            ->capture_default_str();
        app.add_option("--session-frames", s.session_frames, "frames each session's players play")
            ->check(CLI::Range(std::uint64_t{60}, std::uint64_t{1'000'000}))
            ->capture_default_str();
        app.add_option("--start-gap", s.start_gap_s,
                       "seconds between the first and the second player's start")
            ->check(CLI::Range(0.0, 60.0))
            ->capture_default_str();
        options.cpu_jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        app.add_option("--jobs", options.cpu_jobs, "synctest checks at once")
            ->check(CLI::Range(1, 64))
            ->capture_default_str();
        app.add_option("--sessions", options.sessions, "sessions at once (they play in real time)")
            ->check(CLI::Range(1, 64))
            ->capture_default_str();
        app.add_flag("--no-progress", no_progress, "no progress bar");
    }
};

int cmd_atlas(AtlasArgs& args) {
    set_log_level(LogLevel::kWarn);
    std::error_code ec;
    args.options.settings.self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) return fail(make_error(ErrorCode::kIo, "cannot find this executable: " + ec.message()));
    args.options.progress = !args.no_progress;
    return run_atlas(args.options);
}

}  // namespace

Subcommand add_atlas_command(CLI::App& app) {
    auto args = std::make_shared<AtlasArgs>();
    CLI::App* atlas = app.add_subcommand(
        "atlas", "measure every installed core for netplay; write the core atlas (docs/cores.md)");
    args->add_to(*atlas);
    return {atlas, [args] { return cmd_atlas(*args); }};
}

}  // namespace framelock::frontend
