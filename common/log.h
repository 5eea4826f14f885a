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

template <class... Args>
void log_debug(fmt::format_string<Args...> f, Args&&... args) {
    if (log_level() <= LogLevel::kDebug)
        log_line(LogLevel::kDebug, fmt::format(f, std::forward<Args>(args)...));
}
template <class... Args>
void log_info(fmt::format_string<Args...> f, Args&&... args) {
    if (log_level() <= LogLevel::kInfo)
        log_line(LogLevel::kInfo, fmt::format(f, std::forward<Args>(args)...));
}
template <class... Args>
void log_warn(fmt::format_string<Args...> f, Args&&... args) {
    if (log_level() <= LogLevel::kWarn)
        log_line(LogLevel::kWarn, fmt::format(f, std::forward<Args>(args)...));
}
template <class... Args>
void log_error(fmt::format_string<Args...> f, Args&&... args) {
    if (log_level() <= LogLevel::kError)
        log_line(LogLevel::kError, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace framelock
