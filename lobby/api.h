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
//   POST   /api/rooms/ID_OR_CODE/join   {password, probes, relay}: the address to connect to
//                                       (429 after too many wrong passwords from one
//                                       address); may move the room to the relay that suits
//                                       host and joiner (lobby/relay_choice.h)
//   POST   /api/probes                  {probes}: the caller's round trips to the relays,
//                                       kept 10 min for its room lists' expected_delay
//   POST   /api/servers                 a relay server registers: 201 {id, token}
//   POST   /api/servers/ID/heartbeat    token; {load, capacity}
//   GET    /api/servers                 live servers
//   GET    /health, GET /metrics, GET / (the web page)
//
// Tokens come as "Authorization: Bearer TOKEN". Every error is a 4xx with {"error": "..."}
// saying what was wrong; a 5xx only when the store itself fails.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "lobby/join_lockout.h"
#include "lobby/metrics.h"
#include "lobby/password_workers.h"
#include "lobby/probe_table.h"
#include "lobby/rate_limiter.h"
#include "lobby/rendezvous.h"
#include "lobby/store.h"

namespace framelock::lobby {

struct ApiRequest {
    std::string method;  // "GET", "POST", ...
    std::string path;    // without the query
    std::map<std::string, std::string> query;
    std::string body;
    std::string client;  // the peer's IP address (rate limits)
    std::string bearer;  // the Authorization: Bearer token, if any
    std::int64_t now_ms = 0;
};

struct ApiResponse {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    int retry_after_s = 0;  // > 0: a Retry-After header (429, 503)
};

// Whether `password` matches the stored hash (by default Argon2id, secrets.h).
using PasswordCheck = std::function<bool(const std::string& hash, const std::string& password)>;

struct ApiConfig {
    std::int64_t room_ttl_ms = 30'000;    // a room not heartbeated this long is gone
    std::int64_t server_ttl_ms = 30'000;  // likewise a relay server
    std::size_t max_body_bytes = 8 * 1024;
    double rate_per_s = 20;  // requests per client IP
    double burst = 60;
    int max_list = 500;
    // Password hashing and checking run on this many threads; beyond `password_queue`
    // waiting jobs a join or create with a password is refused (503, Retry-After).
    int password_threads = 1;
    std::size_t password_queue = 32;
    // Joins of a room from one address stop after this many wrong passwords (429 with
    // Retry-After), for lockout.lockout_ms.
    LockoutLimits lockout;
    PasswordCheck check_password;  // empty: check_password() of secrets.h
    // Hole punching (lobby/rendezvous.h): rooms get a key for their host, joiners of a host
    // that serves its own room a ticket. Null: neither.
    Rendezvous* rendezvous = nullptr;
    // The probes POST /api/probes stores per client address.
    ProbeTableLimits probes;
    // Called (from the joiner's request thread, after the store has the move) when a join
    // moved a room to another relay: the room's id and its new "host:port". May be empty.
    // The host also learns it from its next heartbeat's answer (the room's server_address).
    std::function<void(const std::string& room_id, const std::string& new_address)> on_room_moved;
};

class LobbyApi {
  public:
    LobbyApi(LobbyStore& store, ApiConfig config);

    // Thread-safe: the HTTP layer calls it from its worker threads, and requests run at
    // once (the store takes connections from a pool; a password check waits on a worker
    // of its own without holding anything).
    ApiResponse handle(const ApiRequest& request);

    const ApiConfig& config() const { return m_config; }
    // Password hashes and checks queued or running now.
    std::size_t password_jobs() const { return m_passwords.in_flight(); }

  private:
    ApiResponse route(const ApiRequest& request, std::string& route_name);
    ApiResponse list_rooms(const ApiRequest& request);
    ApiResponse create_room(const ApiRequest& request);
    ApiResponse get_room(const std::string& key, const ApiRequest& request);
    ApiResponse heartbeat_room(const std::string& id, const ApiRequest& request);
    ApiResponse update_room(const std::string& id, const ApiRequest& request);
    // Keeps `room` alive for another TTL from the request's time and stores it: its JSON, or
    // 404 when it expired meanwhile (heartbeat_room and update_room end so).
    ApiResponse save_live_room(Room& room, const std::string& key, std::int64_t now_ms);
    ApiResponse delete_room(const std::string& id, const ApiRequest& request);
    ApiResponse join_room(const std::string& key, const ApiRequest& request);
    // How a joiner reaches the room: on a relay, or the host's own (with a ticket to punch
    // through to it when its socket registered).
    void add_reach(nlohmann::json& answer, const Room& room, const std::string& client,
                   std::int64_t now_ms);
    ApiResponse register_server(const ApiRequest& request);
    ApiResponse heartbeat_server(const std::string& id, const ApiRequest& request);
    ApiResponse list_servers(const ApiRequest& request);
    ApiResponse store_probes(const ApiRequest& request);
    // The caller's probes: the request's `probes` query (id:ms,id:ms), else those its
    // address stored; empty when neither.
    RelayProbes probes_of_caller(const ApiRequest& request) const;
    ApiResponse health(const ApiRequest& request);
    ApiResponse metrics_page(const ApiRequest& request);

    bool allowed(const ApiRequest& request);
    void expire_if_due(std::int64_t now_ms);
    std::string hash_on_worker(const std::string& password);

    LobbyStore& m_store;
    ApiConfig m_config;
    std::mutex m_limiter_mutex;
    RateLimiter m_limiter;
    mutable std::mutex m_metrics_mutex;
    Metrics m_metrics;
    std::atomic<std::int64_t> m_last_expiry_ms{0};
    JoinLockout m_lockout;
    ProbeTable m_probes;
    PasswordWorkers m_passwords;  // last: its threads stop first
};

// The web page (lobby/web_page.cpp): one self-contained HTML document.
const std::string& web_page();

}  // namespace framelock::lobby
