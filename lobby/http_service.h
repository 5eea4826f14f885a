// `framelock lobby serve`: the API and web page over HTTP (lobby/http_server.h: libmicrohttpd,
// event-driven, with per-address and whole-request limits), the rendezvous beside it on UDP,
// structured request logs and a graceful stop on SIGINT/SIGTERM.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "lobby/api.h"
#include "lobby/connection_guard.h"
#include "netplay/base/result.h"

namespace framelock::lobby {

struct LobbyServiceConfig {
    std::string bind = "127.0.0.1";
    std::uint16_t port = 8470;  // 0: the OS picks (printed)
    std::string db = "sqlite:lobby.db";
    ApiConfig api;
    bool log_requests = true;
    // Threads serving requests other than password work. A request holds one only while it
    // is served (never while it arrives), and every password job that may be queued or
    // running (api.password_threads + api.password_queue) gets a thread beyond these: the
    // password queue refuses (503) before these are all busy, and lists and heartbeats
    // always find one.
    int http_threads = 8;
    // Connections per address and in all, and the deadline on each whole request.
    ConnectionLimits connections;
    unsigned idle_timeout_s = 5;  // an idle keep-alive connection is closed after this
};

// Opens the store, migrates it, serves until a stop signal; `on_listening(port)` is called
// once the socket is bound. Returns the process exit code.
int run_lobby_service(const LobbyServiceConfig& config,
                      const std::function<void(std::uint16_t)>& on_listening = {});

// Milliseconds since the Unix epoch (the lobby's times).
std::int64_t wall_clock_ms();

}  // namespace framelock::lobby
