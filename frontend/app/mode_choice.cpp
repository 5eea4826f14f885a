#include "frontend/app/mode_choice.h"

#include <fmt/format.h>

#include "common/core_atlas.h"
#include "common/log.h"
#include "frontend/app/determinism_lab.h"

namespace framelock::frontend {
namespace {

bool predicts(const std::string& mode) {
    return mode == "rollback" || mode == "hybrid";
}

}  // namespace

Status rollback_trusted_for_auto(const HostConfig& host, std::uint32_t window) {
    HostConfig copy = host;
    copy.private_core_copy = true;
    copy.load_sram = copy.write_sram = false;
    auto emulator = RetroEmulator::create(copy);
    if (!emulator) return emulator.error();
    const CoreInfo& core = emulator.value()->core_info();
    const CoreAtlasAnswer atlas =
        built_in_core_atlas().answer(core.library_name, core.library_version, "hybrid");
    if (atlas.verdict == ModeVerdict::kUnsafe) {
        // The frame lock follows; the atlas may have found that unsafe too.
        if (atlas.atlas == AtlasVerdict::kDesyncs)
            log_warn("{}: the frame lock may desync as well", atlas.reason);
        return make_error(ErrorCode::kState, "rollback refused: " + atlas.reason);
    }
    emulator.value().reset();
    return check_rollback_savestates(host, kRollbackCheckFrames, window);
}

Result<ModeChoice> choose_mode(const ServerArgs& args, const HostConfig& host,
                               ServerRunConfig& config) {
    ServerArgs chosen = args;
    ModeChoice choice;
    if (args.mode == "auto") {
        // Prediction only where it may go: at most 4 players (late ones included).
        if (args.fixed_delay > 0) {
            chosen.mode = "framelock";
            choice.reason = "auto: frame lock, since --delay fixes its delay";
        } else if (args.slot_count() > netplay::kMaxRollbackPlayers) {
            chosen.mode = "framelock";
            choice.reason = fmt::format(
                "auto: frame lock, since the hybrid predicts for at most {} players (--slots "
                "included)",
                netplay::kMaxRollbackPlayers);
        } else {
            chosen.mode = "hybrid";
        }
    }
    if (predicts(chosen.mode)) {
        // Prediction loads states all the time: only with savestates that reload faithfully,
        // as far back as the window reaches.
        chosen.prediction_window = chosen.window_for(chosen.mode);
        const Status trusted =
            args.mode == "auto"
                ? rollback_trusted_for_auto(host, chosen.prediction_window)
                : check_rollback_savestates(host, kRollbackCheckFrames, chosen.prediction_window);
        if (trusted) {
            choice.reason = fmt::format(
                "{}{}: savestates checked, {} frames reloaded 1 and {} frames back, every "
                "reload faithful",
                args.mode == "auto" ? "auto: " : "", chosen.mode, kRollbackCheckFrames,
                chosen.prediction_window);
        } else if (args.mode == "auto") {
            choice.reason = "auto: frame lock, since " + trusted.error().message;
            chosen.mode = "framelock";
        } else if (args.fallback_framelock) {
            choice.reason =
                "frame lock: playing in frame lock instead (--fallback-framelock), "
                "since " +
                trusted.error().message;
            chosen.mode = "framelock";
        } else {
            return trusted.error();
        }
    }
    if (choice.reason.empty()) choice.reason = chosen.mode + ": as asked (--mode)";
    choice.mode = chosen.mode;
    if (Status valid = chosen.validate(); !valid) return valid.error();
    config = chosen.to_config();
    config.mode_reason = choice.reason;
    return choice;
}

}  // namespace framelock::frontend
