// `framelock lobby serve|list`: the lobby service, and the rooms it lists, in a terminal.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "frontend/lobby/http_service.h"

namespace framelock::lobby {

struct LobbyCommand {
    CLI::App* lobby = nullptr;
    CLI::App* serve = nullptr;
    CLI::App* list = nullptr;
    std::string listen = "127.0.0.1:8470";
    LobbyServiceConfig service;
    double room_ttl_s = 30;
    double lockout_s = 60;
    bool quiet = false;
    // list
    std::string url = "http://127.0.0.1:8470";
    std::string game, core, mode;
    bool has_slots = false;
    bool json = false;
};

void add_lobby_command(CLI::App& app, LobbyCommand& command);
// Runs it if it was parsed; returns the exit code, or -1 when it was not.
int run_lobby_command(LobbyCommand& command);

}  // namespace framelock::lobby
