// The lobby's HTTP JSON API, as a function from request to response: no sockets here
// (lobby/http_service.h serves it), so tests call it directly and the HTTP layer
// stays thin.
//
//   GET    /api/rooms?game=&core=&mode=&has_slots=1&limit=&offset=   live rooms, newest first
//   POST   /api/rooms                   create: 201 {room, token}; a relay server is
//                                       assigned when no server_address is given: the
//                                       best for the host's `probes`, else the least loaded
//   GET    /api/rooms/ID_OR_CODE        one room
//   POST   /api/rooms/ID/heartbeat      token; optional {players, spectators}
//   PATCH  /api/rooms/ID                token; players, slots, spectators, names, region
//   DELETE /api/rooms/ID                token
//   POST   /api/rooms/ID_OR_CODE/join   {password, probes, relay, client_key}: the address to
//                                       connect to (429 unchecked past the room's budget of
//                                       wrong passwords, lobby/password_budget.h; the host's
//                                       token needs none); may move the room to a relay that
//                                       suits host and joiner (lobby/relay_choice.h)
//   POST   /api/probes                  {probes}: the caller's round trips to the relays,
//                                       kept 10 min for its room lists' expected_delay
//   POST   /api/servers                 a relay server registers with the operator's relay
//                                       key (Bearer): 201 {id, token}
//   POST   /api/servers/ID/heartbeat    token; {load, capacity}
//   GET    /api/servers                 live servers
//   GET    /health, GET /metrics, GET / (the web page)
//
// Tokens come as "Authorization: Bearer TOKEN". Every error is a 4xx with {"error": "..."}
// saying what was wrong; a 5xx only when the store itself fails.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "lobby/api_types.h"
#include "lobby/metrics.h"
#include "lobby/rate_limiter.h"
#include "lobby/relay_routes.h"
#include "lobby/room_routes.h"
#include "lobby/store.h"

namespace framelock::lobby {

// Routes each request to the part that serves it (lobby/room_routes.h, lobby/relay_routes.h)
// and serves the rest itself (health, metrics, the page); rate-limits clients, expires what
// lapsed, and counts every request by route and status.
class LobbyApi {
  public:
    LobbyApi(LobbyStore& store, ApiConfig config);

    // Thread-safe: the HTTP layer calls it from its worker threads, and requests run at
    // once (the store takes connections from a pool; a password check waits on a worker
    // of its own without holding anything).
    ApiResponse handle(const ApiRequest& request);

    const ApiConfig& config() const { return m_config; }
    // Password hashes and checks queued or running now.
    std::size_t password_jobs() const { return m_rooms.passwords().in_flight(); }

  private:
    ApiResponse route(const ApiRequest& request, std::string& route_name);
    ApiResponse health(const ApiRequest& request);
    ApiResponse metrics_page(const ApiRequest& request);

    bool allowed(const ApiRequest& request);
    void expire_if_due(std::int64_t now_ms);

    LobbyStore& m_store;
    const ApiConfig m_config;  // before the parts, which keep a reference to it
    std::mutex m_limiter_mutex;
    RateLimiter m_limiter;
    mutable std::mutex m_metrics_mutex;
    Metrics m_metrics;
    std::atomic<std::int64_t> m_last_expiry_ms{0};
    RelayRoutes m_relays;
    RoomRoutes m_rooms;  // after m_relays, whose probes it reads
};

}  // namespace framelock::lobby
