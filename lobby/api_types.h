// What the parts of the lobby's HTTP JSON API (lobby/api.h) share: a request, its response,
// and the API's configuration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "lobby/password_budget.h"
#include "lobby/probe_table.h"
#include "lobby/rendezvous.h"

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
    // How many wrong passwords a room's joins may try per window: from all addresses, from
    // one address, from one client (lobby/password_budget.h). Past them, 429 with Retry-After.
    PasswordBudgetLimits guesses;
    // hash_token() (secrets.h) of the operator's relay key: a relay registers
    // (POST /api/servers) only with it. Empty: no relay can register.
    std::string relay_key_hash;
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
    // More gauges for GET /metrics (the HTTP layer's connections), called per scrape from a
    // request's thread. May be empty.
    std::function<std::map<std::string, double>()> http_gauges;
};

}  // namespace framelock::lobby
