#include "frontend/files/user_dirs.h"

#include <cstdlib>

namespace framelock::frontend {
namespace {

std::string home_relative(const char* xdg_var, const char* fallback) {
    if (const char* xdg = std::getenv(xdg_var); xdg && *xdg) return xdg;
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/" + fallback;
    return std::string(".") + "/" + fallback;
}

}  // namespace

std::string default_config_path() {
    return home_relative("XDG_CONFIG_HOME", ".config") + "/framelock/framelock.toml";
}

std::string default_data_dir() {
    return home_relative("XDG_DATA_HOME", ".local/share") + "/framelock";
}

std::string default_state_dir() {
    return home_relative("XDG_STATE_HOME", ".local/state") + "/framelock";
}

}  // namespace framelock::frontend
