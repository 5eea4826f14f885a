// The core a benchmark runs: the flags every benchmark takes (--core, --content, --option,
// --ports) and the HostConfig they make (no SRAM, system files in the temp directory).
#pragma once

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "frontend/host/core_locator.h"
#include "frontend/host/retro_emulator.h"

namespace framelock::bench {

struct BenchCore {
    std::string core = "arcade";
    std::string content;
    std::vector<std::string> options;  // KEY=VALUE
    unsigned ports = 2;

    void add_to(CLI::App& app) {
        app.add_option("--core", core, "core name or path")->capture_default_str();
        app.add_option("--content", content, "content file");
        app.add_option("--option", options, "core option KEY=VALUE");
        app.add_option("--ports", ports, "controller ports")->capture_default_str();
    }

    // The host configuration, or nothing after printing why the core cannot be found.
    std::optional<frontend::HostConfig> host_config() const {
        auto core_path = frontend::locate_core(core, frontend::core_search_dirs({}));
        if (!core_path) {
            fmt::print(stderr, "{}\n", core_path.error().message);
            return std::nullopt;
        }
        frontend::HostConfig config;
        config.core_path = core_path.value();
        config.content_path = content;
        config.ports = ports;
        config.load_sram = config.write_sram = false;
        config.system_dir = std::filesystem::temp_directory_path().string();
        for (const auto& o : options) {
            const auto eq = o.find('=');
            if (eq != std::string::npos)
                config.option_overrides[o.substr(0, eq)] = o.substr(eq + 1);
        }
        return config;
    }
};

}  // namespace framelock::bench
