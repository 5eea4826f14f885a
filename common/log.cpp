#include "common/log.h"

#include <atomic>
#include <cstdio>
#include <string>

#include "netplay/base/safe_text.h"

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
    // Every line's text is made safe (netplay/base/safe_text.h): what a peer, a lobby or a core
    // put in it cannot start a line of its own, move the cursor or retitle the terminal; the
    // escapes show what was tried.
    const std::string line = safe_text(text);
    // One fprintf per line keeps lines whole when several threads log.
    std::fprintf(stderr, "[%s] %.*s\n", kTags[static_cast<int>(level)],
                 static_cast<int>(line.size()), line.data());
}

}  // namespace framelock
