#include "frontend/cli.h"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "frontend/atomic_file.h"
#include "frontend/client_runner.h"
#include "frontend/config.h"
#include "frontend/core_locator.h"
#include "frontend/demo.h"
#include "frontend/determinism_lab.h"
#include "frontend/headless.h"
#include "frontend/input_script.h"
#include "frontend/lobby_client/lobby_cli.h"
#include "frontend/lobby_client/lobby_client.h"
#include "frontend/lobby_client/room_browser.h"
#include "frontend/log.h"
#include "frontend/netplay_view.h"
#include "frontend/player_window.h"
#include "frontend/realtime_loop.h"
#include "frontend/replay_file.h"
#include "frontend/retro_emulator.h"
#include "frontend/server_runner.h"
#include "frontend/session_identity.h"
#include "frontend/stop_signal.h"
#include "frontend/windowed_run.h"
#include "netplay/evidence.h"
#include "netplay/io/real_clock.h"
#include "netplay/session_limits.h"
#include "netplay/state_hash.h"

namespace framelock::frontend {
namespace {

// Options every subcommand that hosts a core shares.
struct HostArgs {
    std::string core = kDefaultCore;
    std::string content;
    std::string config_path;
    std::string system_dir;
    std::string save_dir;
    std::vector<std::string> options;  // KEY=VALUE
    unsigned ports = 2;
    unsigned options_version = 2;
    bool no_sram = false;
    bool verbose = false;
    bool quiet = false;
    VideoMode video = VideoMode::kAuto;
    AudioMode audio = AudioMode::kAuto;

    void add_to(CLI::App& app) {
        app.add_option("--core", core,
                       "core name (arcade, nestopia, ...) or path to a *_libretro.so")
            ->capture_default_str();
        app.add_option("--content", content,
                       "game file (ROM, .zip for arcade cores); omit for cores that need none");
        app.add_option("--config", config_path,
                       "config file (default: " + default_config_path() + ")");
        app.add_option("--system-dir", system_dir, "BIOS directory (default: <data>/system)");
        app.add_option("--save-dir", save_dir, "save RAM directory (default: <data>/saves)");
        app.add_option("--option", options, "core option override KEY=VALUE (repeatable)");
        app.add_option("--ports", ports, "controller ports to connect (1-8)")
            ->check(CLI::Range(1, 8))
            ->capture_default_str();
        app.add_option("--options-version", options_version,
                       "core options API version to offer the core (0-2)")
            ->check(CLI::Range(0, 2));
        app.add_flag("--no-sram", no_sram, "neither load nor write save RAM");
        app.add_option("--video", video,
                       "auto: a window when there is a display, else headless; sdl: a window "
                       "or fail; none: headless")
            ->transform(CLI::CheckedTransformer(
                std::map<std::string, VideoMode>{{"auto", VideoMode::kAuto},
                                                 {"sdl", VideoMode::kSdl},
                                                 {"none", VideoMode::kNone}},
                CLI::ignore_case));
        app.add_option("--audio", audio,
                       "auto: sound with the window (silent if no device); sdl: sound or fail; "
                       "none: silent")
            ->transform(CLI::CheckedTransformer(
                std::map<std::string, AudioMode>{{"auto", AudioMode::kAuto},
                                                 {"sdl", AudioMode::kSdl},
                                                 {"none", AudioMode::kNone}},
                CLI::ignore_case));
        app.add_flag("-v,--verbose", verbose, "log debug messages, including the core's");
        app.add_flag("-q,--quiet", quiet, "log errors only");
    }

    Result<Config> load() const {
        return load_config(config_path.empty() ? default_config_path() : config_path,
                           !config_path.empty());
    }

    Result<HostConfig> to_host_config() const {
        auto config = load();
        if (!config) return config.error();
        auto core_path = locate_core(core, core_search_dirs(config.value().core_dirs));
        if (!core_path) return core_path.error();

        HostConfig host;
        host.core_path = core_path.value();
        host.content_path = content;
        const std::string data = default_data_dir();
        host.system_dir = !system_dir.empty()                  ? system_dir
                          : !config.value().system_dir.empty() ? config.value().system_dir
                                                               : data + "/system";
        host.save_dir = !save_dir.empty()                  ? save_dir
                        : !config.value().save_dir.empty() ? config.value().save_dir
                                                           : data + "/saves";
        host.per_core_options = config.value().core_options;
        for (const auto& option : options) {
            const auto eq = option.find('=');
            if (eq == std::string::npos || eq == 0) {
                return make_error(ErrorCode::kUsage,
                                  "--option takes KEY=VALUE, got '" + option + "'");
            }
            host.option_overrides[option.substr(0, eq)] = option.substr(eq + 1);
        }
        host.ports = ports;
        host.core_options_version = options_version;
        host.load_sram = !no_sram;
        host.write_sram = !no_sram;
        return host;
    }

    void apply_log_level() const {
        set_log_level(verbose ? LogLevel::kDebug : quiet ? LogLevel::kError : LogLevel::kInfo);
    }
};

int fail(const Error& error) {
    std::fprintf(stderr, "framelock: error: %s\n", error.message.c_str());
    return static_cast<int>(error.code);
}

// JSON reports and port files: written whole or not at all.
Status write_text_file(const std::string& path, const std::string& text) {
    return write_file_atomic(path,
                             {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

// Whether this run gets a window: --video none never, --video sdl always (or an error
// naming what is missing), --video auto when a display is there (else it says so and runs
// headless).
Result<bool> want_window(VideoMode mode) {
    if (mode == VideoMode::kNone) return false;
    std::string why;
    const bool available = display_available(&why);
    if (mode == VideoMode::kSdl) {
        if (available) return true;
        return make_error(ErrorCode::kUsage, "--video sdl: " + why +
                                                 "; use --video none to run "
                                                 "headless");
    }
    if (!available) log_info("{}: running headless (--video none says so quietly)", why);
    return available;
}

// "framelock - CORE - CONTENT": the title of a window playing `emulator`.
std::string window_title(const HostArgs& args, RetroEmulator& emulator) {
    return "framelock - " + emulator.core_info().library_name +
           (args.content.empty() ? std::string()
                                 : " - " + std::filesystem::path(args.content).filename().string());
}

// Opens the player's window for `emulator` with the config file's [video], [audio],
// [input] and [hotkeys].
Result<std::unique_ptr<PlayerWindow>> open_window(const HostArgs& args, RetroEmulator& emulator) {
    auto config = args.load();
    if (!config) return config.error();
    const retro_system_av_info& av = emulator.av_info();
    PlayerWindowConfig window;
    window.settings = config.value().player;
    window.title = window_title(args, emulator);
    window.base_width = av.geometry.base_width;
    window.base_height = av.geometry.base_height;
    window.aspect = av.geometry.aspect_ratio;
    window.sample_rate = av.timing.sample_rate;
    window.audio = args.audio != AudioMode::kNone && window.settings.audio.enabled;
    window.audio_required = args.audio == AudioMode::kSdl;
    window.screenshot_dir = !window.settings.video.screenshot_dir.empty()
                                ? window.settings.video.screenshot_dir
                                : default_data_dir() + "/screenshots";
    auto opened = open_player_window(window);
    if (!opened) return opened.error();
    log_info("window: {}", opened.value()->describe());
    return opened;
}

void print_audio_report(const PlayerWindow& window) {
    const auto audio = window.audio_report();
    if (!audio) return;
    fmt::print(
        "audio    {} at {} Hz: {} underruns ({} after the first second), {} frames "
        "dropped; queue {:.1f} ms mean ({:.1f}..{:.1f}, sd {:.2f}) for a {:.1f} ms target, "
        "rate x{:.5f}\n",
        audio->driver, audio->device_rate, audio->underruns, audio->underruns_after_warmup,
        audio->frames_dropped, audio->fill_mean_ms, audio->fill_min_ms, audio->fill_max_ms,
        audio->fill_stddev_ms, audio->target_fill_ms, audio->ratio_factor);
}

struct RunArgs {
    HostArgs host;
    std::uint64_t frames = 600;
    CLI::Option* frames_opt = nullptr;
    std::int64_t screenshot_frame = -1;
    std::string screenshot;
    std::string window_screenshot;
    std::string timing_log;
    std::string input_log;
    std::string input_script;
    std::uint64_t random_seed = 0;
    bool random = false;
    std::string hash_log;
    bool hash_regions = false;
};

// `framelock run` in a window: real time at the core's rate, until the player quits (or
// --frames).
int run_in_window(const RunArgs& args, RetroEmulator& emu, const HostConfig& host,
                  InputSource& input) {
    auto window = open_window(args.host, emu);
    if (!window) return fail(window.error());
    install_stop_signal_handlers();
    WindowedRunOptions options;
    options.frames = args.frames_opt->count() ? args.frames : 0;
    options.hash_log = args.hash_log;
    options.hash_regions = args.hash_regions;
    if (args.screenshot_frame >= 0) {
        options.screenshot_frame = static_cast<std::uint64_t>(args.screenshot_frame);
        options.screenshot_path = args.screenshot;
        options.window_screenshot_path = args.window_screenshot;
    }
    options.timing_log = args.timing_log;
    options.input_log = args.input_log;
    const bool scripted = !args.input_script.empty() || args.random;
    auto summary = run_windowed(emu, *window.value(), scripted ? &input : nullptr, options);
    if (!summary) return fail(summary.error());
    const auto& s = summary.value();
    fmt::print("core     {} {}\n", emu.core_info().library_name, emu.core_info().library_version);
    fmt::print("content  {}\n", host.content_path.empty() ? "(none)" : host.content_path);
    fmt::print("options  {} ({} options)\n", netplay::hash_to_hex(emu.options().hash()),
               emu.options().options().size());
    fmt::print("frames   {}{}\n", s.frames, s.quit ? " (quit)" : "");
    fmt::print("state    {}\n", netplay::hash_to_hex(s.final_state_hash));
    for (const auto& [what, p] :
         {std::pair{"presents", &s.pacing}, std::pair{"returns ", &s.pacing_returned}}) {
        fmt::print(
            "pacing   {} {} intervals at {:.4f} fps: mean {:.4f} ms ({:+.4f}% of {:.4f} ms), "
            "p99 deviation {:.3f} ms, max {:.3f} ms\n",
            what, p->intervals, s.fps, p->mean_ms, p->mean_error_pct, p->target_ms,
            p->p99_abs_deviation_ms, p->max_abs_deviation_ms);
    }
    if (s.pacing_restarts)
        fmt::print("note     fell behind by more than 250 ms {} times\n", s.pacing_restarts);
    print_audio_report(*window.value());
    if (s.core_shutdown)
        fmt::print("note     the core asked to shut down after frame {}\n", s.frames);
    return 0;
}

int cmd_run(const RunArgs& args) {
    args.host.apply_log_level();
    auto host = args.host.to_host_config();
    if (!host) return fail(host.error());

    auto made = make_input_source(args.input_script,
                                  args.random ? std::optional(args.random_seed) : std::nullopt,
                                  host.value().ports);
    if (!made) return fail(made.error());
    std::unique_ptr<InputSource> input = std::move(made).value();

    auto windowed = want_window(args.host.video);
    if (!windowed) return fail(windowed.error());
    if (!windowed.value() && !args.window_screenshot.empty())
        return fail(make_error(ErrorCode::kUsage, "--window-screenshot needs a window"));

    auto emulator = RetroEmulator::create(host.value());
    if (!emulator) return fail(emulator.error());
    RetroEmulator& emu = *emulator.value();
    if (windowed.value()) return run_in_window(args, emu, host.value(), *input);

    HeadlessVideo video;
    HeadlessAudio audio;
    emu.set_video_sink(&video);
    emu.set_audio_sink(&audio);

    HeadlessRunOptions options{args.frames, args.hash_log, args.hash_regions, std::nullopt, {}};
    if (args.screenshot_frame >= 0) {
        options.screenshot_frame = static_cast<std::uint64_t>(args.screenshot_frame);
        options.screenshot_path = args.screenshot;
    }
    auto summary = run_headless(emu, *input, options);
    if (!summary) return fail(summary.error());
    const auto& s = summary.value();
    const double fps = emu.frames_per_second();
    fmt::print("core     {} {}\n", emu.core_info().library_name, emu.core_info().library_version);
    fmt::print("content  {}\n",
               host.value().content_path.empty() ? "(none)" : host.value().content_path);
    fmt::print("options  {} ({} options)\n", netplay::hash_to_hex(emu.options().hash()),
               emu.options().options().size());
    fmt::print("frames   {}\n", s.frames);
    fmt::print("state    {}\n", netplay::hash_to_hex(s.final_state_hash));
    fmt::print("speed    {:.0f} frames/s ({:.1f}x the core's {:.3f} fps)\n", s.frames / s.seconds,
               s.frames / s.seconds / fps, fps);
    fmt::print("output   {} video frames, {} audio frames\n", video.frames(), audio.frames());
    if (s.core_shutdown)
        fmt::print("note     the core asked to shut down after frame {}\n", s.frames);
    return 0;
}

// The session side: `framelock server`, and the server half of `framelock host`.
struct ServerArgs {
    std::string bind = "0.0.0.0";
    unsigned port = 0;
    int players = 2;
    int sessions = 1;
    unsigned hash_interval = 60;
    int fixed_delay = 0;  // 0: adaptive
    double duration = 0;
    std::string stats_json;
    std::string port_file;
    std::string mode = "framelock";
    unsigned prediction_window = 8;
    bool fallback_framelock = false;
    bool verbose = false;
    bool quiet = false;
    // Late join, spectators, reconnect, repair (netplay::ServerConfig).
    int slots = 0;  // 0: as many as --players
    std::string password;
    std::string spectator_password;
    std::string on_drop = "continue";
    double reconnect_grace = 60;
    bool no_repair = false;
    bool no_common_start = false;
    bool kick_speed_hack = false;
    // The lobby (frontend/lobby_client/lobby_client.h): `server` registers its sessions there,
    // `host` opens a room there.
    std::string lobby_url;
    std::string public_host;  // the host name players reach this machine by
    std::string region;
    bool is_public = false;  // host: consent to be listed
    bool run_server = true;  // host: false when the lobby assigns a relay server
    std::string game;        // host: the room's game name

    // `dedicated`: the standalone server's flags (bind address, several sessions, its own
    // logging flags); `host` shares the rest with the join flags.
    void add_to(CLI::App& app, bool dedicated) {
        auto* port_opt = app.add_option("--port", port,
                                        dedicated ? "UDP port of the first session (0: any free)"
                                                  : "UDP port to listen on (0: any free)")
                             ->check(CLI::Range(0, 65535));
        auto* lobby_opt = app.add_option(
            "--lobby", lobby_url,
            dedicated ? "register every session with this lobby (http://HOST:PORT) as a relay "
                        "server players' rooms can be assigned to"
                      : "open a room in this lobby (http://HOST:PORT), needs --public; without "
                        "--port the lobby assigns a relay server and no server runs here");
        app.add_option("--public-host", public_host,
                       "the host name or address players reach this machine by (default: "
                       "127.0.0.1)")
            ->needs(lobby_opt);
        app.add_option("--region", region, "the lobby region to list under (a-z, 0-9, - and _)")
            ->needs(lobby_opt);
        if (dedicated) {
            port_opt->required();
        } else {
            auto* public_opt =
                app.add_flag("--public", is_public,
                             "list the room in the lobby: anyone there can see it and join with "
                             "its code (and the --password, if any)")
                    ->needs(lobby_opt);
            lobby_opt->needs(public_opt);
            app.add_option("--game", game,
                           "the room's game name (default: the content's file name)")
                ->needs(lobby_opt);
        }
        // --players kept its old meaning (the session starts once that many joined; with
        // no --slots it is also the slot count), so existing command lines behave as before.
        app.add_option("--players", players,
                       "players needed to start a session (1-8); also its number of player "
                       "slots unless --slots says more")
            ->check(CLI::Range(1, netplay::kMaxPlayers))
            ->required();
        app.add_option("--slots", slots,
                       "player slots (1-8, at least --players; default: --players): the slots "
                       "beyond --players can be taken while the session runs (late join)")
            ->check(CLI::Range(1, netplay::kMaxPlayers));
        app.add_option("--password", password,
                       "players must give this password (join --password); the local player "
                       "of `host` gives it itself");
        app.add_option("--spectator-password", spectator_password,
                       "spectators (join --spectate) must give this password");
        app.add_option("--on-drop", on_drop,
                       "when a player's connection drops: continue (its pad is neutral until it "
                       "is back) or pause (the others wait for it, up to --reconnect-grace)")
            ->check(CLI::IsMember({"continue", "pause"}))
            ->capture_default_str();
        app.add_option("--reconnect-grace", reconnect_grace,
                       "seconds a dropped player may take its slot back (its framelock, "
                       "restarted, proves the slot's rejoin token) before the slot is given up")
            ->check(CLI::Range(0.0, 86400.0))
            ->capture_default_str();
        app.add_flag("--kick-speed-hack", kick_speed_hack,
                     "nowait mode: remove a player whose clock runs more than 2 % fast or slow "
                     "against the server's for over 10 s (it is always named in the log and "
                     "the stats)");
        app.add_flag("--no-repair", no_repair,
                     "on a desync only report it; by default the players that differ from the "
                     "majority get the majority's state (not in rollback sessions)");
        app.add_flag("--no-common-start", no_common_start,
                     "each player starts from its own power-on state instead of the first "
                     "player's (for comparing: a core that keeps a clock or leftover memory in "
                     "its state then reports desyncs at frame 0 that are not)");
        app.add_option("--hash-interval", hash_interval,
                       "clients report a state hash every N frames (0: never)")
            ->check(CLI::Range(0, 65535))
            ->capture_default_str();
        app.add_option("--delay", fixed_delay,
                       fmt::format("input delay in frames. frame lock: fixed, {} (default: "
                                   "adaptive, from the measured round trips); rollback: the "
                                   "local delay, {} (default 0); nowait: {} (default 4)",
                                   netplay::limits::kFrameLockDelay.range(),
                                   netplay::limits::kRollbackDelay.range(),
                                   netplay::limits::kNoWaitDelay.range()))
            ->check(CLI::NonNegativeNumber);
        app.add_option("--mode", mode,
                       "framelock (wait for every input), nowait (the server confirms every "
                       "frame on time; a late input applies a frame later) or rollback "
                       "(predict, re-run; at most 4 players, deterministic savestates)")
            ->check(CLI::IsMember({"framelock", "nowait", "rollback"}))
            ->capture_default_str();
        app.add_option("--prediction-window", prediction_window,
                       "rollback: frames a client may run ahead of confirmed input")
            ->check(CLI::Range(netplay::limits::kPredictionWindow.min,
                               netplay::limits::kPredictionWindow.max))
            ->capture_default_str();
        if (!dedicated) {
            app.add_flag("--fallback-framelock", fallback_framelock,
                         "rollback: if this core's savestates fail the check, play in frame "
                         "lock instead of refusing");
        }
        app.add_option("--port-file", port_file,
                       "write the bound port(s), one per line, to this file once listening");
        if (dedicated) {
            app.add_option("--bind", bind, "IPv4 address to listen on")->capture_default_str();
            app.add_option("--sessions", sessions,
                           "independent sessions on ports P..P+K-1 (one process, one loop)")
                ->check(CLI::Range(1, 256))
                ->capture_default_str();
            app.add_option("--duration", duration,
                           "stop after this many seconds (default: when every session ended)")
                ->check(CLI::NonNegativeNumber);
            app.add_option("--stats-json", stats_json,
                           "write per-session, per-slot statistics and the delay schedule here");
            app.add_flag("-v,--verbose", verbose, "log debug messages");
            app.add_flag("-q,--quiet", quiet, "log errors only");
        } else {
            app.add_option("--server-stats-json", stats_json,
                           "write the server's statistics and delay schedule here");
        }
    }

    int slot_count() const { return slots > 0 ? slots : players; }

    // Rollback sessions take at most four players, and no late players (the engine only
    // sends a running rollback session's state to spectators).
    Status validate() const {
        if (slots > 0 && slots < players) {
            return make_error(ErrorCode::kUsage,
                              "--slots " + std::to_string(slots) + " is fewer than --players " +
                                  std::to_string(players) +
                                  ": the session could never start with that many");
        }
        if (mode == "rollback" && slot_count() > netplay::kMaxRollbackPlayers) {
            return make_error(ErrorCode::kUsage, "rollback sessions take at most " +
                                                     std::to_string(netplay::kMaxRollbackPlayers) +
                                                     " players (--players/--slots " +
                                                     std::to_string(slot_count()) +
                                                     "); use --mode framelock for more");
        }
        if (mode == "rollback" && slot_count() > players) {
            return make_error(ErrorCode::kUsage,
                              "rollback sessions take no late players, only late spectators: "
                              "--slots must equal --players (or use --mode framelock)");
        }
        // The ranges are the engine's own (netplay/session_limits.h). --delay 0 means the
        // default in frame lock (adaptive) and no-wait (4 frames); in rollback, no delay.
        const netplay::ServerConfig session = to_config().server;
        if (fixed_delay > 0 || session.mode == netplay::SessionMode::kRollback) {
            if (Status s = netplay::delay_limit(session.mode).check(fixed_delay); !s)
                return make_error(ErrorCode::kUsage, "--delay: " + s.error().message);
        }
        return netplay::validate(session);
    }

    ServerRunConfig to_config() const {
        ServerRunConfig config;
        config.bind = bind;
        config.port = static_cast<std::uint16_t>(port);
        config.sessions = sessions;
        config.duration_s = duration;
        config.server.players = slot_count();
        // 0 means "every slot": a plain `--players N` session starts as it always did.
        config.server.start_players = slot_count() > players ? players : 0;
        config.server.password = password;
        config.server.spectator_password = spectator_password;
        config.server.pause_on_drop = on_drop == "pause";
        config.server.reconnect_grace_us = static_cast<netplay::Micros>(reconnect_grace * 1e6);
        config.server.repair_desyncs = !no_repair;
        config.server.common_start = !no_common_start;
        config.server.kick_off_pace = kick_speed_hack;
        config.server.hash_interval = static_cast<std::uint16_t>(hash_interval);
        if (mode == "rollback") {
            config.server.mode = netplay::SessionMode::kRollback;
            config.server.delay.fixed_delay = std::max(fixed_delay, 0);
            config.server.prediction_window = static_cast<std::uint8_t>(prediction_window);
        } else if (mode == "nowait") {
            config.server.mode = netplay::SessionMode::kNoWait;
            config.server.delay.fixed_delay = fixed_delay > 0 ? fixed_delay : 4;
        } else if (fixed_delay > 0) {
            config.server.delay.adaptive = false;
            config.server.delay.fixed_delay = fixed_delay;
        }
        if (kick_speed_hack && mode != "nowait")
            log_warn(
                "--kick-speed-hack acts in --mode nowait only: in {} mode frames wait for "
                "every input, and a fast clock gains nothing",
                mode);
        return config;
    }
};

// One player: `framelock join`, and the player half of `framelock host`.
struct JoinArgs {
    HostArgs host;
    std::string address;  // HOST:PORT (join only), or the room code with --lobby
    std::string lobby_url;
    int slot = 0;
    std::string name;
    std::string input_script;
    std::uint64_t random_seed = 0;
    CLI::Option* random_opt = nullptr;
    std::uint64_t frames = 0;
    std::string hash_log;
    std::string stats_json;
    std::int64_t screenshot_frame = -1;
    std::string screenshot;
    std::string record;
    std::string window_screenshot;
    bool sram = false;
    bool spectate = false;
    std::string password;
    std::string rejoin_file;

    // `joining`: `framelock join` (a spectator, a password); `host` plays slot 1 itself and
    // shares the server's --password.
    void add_to(CLI::App& app, bool joining) {
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
        }
        auto* input_opt = app.add_option("--input", input_script,
                                         "input script for this player's pad (its port 1)");
        random_opt = app.add_option("--random", random_seed, "random bot on the pad, this seed");
        input_opt->excludes(random_opt);
        app.add_option("--frames", frames, "leave after this many frames (default: play on)");
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
        app.add_flag("--sram", sram,
                     "load save RAM at start (every player needs the same file, or the games "
                     "differ from frame 0); it is never written during netplay");
    }

    ClientRunConfig to_config(const std::string& server_address) const {
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
        config.spectate = spectate;
        config.password = password;
        config.rejoin_file = rejoin_file;
        if (screenshot_frame >= 0 && !screenshot.empty()) {
            config.screenshot_frame = static_cast<std::uint64_t>(screenshot_frame);
            config.screenshot_path = screenshot;
        }
        return config;
    }

    static std::string default_player_name() {
        const char* user = std::getenv("USER");
        return user && *user ? user : "player";
    }
};

// Feeds the lobby's room keeper and server announcer from the real-time loop: it only
// stores numbers into them (their threads do the HTTP), a few times a second since a
// server's slot statistics are not free to gather. Wraps the player's window, if any.
class LobbyFeed : public RealtimeObserver {
  public:
    LobbyFeed(RealtimeObserver* inner, const netplay::Clock& clock)
        : m_inner(inner), m_clock(clock) {}

    lobby::RoomKeeper* keeper = nullptr;
    const ClientRunner* client = nullptr;
    lobby::ServerAnnouncer* announcer = nullptr;
    const ServerRunner* server = nullptr;

    bool before_step() override { return m_inner && m_inner->before_step(); }
    void after_step() override {
        if (m_inner) m_inner->after_step();
        const netplay::Micros now = m_clock.now_us();
        if (now < m_next) return;
        m_next = now + 200'000;
        if (keeper && client) keeper->set_players(std::popcount(client->client().present_slots()));
        if (announcer && server) {
            const auto busy = server->sessions_busy();
            for (std::size_t i = 0; i < busy.size(); ++i) announcer->set_load(i, busy[i] ? 1 : 0);
        }
    }
    netplay::Micros next_wakeup(netplay::Micros now) const override {
        const netplay::Micros inner = m_inner ? m_inner->next_wakeup(now) : now + 1'000'000;
        return std::min(inner, m_next);
    }

  private:
    RealtimeObserver* m_inner;
    const netplay::Clock& m_clock;
    netplay::Micros m_next = 0;
};

// Text for the lobby's fields: printable, cut to the API's limits.
std::string lobby_text(std::string text, std::size_t max, const char* keep = "") {
    for (char& c : text) {
        const bool alnum =
            (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (*keep ? !alnum && !std::strchr(keep, c) : static_cast<unsigned char>(c) < 0x20) c = '-';
    }
    if (text.size() <= max) return text;
    // Cut before a multi-byte character rather than through it: the lobby refuses text that
    // is not well-formed UTF-8.
    std::size_t end = max;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    return text.substr(0, end);
}

// The room `framelock host --lobby` opens: what players filter on and must match.
nlohmann::json room_body(const JoinArgs& args, const ServerArgs& server_args,
                         const RetroEmulator& emulator, const std::string& server_address) {
    const netplay::SessionIdentity id = session_identity(emulator);
    const std::string game = !server_args.game.empty() ? server_args.game
                             : !args.host.content.empty()
                                 ? std::filesystem::path(args.host.content).filename().string()
                                 : id.core_name;
    nlohmann::json body{
        {"host_name",
         lobby_text(args.name.empty() ? JoinArgs::default_player_name() : args.name, 64)},
        {"game_name", lobby_text(game, 128)},
        {"content_hash", fmt::format("{:016x}", id.content_hash)},
        {"core_name", lobby_text(id.core_name, 64, "_.- ")},
        {"core_version", lobby_text(id.core_version, 32)},
        {"mode", server_args.mode},
        {"slots", server_args.slot_count()},
        {"region", server_args.region}};
    if (!server_args.password.empty()) body["password"] = server_args.password;
    if (!server_address.empty()) body["server_address"] = server_address;
    return body;
}

// A player's session, with the session's server in this process when `server_args` is given
// (`framelock host`, unless the lobby assigns a relay server). Returns the exit code.
// With `browser_window` (`framelock browse`), the session plays in that window, already
// open, instead of a new one.
int play_netplay(const JoinArgs& args, const ServerArgs* server_args,
                 std::unique_ptr<PlayerWindow> browser_window = nullptr) {
    args.host.apply_log_level();
    auto host = args.host.to_host_config();
    if (!host) return fail(host.error());
    // Save RAM that differs between peers desyncs them from frame 0 (the arcade game latches
    // its high score at power-on): loaded only on request, never written.
    host.value().load_sram = args.sram && !args.host.no_sram;
    host.value().write_sram = false;

    auto input = make_input_source(
        args.input_script,
        args.random_opt->count() ? std::optional(args.random_seed) : std::nullopt, 1);
    if (!input) return fail(input.error());
    auto windowed = browser_window ? Result<bool>(true) : want_window(args.host.video);
    if (!windowed) return fail(windowed.error());
    if (!windowed.value() && !args.window_screenshot.empty())
        return fail(make_error(ErrorCode::kUsage, "--window-screenshot needs a window"));
    auto emulator = RetroEmulator::create(host.value());
    if (!emulator) return fail(emulator.error());

    // In a window, the local pad is the keyboard and controllers of port 1, with the
    // script or bot (if any) OR-ed in.
    std::unique_ptr<PlayerWindow> window;
    std::unique_ptr<MergedInput> merged;
    std::unique_ptr<WindowCaptureAt> capture;
    InputSource* local = input.value().get();
    netplay::SteadyClock clock;
    if (browser_window) {
        // Opened before the core was known: give it the core's picture and sound now.
        window = std::move(browser_window);
        const retro_system_av_info& av = emulator.value()->av_info();
        window->set_geometry(av.geometry.base_width, av.geometry.base_height,
                             av.geometry.aspect_ratio);
        window->set_sample_rate(av.timing.sample_rate);
        window->set_title(window_title(args.host, *emulator.value()));
    } else if (windowed.value()) {
        auto opened = open_window(args.host, *emulator.value());
        if (!opened) return fail(opened.error());
        window = std::move(opened).value();
    }
    if (window) {
        emulator.value()->set_video_sink(&window->video());
        emulator.value()->set_audio_sink(window->audio());
        if (!args.window_screenshot.empty()) {
            capture = std::make_unique<WindowCaptureAt>(
                *window, *emulator.value(), clock,
                static_cast<std::uint64_t>(args.screenshot_frame), args.window_screenshot);
            emulator.value()->set_video_sink(capture.get());
        }
        merged = std::make_unique<MergedInput>(window->input(), *input.value());
        local = merged.get();
    }

    install_stop_signal_handlers();
    std::unique_ptr<ServerRunner> server;
    std::string address = args.address;
    if (!server_args && !args.lobby_url.empty()) {
        // `join --lobby URL CODE`: the lobby turns the code into the server's address.
        auto joined = lobby::join_room(args.lobby_url, args.address, args.password, args.spectate);
        if (!joined) return fail(joined.error());
        address = joined.value();
        log_info("lobby: room {} plays on {}", args.address, address);
    }
    if (server_args && server_args->run_server) {
        if (Status valid = server_args->validate(); !valid) return fail(valid.error());
        ServerRunConfig server_config = server_args->to_config();
        if (server_config.server.mode == netplay::SessionMode::kRollback) {
            // Rollback loads states all the time: only with savestates that are faithful.
            Status trusted = check_rollback_savestates(host.value(), 600,
                                                       server_config.server.prediction_window);
            if (!trusted && !server_args->fallback_framelock) return fail(trusted.error());
            if (!trusted) {
                log_warn("{}", trusted.error().message);
                log_warn("playing in frame lock instead (--fallback-framelock)");
                server_config.server.mode = netplay::SessionMode::kFrameLock;
                server_config.server.delay = {};
            } else {
                log_info("savestates checked for rollback: 600 frames, every reload faithful");
            }
        }
        auto opened = ServerRunner::open(server_config, clock);
        if (!opened) return fail(opened.error());
        server = std::move(opened).value();
        address = "127.0.0.1:" + std::to_string(server->ports().front());
        if (!server_args->port_file.empty()) {
            Status written = write_text_file(server_args->port_file,
                                             std::to_string(server->ports().front()) + "\n");
            if (!written) return fail(written.error());
        }
    }
    std::unique_ptr<lobby::RoomKeeper> keeper;
    if (server_args && !server_args->lobby_url.empty()) {
        // Our own server is announced by the name players reach it by; without one the
        // lobby picks a free relay session and this player joins it like any other.
        const std::string announced =
            server ? (server_args->public_host.empty() ? "127.0.0.1" : server_args->public_host) +
                         ":" + std::to_string(server->ports().front())
                   : "";
        const nlohmann::json body = room_body(args, *server_args, *emulator.value(), announced);
        auto room = lobby::create_room(server_args->lobby_url, body);
        if (!room) return fail(room.error());
        if (!server) address = room.value().server_address;
        fmt::print("room code {}\n", room.value().code);
        std::fflush(stdout);
        log_info("lobby: room {} at {}, playing on {}", room.value().code, server_args->lobby_url,
                 room.value().server_address);
        keeper = std::make_unique<lobby::RoomKeeper>(server_args->lobby_url, room.value(), body);
    }
    auto client = ClientRunner::create(*emulator.value(), *local, clock, args.to_config(address));
    if (!client) {
        if (keeper) keeper->close();  // a room nobody can play in should not stay listed
        return fail(client.error());
    }
    if (server) {
        if (auto watched = server->watch_also(client.value()->socket_fd()); !watched)
            return fail(watched.error());
    }

    std::unique_ptr<NetplayView> view;
    if (window) {
        view = std::make_unique<NetplayView>(*window, *client.value(), server.get(), clock,
                                             emulator.value()->frames_per_second());
    }
    LobbyFeed feed(view.get(), clock);
    feed.keeper = keeper.get();
    feed.client = client.value().get();
    run_realtime(server.get(), client.value().get(), clock, 0,
                 keeper ? static_cast<RealtimeObserver*>(&feed) : view.get());
    // Leaving in an orderly way (done, refused, interrupted): the room goes at once rather
    // than after the lobby's TTL.
    if (keeper) keeper->close();
    // Refused or cut off: leave the reason on the screen for a moment.
    if (view && !window->quit_requested() && !stop_requested() &&
        !client.value()->summary().completed) {
        view->linger(3'000'000);
    }

    const Status finished = client.value()->finish();
    const ClientRunSummary summary = client.value()->summary();
    print_client_summary(stdout, summary);
    if (window) {
        print_audio_report(*window);
        if (Status captured = window->capture_status(); !captured) return fail(captured.error());
        if (capture && !capture->done()) {
            return fail(make_error(ErrorCode::kIo, "no window picture of frame " +
                                                       std::to_string(args.screenshot_frame) +
                                                       ": the session ended before it"));
        }
    }
    if (!args.stats_json.empty()) {
        if (Status s = write_text_file(args.stats_json, client_summary_json(summary)); !s)
            return fail(s.error());
    }
    if (server) {
        const auto sessions = server->summary();
        print_server_summary(stdout, sessions);
        if (!server_args->stats_json.empty()) {
            Status s = write_text_file(server_args->stats_json, server_summary_json(sessions));
            if (!s) return fail(s.error());
        }
    }
    std::fflush(stdout);
    if (!finished) return fail(finished.error());
    if (!summary.completed) {
        return fail(make_error(ErrorCode::kProtocol,
                               summary.rejected
                                   ? summary.end_reason
                                   : "the session ended early: " + summary.end_reason));
    }
    return 0;
}

// `framelock browse`: pick a room of the lobby in the player's window, then play it there
// as `framelock join` would.
int cmd_browse(JoinArgs args, const std::string& lobby_url) {
    args.host.apply_log_level();
    // The core and content are checked before the window opens: a typo should not wait
    // for a room to be chosen.
    if (auto host = args.host.to_host_config(); !host) return fail(host.error());
    if (args.host.video == VideoMode::kNone)
        return fail(make_error(ErrorCode::kUsage, "browse needs a window (--video none given)"));
    if (std::string why; !display_available(&why))
        return fail(make_error(ErrorCode::kUsage, "browse needs a window: " + why +
                                                      " (`lobby list` and `join` work without)"));
    auto config = args.host.load();
    if (!config) return fail(config.error());
    PlayerWindowConfig window_config;
    window_config.settings = config.value().player;
    window_config.title = "framelock - rooms";
    window_config.audio =
        args.host.audio != AudioMode::kNone && window_config.settings.audio.enabled;
    window_config.audio_required = args.host.audio == AudioMode::kSdl;
    window_config.screenshot_dir = !window_config.settings.video.screenshot_dir.empty()
                                       ? window_config.settings.video.screenshot_dir
                                       : default_data_dir() + "/screenshots";
    auto window = open_player_window(window_config);
    if (!window) return fail(window.error());
    log_info("window: {}", window.value()->describe());

    install_stop_signal_handlers();
    netplay::SteadyClock clock;
    const auto choice = lobby::run_room_browser(*window.value(), lobby_url, clock, args.spectate);
    if (!choice) return 0;  // the player left the browser
    args.address = choice->server_address;
    args.lobby_url.clear();  // the lobby already answered: this is the server's address
    if (!choice->password.empty()) args.password = choice->password;
    return play_netplay(args, nullptr, std::move(window).value());
}

int cmd_server(const ServerArgs& args) {
    set_log_level(args.verbose ? LogLevel::kDebug
                  : args.quiet ? LogLevel::kError
                               : LogLevel::kInfo);
    if (Status valid = args.validate(); !valid) return fail(valid.error());
    install_stop_signal_handlers();
    netplay::SteadyClock clock;
    auto server = ServerRunner::open(args.to_config(), clock);
    if (!server) return fail(server.error());
    if (!args.port_file.empty()) {
        std::string ports;
        for (const auto port : server.value()->ports()) ports += std::to_string(port) + "\n";
        if (Status s = write_text_file(args.port_file, ports); !s) return fail(s.error());
    }
    std::unique_ptr<lobby::ServerAnnouncer> announcer;
    if (!args.lobby_url.empty()) {
        std::vector<std::string> addresses;
        const std::string host = args.public_host.empty() ? "127.0.0.1" : args.public_host;
        for (const auto port : server.value()->ports())
            addresses.push_back(host + ":" + std::to_string(port));
        announcer =
            std::make_unique<lobby::ServerAnnouncer>(args.lobby_url, addresses, args.region);
    }
    LobbyFeed feed(nullptr, clock);
    feed.announcer = announcer.get();
    feed.server = server.value().get();
    run_realtime(server.value().get(), nullptr, clock, 0, announcer ? &feed : nullptr);
    if (announcer) announcer->close();
    const auto sessions = server.value()->summary();
    print_server_summary(stdout, sessions);
    std::fflush(stdout);
    if (!args.stats_json.empty()) {
        if (Status s = write_text_file(args.stats_json, server_summary_json(sessions)); !s)
            return fail(s.error());
    }
    return 0;
}

int cmd_demo(const DemoOptions& options) {
    install_stop_signal_handlers();
    auto report = run_demo(options);
    if (!report) return fail(report.error());
    print_demo_report(report.value());
    return report.value().comparison.identical ? 0 : 1;
}

// `framelock synctest`: the determinism lab (frontend/determinism_lab.h).
struct SynctestArgs {
    HostArgs host;
    std::uint64_t frames = 10'000;
    std::string input_script;
    std::uint64_t random_seed = 1;
    std::vector<std::string> modes{"all"};
    std::uint32_t distance = 8;
    std::string report = "synctest-report";
    std::vector<std::string> compare;
    bool no_progress = false;
    std::string worker, worker_dir;

    void add_to(CLI::App& app) {
        host.add_to(app);
        app.add_option("--frames", frames, "frames to check")
            ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100'000'000}))
            ->capture_default_str();
        auto* input_opt = app.add_option("--input", input_script, "input script for every port");
        auto* random_opt =
            app.add_option("--random", random_seed, "random input with this seed (default 1)");
        input_opt->excludes(random_opt);
        app.add_option("--mode", modes,
                       "checks to run: roundtrip (save/load/re-run), twice (two runs from "
                       "power-on), all")
            ->delimiter(',')
            ->check(CLI::IsMember({"all", "roundtrip", "twice"}))
            ->capture_default_str();
        app.add_option("--distance", distance, "roundtrip: frames between a save and its reload")
            ->check(CLI::Range(1, 600))
            ->capture_default_str();
        app.add_option("--report", report, "report directory")->capture_default_str();
        app.add_option("--compare", compare,
                       "compare two hash logs (from two machines) instead: A B")
            ->expected(2);
        app.add_flag("--no-progress", no_progress, "no progress bar");
        app.add_option("--worker", worker)->group("");
        app.add_option("--worker-dir", worker_dir)->group("");
    }
};

int cmd_synctest(const SynctestArgs& args, int argc, char** argv) {
    if (!args.compare.empty()) return run_synctest_compare(args.compare[0], args.compare[1]);
    if (args.worker.empty())
        args.host.apply_log_level();
    else
        set_log_level(LogLevel::kError);
    auto host = args.host.to_host_config();
    if (!host) return fail(host.error());
    SynctestOptions options;
    options.host = host.value();
    options.frames = args.frames;
    options.input_script = args.input_script;
    options.random_seed = args.random_seed;
    const auto wants = [&](const char* mode) {
        return std::find(args.modes.begin(), args.modes.end(), mode) != args.modes.end() ||
               std::find(args.modes.begin(), args.modes.end(), "all") != args.modes.end();
    };
    options.check_roundtrip = wants("roundtrip");
    options.check_twice = wants("twice");
    options.check_distance = args.distance;
    options.report_dir = args.report;
    options.progress = !args.no_progress;
    if (!args.worker.empty()) return run_synctest_worker(options, args.worker, args.worker_dir);
    std::error_code ec;
    const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) return fail(make_error(ErrorCode::kIo, "cannot find this executable: " + ec.message()));
    options.self_command.push_back(self);
    for (int i = 1; i < argc; ++i) options.self_command.emplace_back(argv[i]);
    return run_synctest(options);
}

// `framelock replay play FILE`: runs a recorded session again, headless, and with --verify
// checks every recorded state hash.
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
    auto host = args.host.to_host_config();
    if (!host) return fail(host.error());
    // A session played with `join --sram` started from that save RAM: the replay needs it too.
    host.value().load_sram = args.sram && !args.host.no_sram;
    host.value().write_sram = false;
    host.value().ports = std::max(1u, static_cast<unsigned>(contents.header.identity.ports));
    auto emulator = RetroEmulator::create(host.value());
    if (!emulator) return fail(emulator.error());
    RetroEmulator& emu = *emulator.value();
    const std::string content_name =
        args.host.content.empty() ? "-"
                                  : std::filesystem::path(args.host.content).filename().string();
    const std::string why =
        netplay::identity_mismatch(contents.header.identity, "the recorded content",
                                   session_identity(emu), content_name, "the replay");
    if (!why.empty()) {
        return fail(
            make_error(ErrorCode::kContent, "this replay was recorded with another setup: " + why));
    }
    if (!contents.header.start_state.empty() && !emu.load_state(contents.header.start_state)) {
        return fail(
            make_error(ErrorCode::kState, "the core refused the replay's start state (frame " +
                                              std::to_string(contents.header.start_frame) + ")"));
    }
    emu.rewind_to(contents.header.start_frame);
    std::unique_ptr<HashLogWriter> log;
    if (!args.hash_log.empty()) {
        auto opened = HashLogWriter::open(args.hash_log, false);
        if (!opened) return fail(opened.error());
        log = std::move(opened).value();
    }
    std::uint64_t frame = contents.header.start_frame, verified = 0;
    std::vector<std::uint8_t> scratch;
    for (const auto& recorded : contents.frames) {
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

int run_cli(int argc, char** argv) {
    CLI::App app{"framelock: frame-locked netplay for libretro cores"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("framelock ") + FRAMELOCK_VERSION);

    RunArgs run_args;
    CLI::App* run = app.add_subcommand(
        "run", "play a core in a window (or headless at full speed with scripted input)");
    run_args.host.add_to(*run);
    run_args.frames_opt =
        run->add_option("--frames", run_args.frames,
                        "frames to run (default: 600 headless; in a window, until you quit)");
    auto* run_shot_frame = run->add_option("--screenshot-frame", run_args.screenshot_frame,
                                           "save the picture of this frame (0-based) ...")
                               ->check(CLI::NonNegativeNumber);
    run->add_option("--screenshot", run_args.screenshot, "... the core's picture, as this PNG")
        ->needs(run_shot_frame);
    run->add_option("--window-screenshot", run_args.window_screenshot,
                    "... the window as shown right after it, as this PNG")
        ->needs(run_shot_frame);
    run->add_option("--timing-log", run_args.timing_log,
                    "in a window: 'FRAME DUE_NS SAMPLED_NS PRESENTED_NS' per frame (monotonic "
                    "clock)");
    run->add_option("--input-log", run_args.input_log,
                    "in a window: the pads played, as an input script (replay with --input)");
    auto* input_opt = run->add_option("--input", run_args.input_script,
                                      "input script (see docs/input-script.md)");
    auto* random_opt =
        run->add_option("--random", run_args.random_seed, "random bot input with this seed");
    input_opt->excludes(random_opt);
    run->add_option("--hash-log", run_args.hash_log,
                    "write 'FRAME HASH' for every frame to this file");
    run->add_flag("--hash-regions", run_args.hash_regions,
                  "add each memory region's hash to every hash-log line");

    ServerArgs server_args;
    CLI::App* server = app.add_subcommand(
        "server", "run netplay sessions (headless): collect inputs, pick the delay, relay");
    server_args.add_to(*server, true);

    JoinArgs join_args;
    CLI::App* join = app.add_subcommand("join", "play in a session");
    join->add_option("address", join_args.address,
                     "the server's HOST:PORT, or with --lobby the room's code")
        ->required();
    join_args.add_to(*join, true);

    JoinArgs browse_args;
    CLI::App* browse = app.add_subcommand(
        "browse", "pick a room of a lobby in the player's window, then play in it");
    browse_args.add_to(*browse, true);  // its --lobby is the lobby to browse

    JoinArgs host_join_args;
    ServerArgs host_server_args;
    CLI::App* host =
        app.add_subcommand("host", "run a session's server and play in it as player 1");
    host_server_args.add_to(*host, false);
    // Without --port a lobby room gets a relay server assigned; otherwise a port is a must.
    host_join_args.add_to(*host, false);

    ReplayArgs replay_args;
    CLI::App* replay = app.add_subcommand("replay", "recorded sessions");
    replay->require_subcommand(1);
    CLI::App* replay_play =
        replay->add_subcommand("play", "play a replay again (headless), --verify its hashes");
    replay_play->add_option("file", replay_args.file, "the replay file")->required();
    replay_args.host.add_to(*replay_play);
    replay_play->add_flag("--verify", replay_args.verify,
                          "check the state after every frame against the recorded hash");
    replay_play->add_option("--hash-log", replay_args.hash_log,
                            "write 'FRAME HASH' for every frame played");
    replay_play->add_flag("--sram", replay_args.sram,
                          "load save RAM at start, as the session did with `join --sram` (from "
                          "--save-dir); it is never written");

    SynctestArgs synctest_args;
    CLI::App* synctest = app.add_subcommand(
        "synctest", "check that a core is deterministic; report where it is not");
    synctest_args.add_to(*synctest);

    DemoOptions demo_options;
    CLI::App* demo = app.add_subcommand(
        "demo", "two bots play the arcade game through a delaying proxy; compare their states");
    demo->add_option("--frames", demo_options.frames, "frames each client plays")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{10'000'000}))
        ->capture_default_str();
    demo->add_option("--rtt", demo_options.rtt_ms, "round trip added by the proxy (ms)")
        ->check(CLI::Range(0.0, 10000.0))
        ->capture_default_str();
    demo->add_option("--jitter", demo_options.jitter_ms, "+/- jitter each way (ms)")
        ->check(CLI::Range(0.0, 10000.0));
    demo->add_option("--loss", demo_options.loss_pct, "datagram loss each way (%)")
        ->check(CLI::Range(0.0, 100.0));
    demo->add_option("--out", demo_options.out_dir, "directory for logs, statistics, pictures")
        ->capture_default_str();

    lobby::LobbyCommand lobby_command;
    lobby::add_lobby_command(app, lobby_command);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : static_cast<int>(ErrorCode::kUsage);
    }
    run_args.random = random_opt->count() > 0;
    if (run->parsed()) {
        if (run_args.screenshot_frame >= 0 && run_args.screenshot.empty() &&
            run_args.window_screenshot.empty()) {
            return fail(make_error(ErrorCode::kUsage,
                                   "--screenshot-frame needs --screenshot or --window-screenshot"));
        }
        return cmd_run(run_args);
    }
    if (synctest->parsed()) return cmd_synctest(synctest_args, argc, argv);
    if (replay_play->parsed()) return cmd_replay_play(replay_args);
    if (server->parsed()) return cmd_server(server_args);
    for (const JoinArgs* args : {&join_args, &host_join_args, &browse_args}) {
        if (args->screenshot_frame >= 0 && args->screenshot.empty() &&
            args->window_screenshot.empty()) {
            return fail(make_error(ErrorCode::kUsage,
                                   "--screenshot-frame needs --screenshot or --window-screenshot"));
        }
    }
    if (join->parsed()) return play_netplay(join_args, nullptr);
    if (browse->parsed()) {
        // The same default as `lobby list`.
        const std::string url =
            browse_args.lobby_url.empty() ? "http://127.0.0.1:8470" : browse_args.lobby_url;
        return cmd_browse(browse_args, url);
    }
    if (host->parsed()) {
        if (host->get_option("--port")->count() == 0 && host_server_args.lobby_url.empty()) {
            return fail(make_error(ErrorCode::kUsage,
                                   "host needs --port (or --lobby URL --public to play on a "
                                   "relay server the lobby assigns)"));
        }
        host_server_args.run_server = host->get_option("--port")->count() > 0;
        if (host_join_args.slot == 0) host_join_args.slot = 1;
        host_join_args.password = host_server_args.password;
        return play_netplay(host_join_args, &host_server_args);
    }
    if (demo->parsed()) return cmd_demo(demo_options);
    if (const int code = lobby::run_lobby_command(lobby_command); code >= 0) return code;
    return 0;
}

}  // namespace framelock::frontend
