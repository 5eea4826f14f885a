// `framelock lobby serve`: the API and web page over HTTP (cpp-httplib), with structured
// request logs and a graceful stop on SIGINT/SIGTERM.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "lobby/api.h"
#include "netplay/base/result.h"

namespace framelock::lobby {

struct LobbyServiceConfig {
    std::string bind = "127.0.0.1";
    std::uint16_t port = 8470;  // 0: the OS picks (printed)
    std::string db = "sqlite:lobby.db";
    ApiConfig api;
    bool log_requests = true;
    // Threads serving connections. A keep-alive connection holds one while it is open,
    // and a join holds one while its password is checked, so there are plenty.
    int http_threads = 32;
};

// Opens the store, migrates it, serves until a stop signal; `on_listening(port)` is called
// once the socket is bound. Returns the process exit code.
int run_lobby_service(const LobbyServiceConfig& config,
                      const std::function<void(std::uint16_t)>& on_listening = {});

// Milliseconds since the Unix epoch (the lobby's times).
std::int64_t wall_clock_ms();

}  // namespace framelock::lobby
