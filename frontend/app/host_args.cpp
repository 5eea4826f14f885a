#include "frontend/app/host_args.h"

#include <map>

#include "common/log.h"
#include "frontend/files/user_dirs.h"

namespace framelock::frontend {
namespace {

// --video and --audio: auto, sdl or none, in any case.
template <class Mode>
CLI::CheckedTransformer auto_sdl_none() {
    return CLI::CheckedTransformer(
        std::map<std::string, Mode>{
            {"auto", Mode::kAuto}, {"sdl", Mode::kSdl}, {"none", Mode::kNone}},
        CLI::ignore_case);
}

}  // namespace

void HostArgs::add_to(CLI::App& app) {
    app.add_option("--core", core, "core name (arcade, nestopia, ...) or path to a *_libretro.so")
        ->capture_default_str();
    app.add_option("--content", content,
                   "game file (ROM, .zip for arcade cores); omit for cores that need none");
    app.add_option("--config", config_path, "config file (default: " + default_config_path() + ")");
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
    app.add_option("--video", video,
                   "auto: a window when there is a display, else headless; sdl: a window "
                   "or fail; none: headless")
        ->transform(auto_sdl_none<VideoMode>());
    app.add_option("--audio", audio,
                   "auto: sound with the window (silent if no device); sdl: sound or fail; "
                   "none: silent")
        ->transform(auto_sdl_none<AudioMode>());
    app.add_flag("-v,--verbose", verbose, "log debug messages, including the core's");
    app.add_flag("-q,--quiet", quiet, "log errors only");
}

Result<Config> HostArgs::load() const {
    return load_config(config_path.empty() ? default_config_path() : config_path,
                       !config_path.empty());
}

Result<HostConfig> HostArgs::to_host_config() const {
    auto config = load();
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
            return make_error(ErrorCode::kUsage, "--option takes KEY=VALUE, got '" + option + "'");
        }
        host.option_overrides[option.substr(0, eq)] = option.substr(eq + 1);
    }
    host.ports = ports;
    host.core_options_version = options_version;
    host.load_sram = !no_sram;
    host.write_sram = !no_sram;
    return host;
}

void HostArgs::apply_log_level() const {
    set_log_level(verbose ? LogLevel::kDebug : quiet ? LogLevel::kError : LogLevel::kInfo);
}

}  // namespace framelock::frontend
