#include "lobby/api.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <initializer_list>
#include <map>
#include <utility>
#include <vector>

#include "lobby/api_reply.h"
#include "lobby/request_validation.h"
#include "lobby/secrets.h"
#include "lobby/web_page.h"

namespace framelock::lobby {

using json = nlohmann::json;

namespace {

// `config` with its defaults filled in: the password check of secrets.h unless one is given.
ApiConfig with_defaults(ApiConfig config) {
    if (!config.check_password) config.check_password = check_password;
    return config;
}

}  // namespace

LobbyApi::LobbyApi(LobbyStore& store, ApiConfig config)
    : m_store(store),
      m_config(with_defaults(std::move(config))),
      m_limiter(m_config.rate_per_s, m_config.burst),
      m_relays(store, m_config),
      m_rooms(store, m_config, m_relays) {
    secrets_ready();
}

bool LobbyApi::allowed(const ApiRequest& request) {
    std::lock_guard lock(m_limiter_mutex);
    return m_limiter.allow(request.client, request.now_ms);
}

void LobbyApi::expire_if_due(std::int64_t now_ms) {
    // One request a second does it; the others go on without waiting for it.
    std::int64_t last = m_last_expiry_ms.load();
    if (now_ms - last > 1000 && m_last_expiry_ms.compare_exchange_strong(last, now_ms))
        need(m_store.expire(now_ms));
}

ApiResponse LobbyApi::handle(const ApiRequest& request) {
    const auto start = std::chrono::steady_clock::now();
    std::string route_name = "other";
    ApiResponse response;
    if (!allowed(request)) {
        route_name = "rate_limited";
        response = error(429, "too many requests from " + request.client + "; slow down", 1);
    } else if (request.body.size() > m_config.max_body_bytes) {
        route_name = "too_large";
        response = error(413, fmt::format("request body of {} bytes: the limit is {}",
                                          request.body.size(), m_config.max_body_bytes));
    } else {
        try {
            expire_if_due(request.now_ms);
            response = route(request, route_name);
        } catch (const Refusal& refusal) {
            response = error(refusal.status, refusal.message, refusal.retry_after_s);
        } catch (const std::exception& e) {
            response = error(500, std::string("internal error: ") + e.what());
        }
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::lock_guard lock(m_metrics_mutex);
    m_metrics.observe(route_name, response.status, ms);
    return response;
}

ApiResponse LobbyApi::route(const ApiRequest& r, std::string& name) {
    // Paths: /api/rooms[/KEY[/ACTION]], /api/servers[/ID/heartbeat], /health, /metrics, /.
    std::vector<std::string> parts;
    for (std::size_t i = 1; i <= r.path.size();) {
        const auto slash = r.path.find('/', i);
        const auto end = slash == std::string::npos ? r.path.size() : slash;
        parts.push_back(r.path.substr(i, end - i));
        i = end + 1;
    }
    const auto is = [&](std::initializer_list<const char*> want) {
        if (parts.size() != want.size()) return false;
        std::size_t i = 0;
        for (const char* w : want) {
            if (*w != '*' && parts[i] != w) return false;
            ++i;
        }
        return true;
    };
    const std::string& m = r.method;
    if (r.path == "/" && m == "GET")
        return name = "page", ApiResponse{200, "text/html; charset=utf-8", web_page()};
    if (is({"health"}) && m == "GET") return name = "health", health(r);
    if (is({"metrics"}) && m == "GET") return name = "metrics", metrics_page(r);
    if (is({"api", "rooms"})) {
        if (m == "GET") return name = "list_rooms", m_rooms.list_rooms(r);
        if (m == "POST") return name = "create_room", m_rooms.create_room(r);
    }
    if (is({"api", "rooms", "*"})) {
        if (m == "GET") return name = "get_room", m_rooms.get_room(record_key(parts[2]), r);
        if (m == "PATCH") return name = "update_room", m_rooms.update_room(record_key(parts[2]), r);
        if (m == "DELETE")
            return name = "delete_room", m_rooms.delete_room(record_key(parts[2]), r);
    }
    if (is({"api", "rooms", "*", "heartbeat"}) && m == "POST")
        return name = "heartbeat_room", m_rooms.heartbeat_room(record_key(parts[2]), r);
    if (is({"api", "rooms", "*", "join"}) && m == "POST")
        return name = "join_room", m_rooms.join_room(record_key(parts[2]), r);
    if (is({"api", "servers"})) {
        if (m == "GET") return name = "list_servers", m_relays.list_servers(r);
        if (m == "POST") return name = "register_server", m_relays.register_server(r);
    }
    if (is({"api", "probes"}) && m == "POST")
        return name = "store_probes", m_relays.store_probes(r);
    if (is({"api", "servers", "*", "heartbeat"}) && m == "POST")
        return name = "heartbeat_server", m_relays.heartbeat_server(record_key(parts[2]), r);
    name = "not_found";
    return error(404, "no such endpoint: " + m + " " + r.path.substr(0, 100));
}

ApiResponse LobbyApi::health(const ApiRequest& r) {
    const auto rooms = need(m_store.count_rooms(r.now_ms));
    return reply(200,
                 json{{"status", "ok"}, {"rooms", rooms}, {"schema", m_store.schema_version()}});
}

ApiResponse LobbyApi::metrics_page(const ApiRequest& r) {
    const double rooms = static_cast<double>(need(m_store.count_rooms(r.now_ms)));
    const double servers = static_cast<double>(need(m_store.list_servers(r.now_ms)).size());
    double clients = 0;
    {
        std::lock_guard lock(m_limiter_mutex);
        clients = static_cast<double>(m_limiter.clients());
    }
    std::map<std::string, double> gauges = {
        {"framelock_lobby_rooms", rooms},
        {"framelock_lobby_servers", servers},
        {"framelock_lobby_rate_limited_clients", clients},
        {"framelock_lobby_password_jobs", static_cast<double>(m_rooms.passwords().in_flight())},
        {"framelock_lobby_password_jobs_refused",
         static_cast<double>(m_rooms.passwords().refused())},
        {"framelock_lobby_password_budget_entries", static_cast<double>(m_rooms.guesses().size())},
        {"framelock_lobby_password_budget_refused",
         static_cast<double>(m_rooms.guesses().refused())},
        {"framelock_lobby_passwords_wrong", static_cast<double>(m_rooms.guesses().wrong())},
        {"framelock_lobby_probe_entries", static_cast<double>(m_relays.probe_entries())}};
    if (m_config.http_gauges) gauges.merge(m_config.http_gauges());
    std::lock_guard lock(m_metrics_mutex);
    return {200, "text/plain; version=0.0.4", m_metrics.render(gauges)};
}

}  // namespace framelock::lobby
