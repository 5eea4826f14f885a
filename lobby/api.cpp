#include "lobby/api.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstring>
#include <optional>

#include "lobby/relay_choice.h"
#include "lobby/secrets.h"
#include "netplay/timing/path_floor.h"

namespace framelock::lobby {
namespace {

using json = nlohmann::json;

ApiResponse reply(int status, const json& body) {
    // Error messages echo what the client sent (a method, a path cut at 100 bytes), which
    // need not be UTF-8: dump() would throw and turn a 404 into a 500. Invalid bytes become
    // U+FFFD instead.
    return {status, "application/json", body.dump(-1, ' ', false, json::error_handler_t::replace)};
}
ApiResponse error(int status, const std::string& message, int retry_after_s = 0) {
    ApiResponse response =
        reply(status, retry_after_s > 0 ? json{{"error", message}, {"retry_after_s", retry_after_s}}
                                        : json{{"error", message}});
    response.retry_after_s = retry_after_s;
    return response;
}

// A request that cannot be served, with its 4xx status (or 5xx: the store failed, or the
// password workers are busy).
struct Refusal {
    int status;
    std::string message;
    int retry_after_s = 0;
};

// The answer when the password workers' queue is full.
Refusal busy_checking() {
    return Refusal{503, "the lobby is busy checking passwords; retry in 1 s", 1};
}

bool printable_utf8(const std::string& s) {
    // No control characters; multi-byte sequences are checked for their shape only.
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7f) return false;
        int extra = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
        if (extra < 0 || (extra > 0 && i + static_cast<std::size_t>(extra) >= s.size()))
            return false;
        for (int k = 1; k <= extra; ++k) {
            if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
        }
        i += static_cast<std::size_t>(extra) + 1;
    }
    return true;
}

bool all_of_chars(const std::string& s, const char* allowed_extra, bool lower_only = false) {
    for (char c : s) {
        const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                           (!lower_only && c >= 'A' && c <= 'Z');
        if (!alnum && !std::strchr(allowed_extra, c)) return false;
    }
    return true;
}

bool is_hex(const std::string& s, std::size_t n) {
    return s.size() == n && all_of_chars(s, "", true) &&
           s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool valid_address(const std::string& a) {
    const auto colon = a.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon > 253) return false;
    const std::string host = a.substr(0, colon), port = a.substr(colon + 1);
    if (!all_of_chars(host, ".-")) return false;
    if (port.empty() || port.size() > 5 ||
        port.find_first_not_of("0123456789") != std::string::npos)
        return false;
    const int p = std::stoi(port);
    return p >= 1 && p <= 65535;
}

// Reads a JSON object body; fields are then taken with the typed getters below, which
// throw Refusal naming the field and what it must be.
json parse_body(const ApiRequest& request, bool required) {
    if (request.body.empty()) {
        if (required) throw Refusal{400, "a JSON object body is required"};
        return json::object();
    }
    json body = json::parse(request.body, nullptr, false);
    if (body.is_discarded()) throw Refusal{400, "the body is not valid JSON"};
    if (!body.is_object()) throw Refusal{400, "the body must be a JSON object"};
    return body;
}

std::optional<std::string> text(const json& body, const char* field, std::size_t min,
                                std::size_t max, bool required) {
    const auto it = body.find(field);
    if (it == body.end() || it->is_null()) {
        if (required) throw Refusal{400, fmt::format("\"{}\" is required", field)};
        return std::nullopt;
    }
    if (!it->is_string()) throw Refusal{400, fmt::format("\"{}\" must be a string", field)};
    const std::string value = it->get<std::string>();
    if (value.size() < min || value.size() > max)
        throw Refusal{400, fmt::format("\"{}\" must be {} to {} bytes long", field, min, max)};
    if (!printable_utf8(value))
        throw Refusal{400, fmt::format("\"{}\" must be printable UTF-8 text", field)};
    return value;
}

std::optional<int> integer(const json& body, const char* field, int min, int max, bool required) {
    const auto it = body.find(field);
    if (it == body.end() || it->is_null()) {
        if (required) throw Refusal{400, fmt::format("\"{}\" is required", field)};
        return std::nullopt;
    }
    if (!it->is_number_integer())
        throw Refusal{400, fmt::format("\"{}\" must be an integer", field)};
    const auto v = it->get<std::int64_t>();
    if (v < min || v > max)
        throw Refusal{400, fmt::format("\"{}\" must be between {} and {}", field, min, max)};
    return static_cast<int>(v);
}

// At most this many relays in one player's probes; a round trip of at most this many ms.
constexpr std::size_t kMaxProbes = 64;
constexpr double kMaxProbeMs = 10'000;

// One probe: a relay's id (32 lowercase hex digits) and a round trip in ms.
void check_probe(const std::string& id, double ms, const char* where) {
    if (!is_hex(id, 32))
        throw Refusal{400, fmt::format("{}: a relay is named by its 32-digit id", where)};
    if (!(ms >= 0 && ms <= kMaxProbeMs))
        throw Refusal{400, fmt::format("{}: a round trip is 0 to {} ms", where, kMaxProbeMs)};
}

Micros probe_us(double ms) {
    return static_cast<Micros>(std::llround(ms * 1000.0));
}

// The optional "probes" field: {"server_id": ms, ...}.
RelayProbes probes_field(const json& body) {
    RelayProbes probes;
    const auto it = body.find("probes");
    if (it == body.end() || it->is_null()) return probes;
    if (!it->is_object())
        throw Refusal{400, "\"probes\" must be an object {\"server_id\": round trip ms}"};
    if (it->size() > kMaxProbes)
        throw Refusal{400, fmt::format("\"probes\" may name at most {} relays", kMaxProbes)};
    for (const auto& [id, ms] : it->items()) {
        if (!ms.is_number()) throw Refusal{400, "\"probes\": each round trip must be a number"};
        check_probe(id, ms.get<double>(), "\"probes\"");
        probes[id] = probe_us(ms.get<double>());
    }
    return probes;
}

// The "probes" query of a list: "id:ms,id:ms".
RelayProbes probes_query(const std::string& text) {
    RelayProbes probes;
    for (std::size_t i = 0; i < text.size();) {
        std::size_t end = text.find(',', i);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(i, end - i);
        const auto colon = item.find(':');
        const std::string ms = colon == std::string::npos ? "" : item.substr(colon + 1);
        if (colon == std::string::npos || ms.empty() || ms.size() > 12 ||
            ms.find_first_not_of("0123456789.") != std::string::npos)
            throw Refusal{400, "query \"probes\" must be server_id:ms,server_id:ms,..."};
        const double value = std::strtod(ms.c_str(), nullptr);
        check_probe(item.substr(0, colon), value, "query \"probes\"");
        probes[item.substr(0, colon)] = probe_us(value);
        if (probes.size() > kMaxProbes)
            throw Refusal{400,
                          fmt::format("query \"probes\" may name at most {} relays", kMaxProbes)};
        i = end + 1;
    }
    return probes;
}

// The host core's "fps" (default 60) in thousandths.
int fps_field(const json& body) {
    const auto it = body.find("fps");
    if (it == body.end() || it->is_null()) return 60'000;
    if (!it->is_number() || !(it->get<double>() >= 1 && it->get<double>() <= 1000))
        throw Refusal{400, "\"fps\" must be a number from 1 to 1000"};
    return static_cast<int>(std::llround(it->get<double>() * 1000.0));
}

bool flag_field(const json& body, const char* field) {
    const auto it = body.find(field);
    if (it == body.end() || it->is_null()) return false;
    if (!it->is_boolean()) throw Refusal{400, fmt::format("\"{}\" must be true or false", field)};
    return it->get<bool>();
}

// The delay a joiner would get on `choice`, at the room's frame rate, added to `out`.
void add_expected_delay(json& out, const Room& room, const std::optional<RelayChoice>& choice) {
    if (!choice || !choice->worst_rtt_us) return;
    const Micros rtt = *choice->worst_rtt_us;
    out["expected_delay"] = netplay::delay_for_round_trip(
        rtt, netplay::FrameTime::from_fps_milli(static_cast<std::uint32_t>(room.fps_milli)));
    out["expected_rtt_ms"] = static_cast<double>(std::llround(rtt / 100.0)) / 10.0;
}

json room_json(const Room& r) {
    return json{{"id", r.id},
                {"code", r.code},
                {"host_name", r.host_name},
                {"game_name", r.game_name},
                {"content_hash", r.content_hash},
                {"core_name", r.core_name},
                {"core_version", r.core_version},
                {"mode", r.mode},
                {"players", r.players},
                {"slots", r.slots},
                {"spectators", r.spectators},
                {"has_password", r.has_password},
                {"region", r.region},
                {"server_address", r.server_address},
                {"fps", r.fps_milli / 1000.0},
                {"created_ms", r.created_ms},
                {"updated_ms", r.updated_ms},
                {"expires_ms", r.expires_ms}};
}

json server_json(const RelayServer& s) {
    return json{{"id", s.id},
                {"address", s.address},
                {"region", s.region},
                {"capacity", s.capacity},
                {"load", s.load},
                {"updated_ms", s.updated_ms},
                {"expires_ms", s.expires_ms}};
}

// Values from the store, or a 500 that says the store failed (never the caller's fault).
template <class T>
T need(Result<T> result) {
    if (!result) throw Refusal{500, "storage error: " + result.error().message};
    return std::move(result).value();
}
void need(const Status& status) {
    if (!status) throw Refusal{500, "storage error: " + status.error().message};
}

const std::string& mode_of(const json& body) {
    static const std::string modes[] = {"framelock", "nowait", "rollback"};
    const auto mode = text(body, "mode", 1, 16, false).value_or("framelock");
    for (const auto& m : modes) {
        if (m == mode) return m;
    }
    throw Refusal{400, "\"mode\" must be framelock, nowait or rollback"};
}

void check_text_fields(const json& body, Room& room, bool creating) {
    if (auto v = text(body, "host_name", 1, 64, creating)) room.host_name = *v;
    if (auto v = text(body, "game_name", 1, 128, creating)) room.game_name = *v;
    if (auto v = text(body, "region", 0, 32, false)) {
        if (!all_of_chars(*v, "-_", true))
            throw Refusal{400, "\"region\" may hold a-z, 0-9, - and _ only"};
        room.region = *v;
    }
    if (auto v = text(body, "server_address", 3, 261, false)) {
        if (!valid_address(*v)) throw Refusal{400, "\"server_address\" must be host:port"};
        room.server_address = *v;
    }
}

}  // namespace

LobbyApi::LobbyApi(LobbyStore& store, ApiConfig config)
    : m_store(store),
      m_config(std::move(config)),
      m_limiter(m_config.rate_per_s, m_config.burst),
      m_lockout(m_config.lockout),
      m_probes(m_config.probes),
      m_passwords(m_config.password_threads, m_config.password_queue) {
    secrets_ready();
    if (!m_config.check_password) m_config.check_password = check_password;
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

std::string LobbyApi::hash_on_worker(const std::string& password) {
    auto hashed = m_passwords.run<std::string>([&] { return hash_password(password); });
    if (!hashed) throw busy_checking();
    if (hashed->empty()) throw Refusal{503, "cannot hash the password now; retry", 1};
    return *hashed;
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
    const auto key_ok = [&](const std::string& key) {
        if (key.empty() || key.size() > 32 || !all_of_chars(key, ""))
            throw Refusal{400, "a room is named by its 32-digit id or its 6-character code"};
        return key;
    };
    const std::string& m = r.method;
    if (r.path == "/" && m == "GET")
        return name = "page", ApiResponse{200, "text/html; charset=utf-8", web_page()};
    if (is({"health"}) && m == "GET") return name = "health", health(r);
    if (is({"metrics"}) && m == "GET") return name = "metrics", metrics_page(r);
    if (is({"api", "rooms"})) {
        if (m == "GET") return name = "list_rooms", list_rooms(r);
        if (m == "POST") return name = "create_room", create_room(r);
    }
    if (is({"api", "rooms", "*"})) {
        if (m == "GET") return name = "get_room", get_room(key_ok(parts[2]), r);
        if (m == "PATCH") return name = "update_room", update_room(key_ok(parts[2]), r);
        if (m == "DELETE") return name = "delete_room", delete_room(key_ok(parts[2]), r);
    }
    if (is({"api", "rooms", "*", "heartbeat"}) && m == "POST")
        return name = "heartbeat_room", heartbeat_room(key_ok(parts[2]), r);
    if (is({"api", "rooms", "*", "join"}) && m == "POST")
        return name = "join_room", join_room(key_ok(parts[2]), r);
    if (is({"api", "servers"})) {
        if (m == "GET") return name = "list_servers", list_servers(r);
        if (m == "POST") return name = "register_server", register_server(r);
    }
    if (is({"api", "probes"}) && m == "POST") return name = "store_probes", store_probes(r);
    if (is({"api", "servers", "*", "heartbeat"}) && m == "POST")
        return name = "heartbeat_server", heartbeat_server(key_ok(parts[2]), r);
    name = "not_found";
    return error(404, "no such endpoint: " + m + " " + r.path.substr(0, 100));
}

ApiResponse LobbyApi::list_rooms(const ApiRequest& r) {
    RoomFilter filter;
    const auto q = [&](const char* k) -> std::optional<std::string> {
        auto it = r.query.find(k);
        if (it == r.query.end() || it->second.empty()) return std::nullopt;
        if (it->second.size() > 128 || !printable_utf8(it->second))
            throw Refusal{400,
                          fmt::format("query \"{}\" must be printable text up to 128 bytes", k)};
        return it->second;
    };
    filter.game = q("game");
    filter.core = q("core");
    filter.mode = q("mode");
    if (auto v = q("has_slots")) filter.has_slots = *v == "1" || *v == "true";
    const auto number = [&](const char* k, int def, int max) {
        auto v = q(k);
        if (!v) return def;
        if (v->size() > 6 || v->find_first_not_of("0123456789") != std::string::npos)
            throw Refusal{400, fmt::format("query \"{}\" must be a number from 0 to {}", k, max)};
        return std::min(std::stoi(*v), max);
    };
    filter.limit = number("limit", 100, m_config.max_list);
    filter.offset = number("offset", 0, 1'000'000);
    const RelayProbes mine = probes_of_caller(r);
    std::vector<RelayServer> servers;
    if (!mine.empty()) servers = need(m_store.list_servers(r.now_ms));
    json rooms = json::array();
    for (const auto& room : need(m_store.list_rooms(filter, r.now_ms))) {
        json entry = room_json(room);
        // The relay this caller's join would put the room on, and the delay there.
        if (!mine.empty())
            add_expected_delay(
                entry, room,
                relay_for_join(room, probes_from_text(room.host_probes), mine, servers, false));
        rooms.push_back(std::move(entry));
    }
    return reply(200, json{{"rooms", rooms}, {"now_ms", r.now_ms}});
}

RelayProbes LobbyApi::probes_of_caller(const ApiRequest& r) const {
    if (const auto it = r.query.find("probes"); it != r.query.end() && !it->second.empty()) {
        if (it->second.size() > 4096) throw Refusal{400, "query \"probes\" is too long"};
        return probes_query(it->second);
    }
    return m_probes.get(r.client, r.now_ms).value_or(RelayProbes{});
}

ApiResponse LobbyApi::store_probes(const ApiRequest& r) {
    const json body = parse_body(r, true);
    if (!body.contains("probes")) throw Refusal{400, "\"probes\" is required"};
    RelayProbes probes = probes_field(body);
    const std::size_t n = probes.size();
    m_probes.put(r.client, std::move(probes), r.now_ms);
    return reply(200, json{{"stored", n}, {"expires_ms", r.now_ms + m_config.probes.ttl_ms}});
}

ApiResponse LobbyApi::create_room(const ApiRequest& r) {
    const json body = parse_body(r, true);
    StoredRoom stored;
    Room& room = stored.room;
    check_text_fields(body, room, true);
    room.content_hash = *text(body, "content_hash", 16, 16, true);
    if (!is_hex(room.content_hash, 16))
        throw Refusal{400, "\"content_hash\" must be 16 lowercase hex digits"};
    room.core_name = *text(body, "core_name", 1, 64, true);
    if (!all_of_chars(room.core_name, "_.- "))
        throw Refusal{400, "\"core_name\" may hold letters, digits, space, _ . and - only"};
    room.core_version = text(body, "core_version", 0, 32, false).value_or("");
    room.mode = mode_of(body);
    const RelayProbes host_probes = probes_field(body);
    room.host_probes = probes_to_text(host_probes);
    room.fps_milli = fps_field(body);
    room.slots = *integer(body, "slots", 1, 8, true);
    room.players = integer(body, "players", 0, room.slots, false).value_or(0);
    room.spectators = integer(body, "spectators", 0, 1000, false).value_or(0);
    const std::string password = text(body, "password", 0, 128, false).value_or("");
    if (!password.empty()) {
        stored.password_hash = hash_on_worker(password);
        room.has_password = true;
    }
    if (room.server_address.empty()) {
        // The relay closest to the host (its own probes), else the least loaded.
        std::optional<RelayChoice> choice;
        if (!host_probes.empty()) {
            choice = choose_relay(need(m_store.list_servers(r.now_ms)),
                                  std::span<const RelayProbes>(&host_probes, 1));
        } else if (auto server = need(m_store.least_loaded_server(r.now_ms))) {
            choice = RelayChoice{server->id, server->address, std::nullopt};
        }
        if (!choice)
            throw Refusal{409,
                          "no relay server has room for another session; give "
                          "\"server_address\" to host it yourself"};
        room.server_address = choice->address;
        room.server_id = choice->id;
    }
    const std::string token = random_hex(32);
    stored.token_hash = hash_token(token);
    room.created_ms = room.updated_ms = r.now_ms;
    room.expires_ms = r.now_ms + m_config.room_ttl_ms;
    for (int attempt = 0;; ++attempt) {
        room.id = random_hex(16);
        room.code = random_code();
        if (m_store.create_room(stored)) break;
        if (attempt == 4) throw Refusal{500, "could not find a free room code"};
    }
    json answer{
        {"room", room_json(room)}, {"token", token}, {"heartbeat_ms", m_config.room_ttl_ms / 3}};
    // The host registers its session's socket with this key (UDP, the lobby's own port), so
    // that players can punch through its router and it hears of a move to a relay.
    if (m_config.rendezvous) {
        answer["rendezvous_key"] =
            netplay::secret_to_hex(m_config.rendezvous->add_room(room.id, r.now_ms));
    }
    return reply(201, answer);
}

ApiResponse LobbyApi::get_room(const std::string& key, const ApiRequest& r) {
    auto room = need(m_store.get_room(key, r.now_ms));
    if (!room) return error(404, "no live room " + key);
    json out = room_json(room->room);
    if (const RelayProbes mine = probes_of_caller(r); !mine.empty()) {
        add_expected_delay(out, room->room,
                           relay_for_join(room->room, probes_from_text(room->room.host_probes),
                                          mine, need(m_store.list_servers(r.now_ms)), false));
    }
    return reply(200, out);
}

namespace {
// The room behind `key`, if the request carries its host's token.
StoredRoom owned_room(LobbyStore& store, const std::string& key, const ApiRequest& r) {
    auto room = need(store.get_room(key, r.now_ms));
    if (!room) throw Refusal{404, "no live room " + key};
    if (r.bearer.empty()) throw Refusal{401, "this needs the room's token (Authorization: Bearer)"};
    if (!check_token(room->token_hash, r.bearer)) throw Refusal{403, "wrong token for room " + key};
    return *room;
}
}  // namespace

ApiResponse LobbyApi::save_live_room(Room& room, const std::string& key, std::int64_t now_ms) {
    room.updated_ms = now_ms;
    room.expires_ms = now_ms + m_config.room_ttl_ms;
    if (!need(m_store.update_room(room, now_ms))) return error(404, "no live room " + key);
    return reply(200, room_json(room));
}

ApiResponse LobbyApi::heartbeat_room(const std::string& key, const ApiRequest& r) {
    StoredRoom stored = owned_room(m_store, key, r);
    const json body = parse_body(r, false);
    Room& room = stored.room;
    if (auto v = integer(body, "players", 0, room.slots, false)) room.players = *v;
    if (auto v = integer(body, "spectators", 0, 1000, false)) room.spectators = *v;
    ApiResponse out = save_live_room(room, key, r.now_ms);
    // A lobby that restarted (or forgot a host silent for long) has no rendezvous key for
    // the room: the host gets a new one here, and punching and moves work again.
    if (out.status == 200 && m_config.rendezvous && !m_config.rendezvous->knows(room.id)) {
        json answer = json::parse(out.body);
        answer["rendezvous_key"] =
            netplay::secret_to_hex(m_config.rendezvous->add_room(room.id, r.now_ms));
        out.body = answer.dump();
    }
    return out;
}

ApiResponse LobbyApi::update_room(const std::string& key, const ApiRequest& r) {
    StoredRoom stored = owned_room(m_store, key, r);
    const json body = parse_body(r, true);
    Room& room = stored.room;
    // A room on a relay plays there: its host may not point it elsewhere (a port mapping
    // made after the room moved, say).
    if (!room.server_id.empty() && body.contains("server_address") &&
        body["server_address"] != room.server_address) {
        throw Refusal{409, "room " + key + " plays on the relay " + room.server_address +
                               "; its address is not the host's to change"};
    }
    check_text_fields(body, room, false);
    if (auto v = integer(body, "slots", 1, 8, false)) room.slots = *v;
    if (auto v = integer(body, "players", 0, room.slots, false)) room.players = *v;
    if (room.players > room.slots) throw Refusal{400, "\"players\" cannot exceed \"slots\""};
    if (auto v = integer(body, "spectators", 0, 1000, false)) room.spectators = *v;
    return save_live_room(room, key, r.now_ms);
}

ApiResponse LobbyApi::delete_room(const std::string& key, const ApiRequest& r) {
    StoredRoom stored = owned_room(m_store, key, r);
    need(m_store.delete_room(stored.room.id));
    if (m_config.rendezvous) m_config.rendezvous->remove_room(stored.room.id);
    return {204, "application/json", ""};
}

ApiResponse LobbyApi::join_room(const std::string& key, const ApiRequest& r) {
    auto room = need(m_store.get_room(key, r.now_ms));
    if (!room) return error(404, "no live room " + key);
    const json body = parse_body(r, false);
    const std::string password = text(body, "password", 0, 128, false).value_or("");
    // Validated before the password check: a malformed join costs no Argon2id.
    const RelayProbes joiner = probes_field(body);
    const bool want_relay = flag_field(body, "relay");
    if (room->room.has_password) {
        if (password.empty()) return error(403, "room " + key + " needs a password");
        const std::string& id = room->room.id;
        if (const std::int64_t wait_ms = m_lockout.begin(id, r.client, r.now_ms); wait_ms > 0) {
            const int wait_s = static_cast<int>((wait_ms + 999) / 1000);
            return error(429,
                         fmt::format("too many wrong passwords for room {} from {}; try again in "
                                     "{} s",
                                     key, r.client, wait_s),
                         wait_s);
        }
        std::optional<bool> right;
        try {
            right = m_passwords.run<bool>(
                [&] { return m_config.check_password(room->password_hash, password); });
        } catch (...) {
            m_lockout.cancel(id, r.client);
            throw;
        }
        if (!right) {
            m_lockout.cancel(id, r.client);
            throw busy_checking();
        }
        m_lockout.finish(id, r.client, r.now_ms, *right);
        if (!*right) return error(403, "wrong password for room " + key);
    }
    if (room->room.players >= room->room.slots) {
        json full{{"room", room_json(room->room)},
                  {"server_address", room->room.server_address},
                  {"full", true}};
        add_reach(full, room->room, r.client, r.now_ms);  // a spectator reaches it too
        return reply(200, full);
    }
    Room& current = room->room;
    std::optional<RelayChoice> choice;
    // Before the session starts (only the host there) the room may still go to the relay
    // that suits both players; a joiner that cannot reach the host's own server puts it on one.
    // Only while the host is alone in it: a running session is not moved under its players.
    if (want_relay && current.server_id.empty() && current.players >= 2) {
        return error(409, "room " + key +
                              " plays on its host's own server and its session has started, so "
                              "it cannot move to a relay now; the host can forward its UDP port "
                              "or turn on UPnP on its router");
    }
    const bool movable = current.players < 2 && (want_relay || !current.server_id.empty());
    if (movable) {
        choice = relay_for_join(current, probes_from_text(current.host_probes), joiner,
                                need(m_store.list_servers(r.now_ms)), want_relay);
        if (!choice && current.server_id.empty())
            return error(409, "room " + key +
                                  " asked for a relay, but no relay server has room for "
                                  "another session");
        if (choice && choice->id != current.server_id) {
            if (need(m_store.move_room(current.id, current.server_id, choice->address, choice->id,
                                       r.now_ms))) {
                current.server_address = choice->address;
                current.server_id = choice->id;
                if (m_config.on_room_moved) m_config.on_room_moved(current.id, choice->address);
            } else {
                // Moved by another joiner meanwhile (or gone): answer with where it is now.
                room = need(m_store.get_room(current.id, r.now_ms));
                if (!room) return error(404, "no live room " + key);
                choice.reset();
            }
        }
    } else if (!current.server_id.empty()) {
        choice = relay_for_join(current, probes_from_text(current.host_probes), joiner, {}, false);
    }
    json out = json{{"room", room_json(room->room)},
                    {"server_address", room->room.server_address},
                    {"full", false}};
    if (choice && choice->id == room->room.server_id) add_expected_delay(out, room->room, choice);
    add_reach(out, room->room, r.client, r.now_ms);
    return reply(200, out);
}

void LobbyApi::add_reach(nlohmann::json& answer, const Room& room, const std::string& client,
                         std::int64_t now_ms) {
    answer["on_relay"] = !room.server_id.empty();
    // A host that serves the room itself and registered its socket: the joiner may punch
    // through its router (the ticket lets the lobby tell the host where the joiner is).
    if (!m_config.rendezvous || !room.server_id.empty()) return;
    if (auto ticket = m_config.rendezvous->issue_ticket(room.id, client, now_ms)) {
        answer["punch_ticket"] = netplay::secret_to_hex(ticket->secret);
        answer["host_endpoint"] = ticket->host.to_string();
    }
}

ApiResponse LobbyApi::register_server(const ApiRequest& r) {
    const json body = parse_body(r, true);
    RelayServer server;
    server.address = *text(body, "address", 3, 261, true);
    if (!valid_address(server.address)) throw Refusal{400, "\"address\" must be host:port"};
    server.region = text(body, "region", 0, 32, false).value_or("");
    if (!all_of_chars(server.region, "-_", true))
        throw Refusal{400, "\"region\" may hold a-z, 0-9, - and _ only"};
    server.capacity = *integer(body, "capacity", 1, 100'000, true);
    server.load = integer(body, "load", 0, 100'000, false).value_or(0);
    const std::string token = random_hex(32);
    server.token_hash = hash_token(token);
    server.id = random_hex(16);
    server.updated_ms = r.now_ms;
    server.expires_ms = r.now_ms + m_config.server_ttl_ms;
    need(m_store.upsert_server(server));
    return reply(201, json{{"server", server_json(server)},
                           {"token", token},
                           {"heartbeat_ms", m_config.server_ttl_ms / 3}});
}

ApiResponse LobbyApi::heartbeat_server(const std::string& id, const ApiRequest& r) {
    auto server = need(m_store.get_server(id, r.now_ms));
    if (!server) return error(404, "no live server " + id + "; register again");
    if (r.bearer.empty())
        return error(401, "this needs the server's token (Authorization: Bearer)");
    if (!check_token(server->token_hash, r.bearer))
        return error(403, "wrong token for server " + id);
    const json body = parse_body(r, false);
    if (auto v = integer(body, "capacity", 1, 100'000, false)) server->capacity = *v;
    if (auto v = integer(body, "load", 0, 100'000, false)) server->load = *v;
    server->updated_ms = r.now_ms;
    server->expires_ms = r.now_ms + m_config.server_ttl_ms;
    need(m_store.upsert_server(*server));
    return reply(200, server_json(*server));
}

ApiResponse LobbyApi::list_servers(const ApiRequest& r) {
    json servers = json::array();
    for (const auto& s : need(m_store.list_servers(r.now_ms))) servers.push_back(server_json(s));
    return reply(200, json{{"servers", servers}});
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
    const std::map<std::string, double> gauges = {
        {"framelock_lobby_rooms", rooms},
        {"framelock_lobby_servers", servers},
        {"framelock_lobby_rate_limited_clients", clients},
        {"framelock_lobby_password_jobs", static_cast<double>(m_passwords.in_flight())},
        {"framelock_lobby_password_jobs_refused", static_cast<double>(m_passwords.refused())},
        {"framelock_lobby_join_lockout_entries", static_cast<double>(m_lockout.size())},
        {"framelock_lobby_join_lockout_refused", static_cast<double>(m_lockout.refused())},
        {"framelock_lobby_probe_entries", static_cast<double>(m_probes.size())}};
    std::lock_guard lock(m_metrics_mutex);
    return {200, "text/plain; version=0.0.4", m_metrics.render(gauges)};
}

}  // namespace framelock::lobby
