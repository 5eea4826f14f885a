// `framelock replay play FILE`: runs a recorded session again, headless, all of it or from
// --from (seeking from the nearest keyframe) to --to, and with --verify checks every
// recorded state hash; prints the session's chat where it was said; with --input-log writes
// the pads as an input script. `replay export` is cmd_replay_export.cpp.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/stop_signal.h"
#include "frontend/app/command_error.h"
#include "frontend/app/commands.h"
#include "frontend/app/host_args.h"
#include "frontend/app/replay_start.h"
#include "frontend/app/window_setup.h"
#include "frontend/files/replay_file.h"
#include "frontend/host/headless.h"
#include "frontend/host/input_log.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/player/replay_window.h"
#include "frontend/session/session_chat.h"
#include "netplay/base/safe_text.h"
#include "netplay/determinism/evidence.h"
#include "netplay/determinism/replay_seeker.h"
#include "netplay/determinism/state_hash.h"

namespace framelock::frontend {
namespace {

struct ReplayArgs {
    HostArgs host;
    std::string file;
    bool verify = false;
    bool sram = false;
    std::string hash_log;
    std::string input_log;
    std::optional<std::uint64_t> from;
    std::optional<std::uint64_t> to;
};

int cmd_replay_play(const ReplayArgs& args) {
    args.host.apply_log_level();
    auto replay = read_replay(args.file);
    if (!replay) return fail(replay.error());
    const netplay::ReplayContents& contents = replay.value();
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
    if (contents.frames.empty()) {
        fmt::print("replay   {}: no frames recorded{}\n", args.file,
                   args.verify ? ": nothing to verify" : "");
        return args.verify ? 1 : 0;
    }
    // Forward only: no states kept on the way (--from starts at the nearest keyframe).
    netplay::ReplaySeeker seeker(emu, contents, netplay::ReplaySeeker::Options::forward_only());
    const std::uint64_t last = seeker.end() - 1;
    const std::uint64_t from = args.from.value_or(seeker.first());
    const std::uint64_t to = args.to.value_or(last);
    const std::string holds =
        fmt::format("this replay holds frames {} .. {}", seeker.first(), last);
    if (from < seeker.first() || from > last)
        return fail(make_error(ErrorCode::kUsage, fmt::format("--from {}: {}", from, holds)));
    if (to < seeker.first() || to > last)
        return fail(make_error(ErrorCode::kUsage, fmt::format("--to {}: {}", to, holds)));
    if (to < from) {
        return fail(make_error(ErrorCode::kUsage,
                               fmt::format("--to {} is before --from {}: {}", to, from, holds)));
    }
    // The pads as a script for `framelock run --input`, which counts from 0 at power-on: the
    // lines count from the replay's first frame, so they match when the replay starts at its
    // session's start (frame 0, where the start state is the power-on state). Every frame's up
    // to --to, from the first (a run must reach --from too).
    if (!args.input_log.empty()) {
        auto opened = InputLogWriter::open(
            args.input_log, fmt::format("framelock replay play {}: the pads of every port; line "
                                        "frame 0 is the replay's frame {}",
                                        args.file, seeker.first()));
        if (!opened) return fail(opened.error());
        for (std::uint64_t f = seeker.first(); f <= to; ++f) {
            opened.value()->write(f - seeker.first(), contents.frames[f - seeker.first()].inputs,
                                  emu.ports());
        }
        if (Status closed = opened.value()->close(); !closed) return fail(closed.error());
    }
    std::uint64_t verified = 0;
    // The chat as it was said, printed where the session was when it was (safe text: a file
    // is anyone's).
    std::vector<netplay::ChatLine> chat = contents.chat;
    std::stable_sort(chat.begin(), chat.end(),
                     [](const auto& a, const auto& b) { return a.frame < b.frame; });
    std::size_t next_chat = 0;
    while (next_chat < chat.size() && chat[next_chat].frame < from) ++next_chat;
    const auto print_chat = [&](std::uint64_t upto) {
        for (; next_chat < chat.size() && chat[next_chat].frame <= upto; ++next_chat) {
            netplay::ChatLine line = chat[next_chat];
            line.from = safe_text(line.from, netplay::kMaxNameBytes);
            line.text = safe_text(line.text, netplay::kMaxChatBytes);
            fmt::print("chat     frame {}: {}\n", line.frame, netplay::chat_line_text(line));
        }
    };
    // After each frame: the evidence the session recorded (the state without the bytes a
    // load moves), logged and checked.
    const auto check = [&]() -> bool {
        if (!args.verify && !log) return true;
        const std::uint64_t frame = seeker.shown();
        const std::uint64_t hash = seeker.hash_now();
        if (log) log->write_line(std::to_string(frame) + ' ' + netplay::hash_to_hex(hash));
        if (!args.verify) return true;
        if (hash != seeker.recorded_hash()) {
            fmt::print("replay   {}: DIVERGED at frame {}: state {} here, {} recorded\n", args.file,
                       frame, netplay::hash_to_hex(hash),
                       netplay::hash_to_hex(seeker.recorded_hash()));
            return false;
        }
        ++verified;
        return true;
    };
    print_chat(from);
    const auto seek_started = std::chrono::steady_clock::now();
    auto ran = seeker.show(from);
    if (!ran) return fail(ran.error());
    if (args.from) {
        const double ms = std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - seek_started)
                              .count();
        fmt::print(
            "seek     to frame {}: {} frames run from the state of frame {} in {:.1f} ms "
            "({} keyframes in the file)\n",
            from, ran.value(), seeker.seek_base(), ms, contents.keyframes.size());
    }
    if (!check()) return 1;
    while (seeker.shown() < to) {
        print_chat(seeker.next());
        seeker.advance(false);
        if (!check()) return 1;
    }
    if (!args.to) print_chat(UINT64_MAX);
    if (log) {
        if (Status closed = log->close(); !closed) return fail(closed.error());
    }
    fmt::print("replay   {}: {} frames played ({} .. {}), {} {}\n", args.file, to + 1 - from, from,
               to, contents.header.identity.core_name, contents.header.identity.core_version);
    if (args.verify) fmt::print("verify   {} state hashes equal the recorded ones\n", verified);
    if (!contents.stopped.empty()) fmt::print("note     ends early: {}\n", contents.stopped);
    return 0;
}

struct ViewArgs {
    HostArgs host;
    std::string file;
    bool sram = false;
    std::optional<std::uint64_t> from;
    bool paused = false;
};

int cmd_replay_view(const ViewArgs& args) {
    args.host.apply_log_level();
    auto replay = read_replay(args.file);
    if (!replay) return fail(replay.error());
    const netplay::ReplayContents& contents = replay.value();
    if (contents.frames.empty())
        return fail(make_error(ErrorCode::kState, args.file + ": no frames recorded"));
    std::string no_display;
    if (args.host.video == VideoMode::kNone || !display_available(&no_display)) {
        return fail(make_error(
            ErrorCode::kUsage,
            "replay view needs a window" +
                (no_display.empty() ? std::string() : " (" + no_display + ")") +
                "; `framelock replay play` runs it headless, `replay export` makes a video"));
    }
    auto emulator = start_replay_emulator(args.host, contents, args.sram);
    if (!emulator) return fail(emulator.error());
    RetroEmulator& emu = *emulator.value();
    netplay::ReplaySeeker seeker(emu, contents);
    const std::uint64_t last = seeker.end() - 1;
    if (args.from && (*args.from < seeker.first() || *args.from > last)) {
        return fail(make_error(ErrorCode::kUsage,
                               fmt::format("--from {}: this replay holds frames {} .. {}",
                                           *args.from, seeker.first(), last)));
    }
    auto window = open_window(args.host, emu);
    if (!window) return fail(window.error());
    install_stop_signal_handlers();
    log_info(
        "viewing {}: frames {} .. {}, {} keyframes, {} chat lines; H in the window lists "
        "the keys",
        args.file, seeker.first(), last, contents.keyframes.size(), contents.chat.size());
    ReplayWindowOptions options;
    options.start_frame = args.from;
    options.play = !args.paused;
    auto summary = run_replay_window(emu, *window.value(), contents, seeker, options);
    if (!summary) return fail(summary.error());
    fmt::print(
        "viewer   {}: {} pictures shown, {} seeks, ended at frame {}; {} frames checked "
        "where it paused, {} unlike the recording\n",
        args.file, summary.value().frames_shown, summary.value().seeks, summary.value().last_frame,
        summary.value().checked, summary.value().differed);
    return summary.value().differed == 0 ? 0 : 1;
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
    replay_play->add_option("--from", args->from,
                            "start at this frame (from the nearest keyframe; default: the first)");
    replay_play->add_option("--to", args->to, "stop after this frame (default: the last)");
    replay_play->add_flag("--sram", args->sram,
                          "load save RAM at start, as the session did with `join --sram` (from "
                          "--save-dir); it is never written");
    replay_play->add_option("--input-log", args->input_log,
                            "write the pads up to --to as an input script (FRAME PORT BUTTONS, "
                            "frame 0 the replay's first) for `framelock run --input`");
    auto view_args = std::make_shared<ViewArgs>();
    CLI::App* replay_view = replay->add_subcommand(
        "view", "watch a replay in the window: pause, step both ways, seek, 1/4x to 4x (H: keys)");
    replay_view->add_option("file", view_args->file, "the replay file")->required();
    view_args->host.add_to(*replay_view);
    replay_view->add_option("--from", view_args->from, "start at this frame");
    replay_view->add_flag("--paused", view_args->paused, "start paused");
    replay_view->add_flag("--sram", view_args->sram,
                          "load save RAM at start, as the session did with `join --sram`");
    const Subcommand exported = add_replay_export_command(*replay);
    // The parent dispatches to whichever of its subcommands the command line chose.
    return {replay, [args, view_args, replay_view, exported] {
                if (exported.command->parsed()) return exported.run();
                return replay_view->parsed() ? cmd_replay_view(*view_args) : cmd_replay_play(*args);
            }};
}

}  // namespace framelock::frontend
