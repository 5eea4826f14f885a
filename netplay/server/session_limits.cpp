#include "netplay/server/session_limits.h"

namespace framelock::netplay {

std::string Limit::range() const {
    std::string text = std::to_string(min) + "-" + std::to_string(max);
    if (*unit) text += std::string(" ") + unit;
    return text;
}

Status Limit::check(std::int64_t value) const {
    if (contains(value)) return {};
    std::string text = std::string(what) + " " + std::to_string(value);
    if (*unit) text += std::string(" ") + unit;
    return make_error(ErrorCode::kUsage, text + " is outside " + range());
}

const Limit& delay_limit(SessionMode mode) {
    switch (mode) {
        case SessionMode::kRollback:
            return limits::kRollbackDelay;
        case SessionMode::kNoWait:
            return limits::kNoWaitDelay;
        case SessionMode::kFrameLock:
            break;
    }
    return limits::kFrameLockDelay;
}

}  // namespace framelock::netplay
