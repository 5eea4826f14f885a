// `framelock replay play FILE`: runs a recorded session again, headless, and with --verify
// checks every recorded state hash; prints the session's chat where it was said.
#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/log.h"
#include "frontend/app/command_error.h"
#include "frontend/app/commands.h"
#include "frontend/app/host_args.h"
#include "frontend/app/replay_start.h"
#include "frontend/files/replay_file.h"
#include "frontend/host/headless.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/session/session_chat.h"
#include "netplay/base/safe_text.h"
#include "netplay/determinism/evidence.h"
#include "netplay/determinism/state_hash.h"

namespace framelock::frontend {
namespace {

struct ReplayArgs {
    HostArgs host;
    std::string file;
    bool verify = false;
    bool sram = false;
    std::string hash_log;
};

int cmd_replay_play(const ReplayArgs& args) {
    args.host.apply_log_level();
    auto replay = read_replay_file(args.file);
    if (!replay) return fail(replay.error());
    const netplay::ReplayContents& contents = replay.value();
    if (!contents.stopped.empty())
        log_warn("{}: the replay ends early: {}", args.file, contents.stopped);
    // A session played with `join --sram` started from that save RAM: the replay needs it too.
    auto emulator = start_replay_emulator(args.host, contents, args.sram);
    if (!emulator) return fail(emulator.error());
    RetroEmulator& emu = *emulator.value();
    std::unique_ptr<HashLogWriter> log;
    if (!args.hash_log.empty()) {
        auto opened = HashLogWriter::open(args.hash_log, false);
        if (!opened) return fail(opened.error());
        log = std::move(opened).value();
    }
    std::uint64_t frame = contents.header.start_frame, verified = 0;
    std::vector<std::uint8_t> scratch;
    // The chat as it was said, printed where the session was when it was (safe text: a file
    // is anyone's).
    std::vector<netplay::ChatLine> chat = contents.chat;
    std::stable_sort(chat.begin(), chat.end(),
                     [](const auto& a, const auto& b) { return a.frame < b.frame; });
    std::size_t next_chat = 0;
    const auto print_chat = [&](std::uint64_t upto) {
        for (; next_chat < chat.size() && chat[next_chat].frame <= upto; ++next_chat) {
            netplay::ChatLine line = chat[next_chat];
            line.from = safe_text(line.from, netplay::kMaxNameBytes);
            line.text = safe_text(line.text, netplay::kMaxChatBytes);
            fmt::print("chat     frame {}: {}\n", line.frame, netplay::chat_line_text(line));
        }
    };
    for (const auto& recorded : contents.frames) {
        print_chat(frame);
        emu.run_frame(recorded.inputs, false);
        if (args.verify || log) {
            // The evidence the session recorded: the state without the bytes a load moves.
            const std::uint64_t hash = netplay::evidence_hash(
                emu, contents.mask_at(static_cast<std::uint32_t>(frame)), scratch);
            if (log) log->write_line(std::to_string(frame) + ' ' + netplay::hash_to_hex(hash));
            if (args.verify) {
                if (hash != recorded.hash) {
                    fmt::print("replay   {}: DIVERGED at frame {}: state {} here, {} recorded\n",
                               args.file, frame, netplay::hash_to_hex(hash),
                               netplay::hash_to_hex(recorded.hash));
                    return 1;
                }
                ++verified;
            }
        }
        ++frame;
    }
    print_chat(UINT64_MAX);
    if (log) {
        if (Status closed = log->close(); !closed) return fail(closed.error());
    }
    fmt::print("replay   {}: {} frames played ({} .. {}), {} {}\n", args.file,
               contents.frames.size(), contents.header.start_frame,
               frame == contents.header.start_frame ? frame : frame - 1,
               contents.header.identity.core_name, contents.header.identity.core_version);
    if (args.verify) fmt::print("verify   {} state hashes equal the recorded ones\n", verified);
    if (!contents.stopped.empty()) fmt::print("note     ends early: {}\n", contents.stopped);
    return 0;
}

}  // namespace

Subcommand add_replay_command(CLI::App& app) {
    auto args = std::make_shared<ReplayArgs>();
    CLI::App* replay = app.add_subcommand("replay", "recorded sessions");
    replay->require_subcommand(1);
    CLI::App* replay_play =
        replay->add_subcommand("play", "play a replay again (headless), --verify its hashes");
    replay_play->add_option("file", args->file, "the replay file")->required();
    args->host.add_to(*replay_play);
    replay_play->add_flag("--verify", args->verify,
                          "check the state after every frame against the recorded hash");
    replay_play->add_option("--hash-log", args->hash_log,
                            "write 'FRAME HASH' for every frame played");
    replay_play->add_flag("--sram", args->sram,
                          "load save RAM at start, as the session did with `join --sram` (from "
                          "--save-dir); it is never written");
    return {replay_play, [args] { return cmd_replay_play(*args); }};
}

}  // namespace framelock::frontend
