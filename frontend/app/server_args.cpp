#include "frontend/app/server_args.h"

#include <fmt/core.h>

#include <algorithm>

#include "common/log.h"
#include "common/relay_key.h"
#include "netplay/server/session_limits.h"

namespace framelock::frontend {

void ServerArgs::add_to(CLI::App& app, bool dedicated) {
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
        app.add_option("--relay-key-file", relay_key_file,
                       fmt::format("a file holding the lobby operator's relay key (its first "
                                   "line), which the lobby needs to register relays; else the "
                                   "environment's {}",
                                   kRelayKeyEnv))
            ->needs(lobby_opt);
        app.add_flag("--reuse-sessions", reuse_sessions,
                     "open each session again once its game ended (a relay's sessions, which "
                     "--lobby implies): the server runs until stopped or --duration");
        app.add_option("--idle-reset", idle_reset,
                       "with --reuse-sessions or --lobby: open a session again when its players "
                       "have started no game this many seconds after the first joined (0: never)")
            ->check(CLI::Range(0.0, 86400.0))
            ->capture_default_str();
    } else {
        auto* public_opt =
            app.add_flag("--public", is_public,
                         "list the room in the lobby: anyone there can see it and join with "
                         "its code (and the --password, if any)")
                ->needs(lobby_opt);
        lobby_opt->needs(public_opt);
        app.add_option("--game", game, "the room's game name (default: the content's file name)")
            ->needs(lobby_opt);
        app.add_flag_callback(
            "--no-upnp", [this] { upnp = false; },
            "do not ask the router for a UDP port mapping (UPnP IGD); by default the host "
            "asks for one while it runs, so that players outside its network reach it");
        // For tests (a gateway of their own, no discovery): hidden from --help.
        app.add_option("--upnp-igd", upnp_igd, "the UPnP gateway's root description URL")
            ->group("");
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
    app.add_flag("--no-chat", no_chat,
                 "relay no chat: players' and spectators' messages are dropped, and their "
                 "framelock says chat is off");
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
    const std::vector<std::string> modes = {"auto", "framelock", "nowait", "rollback", "hybrid"};
    app.add_option("--mode", mode,
                   std::string("framelock (wait for every input), nowait (the server confirms "
                               "every frame on time; a late input applies a frame later), "
                               "rollback (predict, re-run, a fixed local delay; at most 4 "
                               "players, deterministic savestates), hybrid (rollback over the "
                               "frame lock's adaptive delay: at most 2 frames of it felt, "
                               "prediction covers the rest)") +
                       (dedicated ? " or auto (hybrid while every player vouches for its own "
                                    "savestates, else frame lock; hybrid at most 4 players)"
                                  : " or auto (hybrid if this core's savestates pass "
                                    "the check, else frame lock; hybrid at most 4 players)"))
        ->check(CLI::IsMember(modes))
        ->capture_default_str();
    app.add_option("--prediction-window", prediction_window,
                   fmt::format("rollback and hybrid: frames a client may run ahead of "
                               "confirmed input (default: rollback 8, hybrid {})",
                               unsigned{netplay::kHybridPredictionWindow}))
        ->check(CLI::Range(netplay::limits::kPredictionWindow.min,
                           netplay::limits::kPredictionWindow.max));
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

unsigned ServerArgs::window_for(const std::string& for_mode) const {
    if (prediction_window > 0) return prediction_window;
    return for_mode == "hybrid" ? netplay::kHybridPredictionWindow : 8;
}

Status ServerArgs::validate() const {
    if (slots > 0 && slots < players) {
        return make_error(ErrorCode::kUsage, "--slots " + std::to_string(slots) +
                                                 " is fewer than --players " +
                                                 std::to_string(players) +
                                                 ": the session could never start with that many");
    }
    const bool predicting = mode == "rollback" || mode == "hybrid";
    if (predicting && slot_count() > netplay::kMaxRollbackPlayers) {
        return make_error(ErrorCode::kUsage, mode + " sessions take at most " +
                                                 std::to_string(netplay::kMaxRollbackPlayers) +
                                                 " players (--players/--slots " +
                                                 std::to_string(slot_count()) +
                                                 "); use --mode framelock for more");
    }
    if (kick_speed_hack && mode != "nowait")
        log_warn(
            "--kick-speed-hack acts in --mode nowait only: in {} mode frames wait for "
            "every input, and a fast clock gains nothing",
            mode);
    // The ranges are the engine's own (netplay/server/session_limits.h). --delay 0 means the
    // default in frame lock (adaptive) and no-wait (4 frames); in rollback, no delay.
    const netplay::ServerConfig session = to_config().server;
    if (mode == "hybrid" && fixed_delay > 0)
        log_warn("--delay does nothing in hybrid mode: its delay follows the network");
    if (fixed_delay > 0 || (session.mode == netplay::SessionMode::kRollback && mode != "hybrid")) {
        if (Status s = netplay::delay_limit(session.mode).check(fixed_delay); !s)
            return make_error(ErrorCode::kUsage, "--delay: " + s.error().message);
    }
    return netplay::validate(session);
}

ServerRunConfig ServerArgs::to_config() const {
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
    config.server.host_slot = host_slot;
    config.server.common_start = !no_common_start;
    config.server.chat = !no_chat;
    config.server.kick_off_pace = kick_speed_hack;
    config.server.hash_interval = static_cast<std::uint16_t>(hash_interval);
    // `auto` reaches here on a dedicated server only (a host decides it first, choose_mode):
    // the hybrid while its players vouch for their savestates, for at most 4 players.
    const bool vouched =
        mode == "auto" && fixed_delay <= 0 && slot_count() <= netplay::kMaxRollbackPlayers;
    if (mode == "auto") {
        config.mode_reason =
            vouched ? "auto: hybrid while every player vouches for its own savestates (this "
                      "server has no core to check)"
            : fixed_delay > 0 ? "auto: frame lock, since --delay fixes its delay"
                              : fmt::format(
                                    "auto: frame lock, since the hybrid predicts for at most {} "
                                    "players (--slots included)",
                                    netplay::kMaxRollbackPlayers);
    }
    if (mode == "rollback" || mode == "hybrid" || vouched) {
        config.server.mode = netplay::SessionMode::kRollback;
        config.server.delay.hybrid = mode != "rollback";
        config.server.hybrid_if_vouched = vouched;
        config.server.delay.fixed_delay = std::max(fixed_delay, 0);
        config.server.prediction_window =
            static_cast<std::uint8_t>(window_for(vouched ? "hybrid" : mode));
    } else if (mode == "nowait") {
        config.server.mode = netplay::SessionMode::kNoWait;
        config.server.delay.fixed_delay = fixed_delay > 0 ? fixed_delay : 4;
    } else if (fixed_delay > 0) {
        config.server.delay.adaptive = false;
        config.server.delay.fixed_delay = fixed_delay;
    }
    return config;
}

UpnpOptions ServerArgs::upnp_options() const {
    UpnpOptions options;
    options.igd_url = upnp_igd;
    return options;
}

}  // namespace framelock::frontend
