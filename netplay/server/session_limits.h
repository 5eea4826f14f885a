// The ranges a session's settings may take: one description each, read by the server (which
// brings a setting outside its range inside and reports that it did) and by every front end
// (which refuses such a value and says the range). Nothing else states these numbers.
#pragma once

#include <cstdint>
#include <string>

#include "netplay/base/result.h"
#include "netplay/base/types.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

struct Limit {
    std::int64_t min = 0;
    std::int64_t max = 0;
    const char* what = "";  // "rollback's local input delay"
    const char* unit = "";  // "frames", or "" for a count

    constexpr bool contains(std::int64_t value) const { return value >= min && value <= max; }
    constexpr std::int64_t clamp(std::int64_t value) const {
        return value < min ? min : value > max ? max : value;
    }
    // "0-15 frames"
    std::string range() const;
    // Ok, or a kUsage error: "rollback's local input delay 20 frames is outside 0-15 frames".
    Status check(std::int64_t value) const;
};

namespace limits {
inline constexpr Limit kPlayers{1, kMaxPlayers, "player slots", ""};
inline constexpr Limit kRollbackPlayers{1, kMaxRollbackPlayers, "player slots in rollback", ""};
inline constexpr Limit kSpectators{0, 64, "spectators", ""};
inline constexpr Limit kKeyframeInterval{1, 65535, "keyframe interval", "frames"};
inline constexpr Limit kSendInterval{1, 255, "send interval", "frames"};
// Frame lock: a fixed input delay (without one, the delay follows the network: adaptive).
inline constexpr Limit kFrameLockDelay{1, 60, "frame lock's fixed input delay", "frames"};
// Rollback hides the round trip by prediction; the delay only trims re-runs.
inline constexpr Limit kRollbackDelay{0, 15, "rollback's local input delay", "frames"};
// No-wait: the server confirms a frame half the delay before it is due, so at least 2.
inline constexpr Limit kNoWaitDelay{2, 60, "no-wait's input delay", "frames"};
inline constexpr Limit kPredictionWindow{1, 60, "rollback's prediction window", "frames"};
}  // namespace limits

// The fixed-delay range of a session mode.
const Limit& delay_limit(SessionMode mode);

}  // namespace framelock::netplay
