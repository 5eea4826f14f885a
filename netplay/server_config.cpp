#include "netplay/server_config.h"

#include <algorithm>

#include "netplay/session_limits.h"

namespace framelock::netplay {
namespace {

// The player limit of a mode: predictions cost a re-run each, so more players are frame
// lock's job.
const Limit& players_limit(SessionMode mode) {
    return mode == SessionMode::kRollback ? limits::kRollbackPlayers : limits::kPlayers;
}

bool fixed_delay(const ServerConfig& config) {
    return config.mode != SessionMode::kFrameLock || !config.delay.adaptive;
}

// Brings `value` inside `limit`, saying so in `adjusted` when it moved.
template <class T>
void bring_inside(const Limit& limit, T& value, std::vector<std::string>& adjusted) {
    const Status inside = limit.check(static_cast<std::int64_t>(value));
    if (inside.ok()) return;
    value = static_cast<T>(limit.clamp(static_cast<std::int64_t>(value)));
    adjusted.push_back(inside.error().message + ": using " + std::to_string(value));
}

}  // namespace

Status validate(const ServerConfig& config) {
    if (auto s = players_limit(config.mode).check(config.players); !s) return s;
    if (config.start_players < 0 || config.start_players > config.players)
        return make_error(ErrorCode::kUsage, "players to start " +
                                                 std::to_string(config.start_players) +
                                                 " is outside 0-" + std::to_string(config.players) +
                                                 " (0: every slot)");
    if (auto s = limits::kSpectators.check(config.max_spectators); !s) return s;
    if (auto s = limits::kKeyframeInterval.check(config.keyframe_interval); !s) return s;
    if (auto s = limits::kSendInterval.check(config.send_interval); !s) return s;
    if (fixed_delay(config)) {
        if (auto s = delay_limit(config.mode).check(config.delay.fixed_delay); !s) return s;
    }
    if (config.mode == SessionMode::kRollback) {
        if (auto s = limits::kPredictionWindow.check(config.prediction_window); !s) return s;
    }
    return {};
}

ServerConfig normalized(ServerConfig config, std::vector<std::string>& adjusted) {
    bring_inside(players_limit(config.mode), config.players, adjusted);
    // 0: every slot.
    if (config.start_players < 0 || config.start_players > config.players) {
        const int used = config.start_players < 0 ? 0 : config.players;
        adjusted.push_back("players to start " + std::to_string(config.start_players) +
                           " is outside 0-" + std::to_string(config.players) + ": using " +
                           std::to_string(used));
        config.start_players = used;
    }
    if (config.start_players == 0) config.start_players = config.players;
    bring_inside(limits::kSpectators, config.max_spectators, adjusted);
    bring_inside(limits::kKeyframeInterval, config.keyframe_interval, adjusted);
    bring_inside(limits::kSendInterval, config.send_interval, adjusted);
    if (config.mode != SessionMode::kFrameLock) {
        // Rollback: a datagram a frame, so corrections arrive early. No-wait: inputs meet
        // their deadline a frame sooner.
        config.send_interval = 1;
        config.delay.adaptive = false;
    }
    if (fixed_delay(config))
        bring_inside(delay_limit(config.mode), config.delay.fixed_delay, adjusted);
    if (config.mode == SessionMode::kRollback)
        bring_inside(limits::kPredictionWindow, config.prediction_window, adjusted);
    return config;
}

}  // namespace framelock::netplay
