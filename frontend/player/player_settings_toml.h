// Reading PlayerSettings from a parsed config file (used by frontend/app/config.cpp only).
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>

#include "frontend/player/player_settings.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

// The one shape of a config file error: a kConfig error naming `source`, the line and the
// column of `where`, then `why`.
Error config_error(const std::string& source, const toml::source_region& where,
                   const std::string& why);

// True for the sections parse_player_settings() reads: video, audio, input, hotkeys.
bool is_player_section(std::string_view name);

// Reads those sections of `root` into `out` (which holds the defaults). Every error is a
// kConfig error naming `source`, the line and column, the key and what is allowed: an
// unknown setting, an unknown key or controller name, a value out of range, a key bound to
// two things.
Status parse_player_settings(const toml::table& root, const std::string& source,
                             PlayerSettings& out);

}  // namespace framelock::frontend
