#include "common/log.h"

#include <atomic>
#include <cstdio>

namespace framelock {
namespace {
std::atomic<LogLevel> g_level{LogLevel::kInfo};
}

void set_log_level(LogLevel level) {
    g_level = level;
}
LogLevel log_level() {
    return g_level;
}

void log_line(LogLevel level, std::string_view text) {
    static constexpr const char* kTags[] = {"debug", "info", "warn", "error", ""};
    // One fprintf per line keeps lines whole when several threads log.
    std::fprintf(stderr, "[%s] %.*s\n", kTags[static_cast<int>(level)],
                 static_cast<int>(text.size()), text.data());
}

}  // namespace framelock
