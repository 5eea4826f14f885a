#include "frontend/app/replay_start.h"

#include <algorithm>
#include <filesystem>
#include <string>

#include "common/log.h"
#include "frontend/files/replay_file.h"
#include "frontend/session/session_identity.h"

namespace framelock::frontend {

Result<netplay::ReplayContents> read_replay(const std::string& file) {
    auto replay = read_replay_file(file);
    if (replay && !replay.value().stopped.empty())
        log_warn("{}: the replay ends early: {}", file, replay.value().stopped);
    return replay;
}

Result<std::unique_ptr<RetroEmulator>> start_replay_emulator(
    const HostArgs& args, const netplay::ReplayContents& contents, bool sram) {
    auto host = args.to_host_config();
    if (!host) return host.error();
    host.value().load_sram = sram && !args.no_sram;
    host.value().write_sram = false;
    host.value().ports = std::max(1u, static_cast<unsigned>(contents.header.identity.ports));
    auto emulator = RetroEmulator::create(host.value());
    if (!emulator) return emulator.error();
    RetroEmulator& emu = *emulator.value();
    const std::string content_name =
        args.content.empty() ? "-" : std::filesystem::path(args.content).filename().string();
    const std::string why =
        netplay::identity_mismatch(contents.header.identity, "the recorded content",
                                   session_identity(emu), content_name, "the replay");
    if (!why.empty()) {
        return make_error(ErrorCode::kContent,
                          "this replay was recorded with another setup: " + why);
    }
    if (!contents.header.start_state.empty() && !emu.load_state(contents.header.start_state)) {
        return make_error(ErrorCode::kState, "the core refused the replay's start state (frame " +
                                                 std::to_string(contents.header.start_frame) + ")");
    }
    emu.rewind_to(contents.header.start_frame);
    return emulator;
}

}  // namespace framelock::frontend
