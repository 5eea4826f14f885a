// The options every subcommand that hosts a core shares: which core and content, where its
// config, BIOS and saves are, core option overrides, ports, the window and sound, logging.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "frontend/app/config.h"
#include "frontend/host/core_locator.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/player/player_window.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

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
    VideoMode video = VideoMode::kAuto;
    AudioMode audio = AudioMode::kAuto;

    // Adds these options to a subcommand.
    void add_to(CLI::App& app);
    // The config file: --config, else the default one (which may be missing).
    Result<Config> load() const;
    // What RetroEmulator::create needs: the core found, directories and core options from
    // the flags, else the config file, else the defaults.
    Result<HostConfig> to_host_config() const;
    // -v / -q, else info.
    void apply_log_level() const;
};

}  // namespace framelock::frontend
