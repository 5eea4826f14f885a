// Where framelock keeps a user's files on this machine, by the XDG base directory rules: each
// folder from its XDG_*_HOME variable, else below $HOME, else below the working folder.
// Creates nothing.
#pragma once

#include <string>

namespace framelock::frontend {

// $XDG_CONFIG_HOME/framelock/framelock.toml, or ~/.config/framelock/framelock.toml: the config
// file read when none is named (frontend/app/config.h).
std::string default_config_path();
// $XDG_DATA_HOME/framelock, or ~/.local/share/framelock (for system/, saves/, screenshots/).
std::string default_data_dir();
// What a player's runs leave for the next one (rejoin tokens): $XDG_STATE_HOME/framelock, or
// ~/.local/state/framelock.
std::string default_state_dir();

}  // namespace framelock::frontend
