#include "frontend/lobby_client/lobby_client.h"

#include <fmt/format.h>
#include <httplib.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <utility>

#include "common/log.h"
#include "frontend/reach/relay_probe.h"
#include "frontend/reach/url_authority.h"

namespace framelock::frontend::lobby_client {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Short timeouts: the background threads must notice a stop request quickly, and a lobby
// that does not answer within seconds is as good as down for a heartbeat.
std::unique_ptr<httplib::Client> client_for(const std::string& url, int timeout_s) {
    return lobby_http_client(url, timeout_s);
}

httplib::Headers bearer(const std::string& token) {
    return {{"Authorization", "Bearer " + token}};
}

// The lobby's {"error": "..."} if there is one, else the start of the body.
std::string error_of(const httplib::Result& res) {
    const auto body = json::parse(res->body, nullptr, false);
    if (body.is_object() && body.contains("error") && body["error"].is_string())
        return body["error"].get<std::string>();
    return fmt::format("HTTP {} {}", res->status, res->body.substr(0, 200));
}

Error unreachable(const std::string& url, const httplib::Result& res) {
    return make_error(ErrorCode::kIo, fmt::format("cannot reach the lobby at {}: {}", url,
                                                  httplib::to_string(res.error())));
}

// Warnings about an unreachable or refusing lobby: the first at once, then one a minute at
// most, so a lobby that is down for an hour does not flood a server's log.
class WarnLimiter {
  public:
    void warn(const std::string& what) {
        const auto now = Clock::now();
        ++m_failures;
        if (m_failures == 1 || now - m_last >= std::chrono::seconds(60)) {
            framelock::log_warn("lobby: {}{}", what,
                                m_failures > 1 ? fmt::format(" ({} failures)", m_failures) : "");
            m_last = now;
        }
    }
    void ok() {
        if (m_failures > 0) framelock::log_info("lobby: reachable again");
        m_failures = 0;
    }

  private:
    int m_failures = 0;
    Clock::time_point m_last{};
};

// Asks a keeper's or announcer's thread to stop (m_stop under its mutex, then a wake-up) and
// waits for it.
void stop_thread(std::mutex& mutex, bool& stop, std::condition_variable& wake,
                 std::thread& thread) {
    {
        std::lock_guard lock(mutex);
        stop = true;
    }
    wake.notify_all();
    if (thread.joinable()) thread.join();
}

// A random key made once per process: the lobby counts this player's wrong passwords apart
// from others at its address. Not a secret (anyone may send any key).
const std::string& process_client_key() {
    static const std::string key = [] {
        std::random_device random;
        std::string hex;
        for (int i = 0; i < 4; ++i) hex += fmt::format("{:08x}", random());
        return hex;
    }();
    return key;
}

}  // namespace

std::unique_ptr<httplib::Client> lobby_http_client(const std::string& url, int timeout_s) {
    auto client = std::make_unique<httplib::Client>(url);
    client->set_connection_timeout(timeout_s, 0);
    client->set_read_timeout(timeout_s, 0);
    client->set_write_timeout(timeout_s, 0);
    return client;
}

Result<CreatedRoom> create_room(const std::string& url, const json& body) {
    auto client = client_for(url, 5);
    auto res = client->Post("/api/rooms", body.dump(), "application/json");
    if (!res) return unreachable(url, res);
    if (res->status != 201) {
        return make_error(ErrorCode::kProtocol,
                          fmt::format("the lobby at {} refused the room: {}", url, error_of(res)));
    }
    const auto reply = json::parse(res->body, nullptr, false);
    if (!reply.is_object() || !reply.contains("room") || !reply.contains("token"))
        return make_error(ErrorCode::kProtocol, "the lobby at " + url + " answered no room");
    CreatedRoom room;
    room.id = reply["room"].value("id", "");
    room.code = reply["room"].value("code", "");
    room.server_address = reply["room"].value("server_address", "");
    room.server_key = reply["room"].value("server_key", "");
    room.token = reply.value("token", "");
    room.heartbeat_ms = std::max<std::int64_t>(reply.value("heartbeat_ms", 10'000), 200);
    room.rendezvous_key = reply.value("rendezvous_key", "");
    return room;
}

Result<RoomPlace> room_place(const std::string& url, const std::string& id) {
    auto client = client_for(url, 5);
    auto res = client->Get("/api/rooms/" + id);
    if (!res) return unreachable(url, res);
    if (res->status != 200) {
        return make_error(ErrorCode::kProtocol,
                          fmt::format("the lobby at {} could not say where the room plays: {}", url,
                                      error_of(res)));
    }
    const auto room = json::parse(res->body, nullptr, false);
    if (!room.is_object() || !room.contains("server_address") ||
        !room["server_address"].is_string())
        return make_error(ErrorCode::kProtocol, "the lobby at " + url + " answered no address");
    return RoomPlace{room["server_address"].get<std::string>(), room.value("server_key", "")};
}

Result<JoinAnswer> join_room(const std::string& url, const std::string& code,
                             const JoinRequest& request) {
    const std::string& password = request.password;
    const bool spectate = request.spectate;
    auto client = client_for(url, 5);
    json body = password.empty() ? json::object() : json{{"password", password}};
    // This process's own share of the room's wrong-password budget, beside a guesser at the
    // same address (lobby/password_budget.h).
    if (!password.empty()) body["client_key"] = process_client_key();
    if (request.probes.is_object() && !request.probes.empty()) body["probes"] = request.probes;
    if (request.relay) body["relay"] = true;
    auto res = client->Post("/api/rooms/" + code + "/join", body.dump(), "application/json");
    if (!res) return unreachable(url, res);
    if (res->status == 404 || res->status == 400) {
        return make_error(
            ErrorCode::kUsage,
            fmt::format("the lobby at {} has no room {} (unknown or expired code)", url, code));
    }
    if (res->status == 403) {
        // The lobby's message names the room: "wrong password for room CODE".
        return make_error(ErrorCode::kUsage, error_of(res) + " (--password)");
    }
    if (res->status != 200) {
        return make_error(
            ErrorCode::kProtocol,
            fmt::format("the lobby at {} refused to join room {}: {}", url, code, error_of(res)));
    }
    const auto reply = json::parse(res->body, nullptr, false);
    if (!reply.is_object() || !reply.contains("server_address"))
        return make_error(ErrorCode::kProtocol, "the lobby at " + url + " answered no address");
    if (reply.value("full", false) && !spectate) {
        const auto& room = reply["room"];
        return make_error(ErrorCode::kProtocol,
                          fmt::format("room {} is full ({}/{} players); --spectate to watch", code,
                                      room.value("players", 0), room.value("slots", 0)));
    }
    JoinAnswer answer;
    answer.server_address = reply["server_address"].get<std::string>();
    answer.server_key = reply.value("server_key", "");
    if (reply.contains("expected_delay") && reply["expected_delay"].is_number_integer())
        answer.expected_delay = reply["expected_delay"].get<int>();
    if (reply.contains("expected_rtt_ms") && reply["expected_rtt_ms"].is_number())
        answer.expected_rtt_ms = reply["expected_rtt_ms"].get<double>();
    answer.on_relay = reply.value("on_relay", false);
    answer.punch_ticket = reply.value("punch_ticket", "");
    answer.host_endpoint = reply.value("host_endpoint", "");
    return answer;
}

Result<netplay::Endpoint> rendezvous_endpoint(const std::string& url) {
    // "http://HOST:PORT[/...]": the lobby's UDP rendezvous has the same host and port.
    const std::string rest = url_authority(url);
    const auto colon = rest.rfind(':');
    const std::string host = colon == std::string::npos ? rest : rest.substr(0, colon);
    const std::string port = colon == std::string::npos ? "80" : rest.substr(colon + 1);
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_DGRAM;
    addrinfo* found = nullptr;
    if (host.empty() || getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || !found) {
        return make_error(ErrorCode::kUsage,
                          "cannot find the lobby's rendezvous for " + url + " (host " + host + ")");
    }
    const auto* in = reinterpret_cast<const sockaddr_in*>(found->ai_addr);
    const netplay::Endpoint endpoint{ntohl(in->sin_addr.s_addr), ntohs(in->sin_port)};
    freeaddrinfo(found);
    return endpoint;
}

json probe_relays_json(const std::string& url) {
    return probe_relays_json(*client_for(url, 3), url);
}

json probe_relays_json(httplib::Client& client, const std::string& url) {
    auto res = client.Get("/api/servers");
    if (!res || res->status != 200) {
        framelock::log_warn("lobby: cannot list the relays at {} to probe them: {}", url,
                            res ? error_of(res) : httplib::to_string(res.error()));
        return json::object();
    }
    const auto body = json::parse(res->body, nullptr, false);
    if (!body.is_object() || !body.contains("servers") || !body["servers"].is_array())
        return json::object();
    // Free relays first (only those take a new room), then the busy ones (a room already on
    // one stays there): at most the 64 the lobby accepts.
    std::vector<RelayTarget> free, busy;
    for (const auto& s : body["servers"]) {
        if (!s.is_object()) continue;
        RelayTarget target{s.value("id", ""), s.value("address", "")};
        if (target.id.empty()) continue;
        (s.value("load", 0) < s.value("capacity", 0) ? free : busy).push_back(std::move(target));
    }
    free.insert(free.end(), busy.begin(), busy.end());
    if (free.size() > 64) free.resize(64);
    json probes = json::object();
    if (free.empty()) return probes;
    auto results = probe_relays(free);
    if (!results) {
        framelock::log_warn("lobby: cannot probe the relays: {}", results.error().message);
        return probes;
    }
    for (const auto& r : results.value()) {
        // Milliseconds with microseconds' precision, as the API takes them.
        if (r.rtt_us) probes[r.id] = std::round(static_cast<double>(*r.rtt_us)) / 1000.0;
    }
    if (probes.empty())
        framelock::log_warn("lobby: none of the {} relays answered a probe", free.size());
    return probes;
}

json with_probes(json body, const json& probes, std::optional<double> fps) {
    if (probes.is_object() && !probes.empty()) body["probes"] = probes;
    if (fps && *fps >= 1 && *fps <= 1000) body["fps"] = *fps;
    return body;
}

Status post_probes(const std::string& url, const json& probes) {
    return post_probes(*client_for(url, 5), url, probes);
}

Status post_probes(httplib::Client& client, const std::string& url, const json& probes) {
    auto res = client.Post("/api/probes", json{{"probes", probes}}.dump(), "application/json");
    if (!res) return unreachable(url, res);
    if (res->status != 200)
        return make_error(
            ErrorCode::kProtocol,
            fmt::format("the lobby at {} refused the probes: {}", url, error_of(res)));
    return {};
}

// ---------------------------------------------------------------------------------------

RoomKeeper::RoomKeeper(std::string url, CreatedRoom room, json body)
    : m_url(std::move(url)), m_room(std::move(room)), m_body(std::move(body)) {
    // Again on the server the players are on, not on whichever relay is free now.
    m_body["server_address"] = m_room.server_address;
    m_body["server_key"] = m_room.server_key;
    m_key = m_room.rendezvous_key;
    m_thread = std::thread([this] { run(); });
}

RoomKeeper::~RoomKeeper() {
    stop_thread(m_mutex, m_stop, m_wake, m_thread);
}

void RoomKeeper::set_players(int players) {
    if (m_players.exchange(players) != players) m_wake.notify_all();
}

void RoomKeeper::set_address(const std::string& address) {
    {
        std::lock_guard lock(m_mutex);
        m_new_address = address;
    }
    m_wake.notify_one();
}

void RoomKeeper::take_heartbeat_answer(const std::string& body) {
    const auto room = json::parse(body, nullptr, false);
    if (!room.is_object()) return;
    // A lobby that restarted registers the room for hole punching again with a new key.
    if (const std::string key = room.value("rendezvous_key", ""); !key.empty()) {
        std::lock_guard lock(m_key_mutex);
        m_key = key;
    }
    // Moved to a relay (the rendezvous says so at once; this is for when its word was lost).
    const std::string address = room.value("server_address", "");
    if (!address.empty() && address != m_room.server_address) {
        framelock::log_info("lobby: room {} now plays on {}", m_room.code, address);
        m_room.server_address = address;
        m_room.server_key = room.value("server_key", "");
        m_body["server_address"] = address;
        m_body["server_key"] = m_room.server_key;
        std::lock_guard lock(m_key_mutex);
        m_moved_to = address;
    }
}

std::string RoomKeeper::moved_to() {
    std::lock_guard lock(m_key_mutex);
    return m_moved_to;
}

std::string RoomKeeper::rendezvous_key() {
    std::lock_guard lock(m_key_mutex);
    return m_key;
}

void RoomKeeper::close() {
    stop_thread(m_mutex, m_stop, m_wake, m_thread);
    auto client = client_for(m_url, 2);
    auto res = client->Delete("/api/rooms/" + m_room.id, bearer(m_room.token));
    if (!res)
        framelock::log_warn("lobby: could not delete room {} ({}); it expires by itself",
                            m_room.code, httplib::to_string(res.error()));
    else if (res->status != 204 && res->status != 404)
        framelock::log_warn("lobby: deleting room {}: {}", m_room.code, error_of(res));
    else
        framelock::log_info("lobby: room {} deleted", m_room.code);
}

void RoomKeeper::run() {
    auto client = client_for(m_url, 2);
    WarnLimiter warnings;
    int sent = -1;
    auto next = Clock::now() + std::chrono::milliseconds(m_room.heartbeat_ms);
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait_until(lock, next, [&] {
            return m_stop || m_players.load() != sent || !m_new_address.empty();
        });
        if (m_stop) return;
        const int players = m_players.load();
        const std::string address = std::exchange(m_new_address, std::string());
        lock.unlock();
        if (!address.empty()) {
            auto res = client->Patch("/api/rooms/" + m_room.id, bearer(m_room.token),
                                     json{{"server_address", address}}.dump(), "application/json");
            if (res && res->status == 200) {
                m_body["server_address"] = address;
                m_room.server_address = address;
                framelock::log_info("lobby: room {} now announces {}", m_room.code, address);
            } else {
                warnings.warn(fmt::format("room {}: could not announce {}: {}", m_room.code,
                                          address,
                                          res ? error_of(res) : httplib::to_string(res.error())));
            }
        }
        auto res = client->Post("/api/rooms/" + m_room.id + "/heartbeat", bearer(m_room.token),
                                json{{"players", players}}.dump(), "application/json");
        if (!res) {
            warnings.warn(fmt::format("cannot reach {} to heartbeat room {}: {}", m_url,
                                      m_room.code, httplib::to_string(res.error())));
        } else if (res->status == 404) {
            m_body["players"] = players;
            auto again = create_room(m_url, m_body);
            if (!again) {
                warnings.warn(fmt::format("room {} expired and could not be listed again: {}",
                                          m_room.code, again.error().message));
            } else {
                framelock::log_warn("lobby: room {} had expired there; listed again as {}",
                                    m_room.code, again.value().code);
                m_room = again.value();
                {
                    std::lock_guard key_lock(m_key_mutex);
                    m_key = m_room.rendezvous_key;
                }
                fmt::print("room code {}\n", m_room.code);
                std::fflush(stdout);
                warnings.ok();
            }
        } else if (res->status != 200) {
            warnings.warn(fmt::format("heartbeat of room {}: {}", m_room.code, error_of(res)));
        } else {
            warnings.ok();
            take_heartbeat_answer(res->body);
        }
        // A failed beat still counts as sent: the next try comes at the next beat, not in a
        // tight loop against a lobby that is down.
        sent = players;
        next = Clock::now() + std::chrono::milliseconds(m_room.heartbeat_ms);
        lock.lock();
    }
}

// ---------------------------------------------------------------------------------------

ServerAnnouncer::ServerAnnouncer(std::string url, std::vector<std::string> addresses,
                                 std::string region, std::string server_key, std::string relay_key)
    : m_url(std::move(url)),
      m_region(std::move(region)),
      m_server_key(std::move(server_key)),
      m_relay_key(std::move(relay_key)),
      m_loads(new std::atomic<int>[addresses.size()]) {
    for (std::size_t i = 0; i < addresses.size(); ++i) {
        m_entries.push_back({addresses[i], "", "", -1});
        m_loads[i] = 0;
    }
    m_thread = std::thread([this] { run(); });
}

ServerAnnouncer::~ServerAnnouncer() {
    stop_thread(m_mutex, m_stop, m_wake, m_thread);
}

void ServerAnnouncer::close() {
    stop_thread(m_mutex, m_stop, m_wake, m_thread);
    auto client = client_for(m_url, 1);
    for (const Entry& e : m_entries) {
        if (e.id.empty()) continue;
        auto res = client->Post("/api/servers/" + e.id + "/heartbeat", bearer(e.token),
                                json{{"load", 1}}.dump(), "application/json");
        if (!res) break;  // down: the entries expire there by themselves
    }
}

void ServerAnnouncer::set_load(std::size_t index, int load) {
    if (index >= m_entries.size() || m_loads[index].exchange(load) == load) return;
    {
        std::lock_guard lock(m_mutex);
        m_changed = true;
    }
    m_wake.notify_all();
}

void ServerAnnouncer::run() {
    auto client = client_for(m_url, 2);
    WarnLimiter warnings;
    // Until the lobby says how often it wants a beat; 10 s is a third of its default TTL.
    std::int64_t heartbeat_ms = 10'000;
    auto next = Clock::now();  // register at once
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait_until(lock, next, [&] { return m_stop || m_changed; });
        if (m_stop) return;
        const bool due = Clock::now() >= next;
        m_changed = false;
        lock.unlock();
        bool failed = false;
        for (std::size_t i = 0; i < m_entries.size() && !failed; ++i) {
            Entry& e = m_entries[i];
            const int load = m_loads[i].load();
            // Between beats only the entries whose load changed are sent.
            if (!due && !e.id.empty() && load == e.sent_load) continue;
            if (!e.id.empty()) {
                auto res = client->Post("/api/servers/" + e.id + "/heartbeat", bearer(e.token),
                                        json{{"load", load}}.dump(), "application/json");
                if (!res) {
                    warnings.warn(
                        fmt::format("cannot reach {}: {}", m_url, httplib::to_string(res.error())));
                    failed = true;  // the others would time out too
                    continue;
                }
                if (res->status == 200) {
                    e.sent_load = load;
                    warnings.ok();
                    continue;
                }
                if (res->status != 404) {
                    warnings.warn(fmt::format("heartbeat of {}: {}", e.address, error_of(res)));
                    continue;
                }
                // 404: the lobby restarted or forgot the entry (it expired): register again.
                framelock::log_info("lobby: {} expired there; registering again", e.address);
                e.id.clear();
            }
            const json body{{"address", e.address},
                            {"region", m_region},
                            {"server_key", m_server_key},
                            {"capacity", 1},
                            {"load", load}};
            auto res =
                client->Post("/api/servers", bearer(m_relay_key), body.dump(), "application/json");
            if (!res) {
                warnings.warn(
                    fmt::format("cannot reach {}: {}", m_url, httplib::to_string(res.error())));
                failed = true;
                continue;
            }
            if (res->status != 201) {
                warnings.warn(fmt::format("registering {}: {}", e.address, error_of(res)));
                continue;
            }
            const auto reply = json::parse(res->body, nullptr, false);
            if (!reply.is_object() || !reply.contains("server")) continue;
            e.id = reply["server"].value("id", "");
            e.token = reply.value("token", "");
            e.sent_load = load;
            heartbeat_ms = std::max<std::int64_t>(reply.value("heartbeat_ms", heartbeat_ms), 200);
            warnings.ok();
            framelock::log_info("lobby: {} registered at {} as relay server {}", e.address, m_url,
                                e.id);
        }
        if (due || failed) next = Clock::now() + std::chrono::milliseconds(heartbeat_ms);
        lock.lock();
    }
}

}  // namespace framelock::frontend::lobby_client
