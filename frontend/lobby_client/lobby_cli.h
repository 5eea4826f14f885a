// `framelock lobby serve|list`: the lobby service (lobby/serve_command.h, which
// `framelock-lobby` runs too), and the rooms a lobby lists, in a terminal.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "lobby/serve_command.h"

namespace framelock::frontend::lobby_client {

struct LobbyCommand {
    CLI::App* lobby = nullptr;
    CLI::App* serve = nullptr;
    CLI::App* list = nullptr;
    lobby::ServeOptions serve_options;
    // list
    std::string url = "http://127.0.0.1:8470";
    std::string game, core, mode;
    bool has_slots = false;
    bool json = false;
    bool no_probe = false;  // skip probing the relays (no delay column)
};

void add_lobby_command(CLI::App& app, LobbyCommand& command);
// Runs it if it was parsed; returns the exit code, or -1 when it was not.
int run_lobby_command(LobbyCommand& command);

}  // namespace framelock::frontend::lobby_client
