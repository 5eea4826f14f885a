#include "lobby/http_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <thread>

#include "common/log.h"
#include "common/stop_signal.h"
#include "lobby/http_server.h"
#include "lobby/rendezvous_socket.h"

namespace framelock::lobby {

std::int64_t wall_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

int run_lobby_service(const LobbyServiceConfig& config,
                      const std::function<void(std::uint16_t)>& on_listening) {
    auto store = open_store(config.db);
    if (!store) {
        log_error("{}", store.error().message);
        return static_cast<int>(store.error().code);
    }
    if (Status migrated = store.value()->migrate(); !migrated) {
        log_error("{}", migrated.error().message);
        return static_cast<int>(migrated.error().code);
    }
    Rendezvous rendezvous;
    ApiConfig api_config = config.api;
    api_config.rendezvous = &rendezvous;
    // A room moved to a relay: its host hears of it at once, on the rendezvous.
    api_config.on_room_moved = [&rendezvous](const std::string& room_id,
                                             const std::string& address) {
        rendezvous.move_room(room_id, address);
    };
    // The HTTP layer's gauges on /metrics; the server exists before any request asks.
    std::atomic<HttpServer*> http{nullptr};
    api_config.http_gauges = [&http] {
        HttpServer* server = http.load();
        return server != nullptr ? server->gauges() : std::map<std::string, double>{};
    };
    LobbyApi api(*store.value(), api_config);

    HttpServerConfig http_config;
    http_config.bind = config.bind;
    http_config.port = config.port;
    http_config.threads = std::max(config.http_threads, 1) +
                          std::max(config.api.password_threads, 1) +
                          static_cast<int>(config.api.password_queue);
    http_config.limits = config.connections;
    http_config.idle_timeout_s = config.idle_timeout_s;
    http_config.log_requests = config.log_requests;
    auto server = HttpServer::start(http_config, [&api](ApiRequest& request) {
        request.now_ms = wall_clock_ms();
        return api.handle(request);
    });
    if (!server) {
        log_error("{}", server.error().message);
        return static_cast<int>(server.error().code);
    }
    http = server.value().get();
    const std::uint16_t port = server.value()->port();
    // Hole punching on UDP, the same address and port number (lobby/rendezvous_socket.h).
    // Without it the lobby still serves; hosts behind routers are then reached by a relay.
    auto punching = RendezvousSocket::open(config.bind, port, rendezvous);
    if (!punching) {
        log_warn("{}: no hole punching (players who cannot reach a host directly go to a relay)",
                 punching.error().message);
    }
    install_stop_signal_handlers();
    const ConnectionLimits& limits = config.connections;
    log_info(
        "lobby listening on http://{}:{}/{} (store {}, schema v{}; at most {} connections from "
        "one address, whole requests within {} s)",
        config.bind, port,
        punching ? fmt::format(" and UDP {} for hole punching", port) : std::string(),
        config.db.rfind("postgres", 0) == 0 ? "postgresql" : config.db,
        store.value()->schema_version(), limits.per_address, limits.request_deadline_ms / 1000.0);
    if (on_listening) on_listening(port);
    while (!stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    // Graceful: no new connections, requests in flight answered, then the connections close.
    server.value()->stop(std::chrono::seconds(5));
    log_info("lobby stopped");
    return 0;
}

}  // namespace framelock::lobby
