// The session side's options: `framelock server` (dedicated: several sessions, its own
// bind address and logging) and the server half of `framelock host`; checked against the
// engine's limits and turned into a ServerRunConfig (frontend/session/server_runner.h).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "frontend/reach/upnp_mapping.h"
#include "frontend/session/server_runner.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

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
    // framelock, nowait, rollback, hybrid, or auto (the default): a host checks its own
    // core's savestates (mode_choice.h), a dedicated server has its players vouch for theirs
    // (netplay/server/hybrid_guard.h).
    std::string mode = "auto";
    unsigned prediction_window = 0;  // 0: the mode's own (window_for)
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
    bool no_chat = false;
    bool kick_speed_hack = false;
    // The lobby (frontend/lobby_client/lobby_client.h): `server` registers its sessions there,
    // `host` opens a room there.
    std::string lobby_url;
    std::string public_host;  // the host name players reach this machine by
    std::string region;
    std::string relay_key_file;  // `server --lobby`: else FRAMELOCK_RELAY_KEY
    // server: open ended (and idle) sessions again; --lobby implies it (a relay).
    bool reuse_sessions = false;
    double idle_reset = 600;
    bool is_public = false;  // host: consent to be listed
    bool run_server = true;  // host: false when the lobby assigns a relay server
    // host: the slot its own player takes in the server it runs (a tie of hash reports
    // follows that player's state: netplay::ServerConfig::host_slot); 0: `server`.
    int host_slot = 0;
    std::string game;  // host: the room's game name
    // host: ask the router for a UDP mapping of the server's port (frontend/reach/), or
    // not (--no-upnp); --upnp-igd skips discovery (tests: the gateway's description URL).
    bool upnp = true;
    std::string upnp_igd;

    // `dedicated`: the standalone server's flags (bind address, several sessions, its own
    // logging flags); `host` shares the rest with the join flags.
    void add_to(CLI::App& app, bool dedicated);

    int slot_count() const { return slots > 0 ? slots : players; }
    // The prediction window `mode` plays with: --prediction-window, else the mode's default
    // (rollback 8 frames, the hybrid netplay::kHybridPredictionWindow).
    unsigned window_for(const std::string& mode) const;

    // Rollback sessions take at most four players (late ones included); every value within
    // the engine's range (netplay/server/session_limits.h). Logs a warning for a flag that
    // does nothing in the chosen mode. Called once, before the session starts.
    Status validate() const;

    // The runner's config these flags ask for (and a warning for a flag that cannot act in
    // the chosen mode).
    ServerRunConfig to_config() const;

    // What try_upnp (frontend/reach/try_upnp.h) is asked with; only when `upnp`.
    UpnpOptions upnp_options() const;
};

}  // namespace framelock::frontend
