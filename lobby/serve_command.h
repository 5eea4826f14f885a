// The lobby service's command line, one definition for its two commands: `framelock lobby
// serve` (the player's binary) and `framelock-lobby` (lobby/main.cpp, for servers without the
// player).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "lobby/http_service.h"

namespace framelock::lobby {

struct ServeOptions {
    std::string listen = "127.0.0.1:8470";
    LobbyServiceConfig service;
    double room_ttl_s = 30;
    double guess_window_s = 60;
    double request_deadline_s = 10;
    std::string relay_key_file;  // else FRAMELOCK_RELAY_KEY (common/relay_key.h)
    bool quiet = false;
};

// Adds --listen, --db, --room-ttl, ... to `command` (a subcommand, or a whole program).
void add_serve_options(CLI::App& command, ServeOptions& options);

// Serves as the parsed options say until SIGINT/SIGTERM; the process exit code. Prints
// "listening PORT" on stdout once bound (scripts and tests read the port there).
int run_serve(ServeOptions& options);

}  // namespace framelock::lobby
