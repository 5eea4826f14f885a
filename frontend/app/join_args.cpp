#include "frontend/app/join_args.h"

#include <cstdlib>
#include <filesystem>

#include "frontend/files/user_dirs.h"
#include "netplay/base/safe_text.h"
#include "netplay/crypto/server_identity.h"

namespace framelock::frontend {

void JoinArgs::add_to(CLI::App& app, bool joining) {
    host.add_to(app);
    auto* slot_opt =
        app.add_option("--slot", slot, "player slot to take (1-8; default: the first free one)")
            ->check(CLI::Range(1, netplay::kMaxPlayers));
    app.add_option("--name", name,
                   "player name shown to the others (a name another player has gets a "
                   "suffix; it never takes their slot)");
    app.add_option("--rejoin-file", rejoin_file,
                   "keep this player's rejoin token in FILE: run again after a crash, the "
                   "same command takes the slot back (default: one file per server and "
                   "name under ~/.local/state/framelock/rejoin; '-': keep it in memory only)");
    if (joining) {
        app.add_option("--lobby", lobby_url,
                       "ask this lobby (http://HOST:PORT) for the room whose code is given "
                       "instead of an address");
        app.add_flag("--spectate", spectate,
                     "watch instead of playing: no slot, no input, a few frames behind the "
                     "players; may join a running session")
            ->excludes(slot_opt);
        app.add_option("--password", password,
                       "the session's password (its --password, or --spectator-password "
                       "with --spectate)");
        app.add_option("--server-key", server_key,
                       "join only the server holding this key (as `host` or `server` prints "
                       "it): a machine answering in its place is refused (with --lobby, the "
                       "room's key is checked without it)");
    }
    auto* input_opt =
        app.add_option("--input", input_script, "input script for this player's pad (its port 1)");
    random_opt = app.add_option("--random", random_seed, "random bot on the pad, this seed");
    input_opt->excludes(random_opt);
    app.add_option("--frames", frames,
                   "leave once the session's frame N has run: the frame to leave at, counted "
                   "from the session's start (a late joiner or spectator too, not from when "
                   "it joined; default: play on)");
    app.add_option("--hash-log", hash_log,
                   "write 'FRAME HASH' for every frame to this file (as `run --hash-log`)");
    app.add_option("--stats-json", stats_json, "write this player's statistics here");
    auto* shot_frame = app.add_option("--screenshot-frame", screenshot_frame,
                                      "save the picture of this frame (0-based) ...")
                           ->check(CLI::NonNegativeNumber);
    auto* shot = app.add_option("--screenshot", screenshot, "... as this PNG file");
    auto* window_shot = app.add_option(
        "--window-screenshot", window_screenshot,
        "... and/or the window (picture, overlay, messages) right after it, as this PNG");
    shot->needs(shot_frame);
    window_shot->needs(shot_frame);
    app.add_option("--record", record,
                   "record the session to this replay file (written as FILE.part until the "
                   "end; `framelock replay play FILE --verify` checks it)");
    app.add_option("--desync-bundle", desync_bundle,
                   "on a desync, write a bundle for a core developer (both states, the memory "
                   "that differs, the last inputs; `framelock synctest --compare` reads it) into "
                   "this directory (default: desyncs/ in the data directory, "
                   "~/.local/share/framelock/desyncs)");
    app.add_option("--say", say,
                   "say TEXT in the session's chat once frame FRAME has run (FRAME:TEXT; may "
                   "be given again). In the window, T opens the chat line");
    app.add_option("--mute", mute,
                   "do not show chat lines from the player or spectator of this name (may be "
                   "given again; in the window, /mute NAME)");
    app.add_flag("--sram", sram,
                 "load save RAM at start (every player needs the same file, or the games "
                 "differ from frame 0); it is never written during netplay");
}

Status JoinArgs::validate() const {
    // Shown to the other players, in their logs and windows: a name is safe text
    // (netplay/base/safe_text.h). Refused here, naming the character, rather than escaped.
    if (const auto bad = find_unsafe(name)) {
        return make_error(ErrorCode::kUsage,
                          "--name holds " + bad->what + " at byte " + std::to_string(bad->offset) +
                              ": a name is printable text, without control, bidi or invisible "
                              "format characters");
    }
    if (!server_key.empty() && !netplay::parse_server_key(server_key)) {
        return make_error(ErrorCode::kUsage,
                          "--server-key '" + safe_text(server_key, 64) +
                              "' is not a server key: 43 characters of URL-safe base64, as the "
                              "server's log line 'server key ...' shows it");
    }
    for (const auto& line : say) {
        if (auto parsed = parse_scripted_chat(line); !parsed) return parsed.error();
    }
    if (screenshot_frame >= 0 && screenshot.empty() && window_screenshot.empty()) {
        return make_error(ErrorCode::kUsage,
                          "--screenshot-frame needs --screenshot or --window-screenshot");
    }
    return {};
}

ClientRunConfig JoinArgs::to_config(const std::string& server_address) const {
    ClientRunConfig config;
    config.server_address = server_address;
    config.slot = slot;
    config.player_name = name.empty() ? default_player_name() : name;
    config.content_name =
        host.content.empty() ? "" : std::filesystem::path(host.content).filename().string();
    config.ports = host.ports;
    config.frames = frames;
    config.hash_log = hash_log;
    config.record_path = record;
    config.desync_bundle_dir =
        desync_bundle.empty() ? (std::filesystem::path(default_data_dir()) / "desyncs").string()
                              : desync_bundle;
    config.spectate = spectate;
    config.password = password;
    config.rejoin_file = rejoin_file;
    config.muted = mute;
    for (const auto& line : say) {
        if (auto parsed = parse_scripted_chat(line))
            config.say.push_back(std::move(parsed).value());
    }
    if (!server_key.empty()) config.server_key = netplay::parse_server_key(server_key);
    if (screenshot_frame >= 0 && !screenshot.empty()) {
        config.screenshot_frame = static_cast<std::uint64_t>(screenshot_frame);
        config.screenshot_path = screenshot;
    }
    return config;
}

std::string JoinArgs::default_player_name() {
    const char* user = std::getenv("USER");
    return user && *user ? user : "player";
}

}  // namespace framelock::frontend
