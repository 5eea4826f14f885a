// framelock's config file (TOML). See docs/config.md for the format.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/player/player_settings.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

struct Config {
    std::string system_dir;              // [paths] system
    std::string save_dir;                // [paths] saves
    std::vector<std::string> core_dirs;  // [paths] cores: extra places to find --core NAME
    // [core_options."<library_name>"] key = "value": per-core overrides of core options.
    std::map<std::string, std::map<std::string, std::string>> core_options;
    // [video], [audio], [input], [hotkeys]: the player's window, sound and controls.
    PlayerSettings player;
    std::string source;  // where it was read from, for messages
};

Result<Config> parse_config(std::string_view text, const std::string& source_name);
// A missing file at the default location (default_config_path(), frontend/files/user_dirs.h)
// is an empty config; a missing file the user named explicitly is an error.
Result<Config> load_config(const std::string& path, bool must_exist);

}  // namespace framelock::frontend
