#include "frontend/cli.h"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "frontend/config.h"
#include "frontend/core_locator.h"
#include "frontend/headless.h"
#include "frontend/input_script.h"
#include "frontend/log.h"
#include "frontend/retro_emulator.h"
#include "netplay/state_hash.h"

namespace framelock::frontend {
namespace {

// Options every subcommand that hosts a core shares.
struct HostArgs {
    std::string core = kDefaultCore;
    std::string content;
    std::string config_path;
    std::string system_dir;
    std::string save_dir;
    std::vector<std::string> options;  // KEY=VALUE
    unsigned ports = 2;
    unsigned options_version = 2;
    bool no_sram = false;
    bool verbose = false;
    bool quiet = false;

    void add_to(CLI::App& app) {
        app.add_option("--core", core,
                       "core name (arcade, nestopia, ...) or path to a *_libretro.so")
            ->capture_default_str();
        app.add_option("--content", content,
                       "game file (ROM, .zip for arcade cores); omit for cores that need none");
        app.add_option("--config", config_path,
                       "config file (default: " + default_config_path() + ")");
        app.add_option("--system-dir", system_dir, "BIOS directory (default: <data>/system)");
        app.add_option("--save-dir", save_dir, "save RAM directory (default: <data>/saves)");
        app.add_option("--option", options, "core option override KEY=VALUE (repeatable)");
        app.add_option("--ports", ports, "controller ports to connect (1-8)")
            ->check(CLI::Range(1, 8))
            ->capture_default_str();
        app.add_option("--options-version", options_version,
                       "core options API version to offer the core (0-2)")
            ->check(CLI::Range(0, 2));
        app.add_flag("--no-sram", no_sram, "neither load nor write save RAM");
        app.add_flag("-v,--verbose", verbose, "log debug messages, including the core's");
        app.add_flag("-q,--quiet", quiet, "log errors only");
    }

    Result<HostConfig> to_host_config() const {
        auto config = load_config(config_path.empty() ? default_config_path() : config_path,
                                  !config_path.empty());
        if (!config) return config.error();
        auto core_path = locate_core(core, core_search_dirs(config.value().core_dirs));
        if (!core_path) return core_path.error();

        HostConfig host;
        host.core_path = core_path.value();
        host.content_path = content;
        const std::string data = default_data_dir();
        host.system_dir = !system_dir.empty()                  ? system_dir
                          : !config.value().system_dir.empty() ? config.value().system_dir
                                                               : data + "/system";
        host.save_dir = !save_dir.empty()                  ? save_dir
                        : !config.value().save_dir.empty() ? config.value().save_dir
                                                           : data + "/saves";
        host.per_core_options = config.value().core_options;
        for (const auto& option : options) {
            const auto eq = option.find('=');
            if (eq == std::string::npos || eq == 0) {
                return make_error(ErrorCode::kUsage,
                                  "--option takes KEY=VALUE, got '" + option + "'");
            }
            host.option_overrides[option.substr(0, eq)] = option.substr(eq + 1);
        }
        host.ports = ports;
        host.core_options_version = options_version;
        host.load_sram = !no_sram;
        host.write_sram = !no_sram;
        return host;
    }

    void apply_log_level() const {
        set_log_level(verbose ? LogLevel::kDebug : quiet ? LogLevel::kError : LogLevel::kInfo);
    }
};

int fail(const Error& error) {
    std::fprintf(stderr, "framelock: error: %s\n", error.message.c_str());
    return static_cast<int>(error.code);
}

struct RunArgs {
    HostArgs host;
    std::uint64_t frames = 600;
    std::string input_script;
    std::uint64_t random_seed = 0;
    bool random = false;
    std::string hash_log;
    bool hash_regions = false;
};

int cmd_run(const RunArgs& args) {
    args.host.apply_log_level();
    auto host = args.host.to_host_config();
    if (!host) return fail(host.error());

    std::unique_ptr<InputSource> input;
    if (!args.input_script.empty()) {
        auto script = InputScript::load(args.input_script);
        if (!script) return fail(script.error());
        input = std::make_unique<InputScript>(std::move(script).value());
    } else if (args.random) {
        input = std::make_unique<RandomInput>(args.random_seed, host.value().ports);
    } else {
        input = std::make_unique<InputScript>(InputScript::parse("", "(none)").value());
    }

    auto emulator = RetroEmulator::create(host.value());
    if (!emulator) return fail(emulator.error());
    RetroEmulator& emu = *emulator.value();
    HeadlessVideo video;
    HeadlessAudio audio;
    emu.set_video_sink(&video);
    emu.set_audio_sink(&audio);

    auto summary = run_headless(emu, *input, {args.frames, args.hash_log, args.hash_regions});
    if (!summary) return fail(summary.error());
    const auto& s = summary.value();
    const double fps = emu.frames_per_second();
    fmt::print("core     {} {}\n", emu.core_info().library_name, emu.core_info().library_version);
    fmt::print("content  {}\n",
               host.value().content_path.empty() ? "(none)" : host.value().content_path);
    fmt::print("options  {} ({} options)\n", netplay::hash_to_hex(emu.options().hash()),
               emu.options().options().size());
    fmt::print("frames   {}\n", s.frames);
    fmt::print("state    {}\n", netplay::hash_to_hex(s.final_state_hash));
    fmt::print("speed    {:.0f} frames/s ({:.1f}x the core's {:.3f} fps)\n", s.frames / s.seconds,
               s.frames / s.seconds / fps, fps);
    fmt::print("output   {} video frames, {} audio frames\n", video.frames(), audio.frames());
    if (s.core_shutdown)
        fmt::print("note     the core asked to shut down after frame {}\n", s.frames);
    return 0;
}

}  // namespace

int run_cli(int argc, char** argv) {
    CLI::App app{"framelock: frame-locked netplay for libretro cores"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("framelock ") + FRAMELOCK_VERSION);

    RunArgs run_args;
    CLI::App* run =
        app.add_subcommand("run", "run a core headless at full speed with scripted input");
    run_args.host.add_to(*run);
    run->add_option("--frames", run_args.frames, "frames to run")->capture_default_str();
    auto* input_opt = run->add_option("--input", run_args.input_script,
                                      "input script (see docs/input-script.md)");
    auto* random_opt =
        run->add_option("--random", run_args.random_seed, "random bot input with this seed");
    input_opt->excludes(random_opt);
    run->add_option("--hash-log", run_args.hash_log,
                    "write 'FRAME HASH' for every frame to this file");
    run->add_flag("--hash-regions", run_args.hash_regions,
                  "add each memory region's hash to every hash-log line");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : static_cast<int>(ErrorCode::kUsage);
    }
    run_args.random = random_opt->count() > 0;
    if (run->parsed()) return cmd_run(run_args);
    return 0;
}

}  // namespace framelock::frontend
