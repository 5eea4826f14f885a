// Minimal leveled logging to stderr, one level per process: the player and the lobby service
// log through it. Cores log through the same sink (their retro_log_printf lines are prefixed
// with the core's name).
#pragma once

#include <fmt/core.h>

#include <string_view>

namespace framelock {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kQuiet = 4 };

void set_log_level(LogLevel level);
LogLevel log_level();
void log_line(LogLevel level, std::string_view text);

// log_debug("...", args), log_info, log_warn, log_error: a line at that level, formatted
// only when the level is shown.
template <LogLevel kLevel>
struct LogAt {
    template <class... Args>
    void operator()(fmt::format_string<Args...> f, Args&&... args) const {
        if (log_level() <= kLevel) log_line(kLevel, fmt::format(f, std::forward<Args>(args)...));
    }
};
inline constexpr LogAt<LogLevel::kDebug> log_debug;
inline constexpr LogAt<LogLevel::kInfo> log_info;
inline constexpr LogAt<LogLevel::kWarn> log_warn;
inline constexpr LogAt<LogLevel::kError> log_error;

}  // namespace framelock
