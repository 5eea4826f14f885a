#include "netplay/server/server_config.h"

#include <algorithm>
#include <utility>

#include "netplay/server/session_limits.h"

namespace framelock::netplay {
namespace {

// The player limit of a mode: predictions cost a re-run each, so more players are frame
// lock's job.
const Limit& players_limit(SessionMode mode) {
    return mode == SessionMode::kRollback ? limits::kRollbackPlayers : limits::kPlayers;
}

// Once the mode has had its say (normalize): rollback and no-wait fix the delay, the hybrid
// (rollback over an adaptive delay) does not.
bool fixed_delay(const ServerConfig& config) {
    return !config.delay.adaptive;
}

// A setting outside its range: what it was (the range named) and what is used instead.
struct Adjustment {
    std::string what;
    std::string used;
};

// Brings `value` inside `limit`, saying so in `adjusted` when it moved.
template <class T>
void bring_inside(const Limit& limit, T& value, std::vector<Adjustment>& adjusted) {
    const Status inside = limit.check(static_cast<std::int64_t>(value));
    if (inside.ok()) return;
    value = static_cast<T>(limit.clamp(static_cast<std::int64_t>(value)));
    adjusted.push_back({inside.error().message, std::to_string(value)});
}

// The one walk over every setting's range, for normalized() and validate().
ServerConfig normalize(ServerConfig config, std::vector<Adjustment>& adjusted) {
    bring_inside(players_limit(config.mode), config.players, adjusted);
    // 0: every slot.
    if (config.start_players < 0 || config.start_players > config.players) {
        const int used = config.start_players < 0 ? 0 : config.players;
        adjusted.push_back({"players to start " + std::to_string(config.start_players) +
                                " is outside 0-" + std::to_string(config.players),
                            std::to_string(used)});
        config.start_players = used;
    }
    if (config.start_players == 0) config.start_players = config.players;
    // 0: no player runs this server (a tie then has no reference).
    if (config.host_slot < 0 || config.host_slot > config.players) {
        adjusted.push_back({"the host's slot " + std::to_string(config.host_slot) +
                                " is outside 0-" + std::to_string(config.players),
                            "0"});
        config.host_slot = 0;
    }
    bring_inside(limits::kSpectators, config.max_spectators, adjusted);
    bring_inside(limits::kKeyframeInterval, config.keyframe_interval, adjusted);
    bring_inside(limits::kSendInterval, config.send_interval, adjusted);
    if (config.mode != SessionMode::kRollback) config.delay.hybrid = false;
    if (config.mode != SessionMode::kFrameLock) {
        // Rollback: a datagram a frame, so corrections arrive early. No-wait: inputs meet
        // their deadline a frame sooner.
        config.send_interval = 1;
        config.delay.adaptive = config.delay.hybrid;
    }
    if (fixed_delay(config))
        bring_inside(delay_limit(config.mode), config.delay.fixed_delay, adjusted);
    if (config.mode == SessionMode::kRollback)
        bring_inside(limits::kPredictionWindow, config.prediction_window, adjusted);
    if (config.delay.hybrid) {
        // Prediction covers what the window holds, less a frame of the path's jitter; the
        // local delay at most what the rollback delay may be.
        bring_inside(limits::kRollbackDelay, config.delay.hybrid_local_delay, adjusted);
        if (config.delay.predicted_frames <= 0 ||
            config.delay.predicted_frames >= config.prediction_window)
            config.delay.predicted_frames = std::max(config.prediction_window - 1, 0);
    }
    return config;
}

}  // namespace

Status validate(const ServerConfig& config) {
    std::vector<Adjustment> adjusted;
    normalize(config, adjusted);
    if (adjusted.empty()) return {};
    return make_error(ErrorCode::kUsage, adjusted.front().what);
}

ServerConfig normalized(ServerConfig config, std::vector<std::string>& adjusted) {
    std::vector<Adjustment> adjustments;
    config = normalize(std::move(config), adjustments);
    for (const Adjustment& a : adjustments) adjusted.push_back(a.what + ": using " + a.used);
    return config;
}

}  // namespace framelock::netplay
