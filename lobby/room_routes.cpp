#include "lobby/room_routes.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "common/log.h"
#include "lobby/api_reply.h"
#include "lobby/record_json.h"
#include "lobby/relay_choice.h"
#include "lobby/request_validation.h"
#include "lobby/secrets.h"
#include "netplay/timing/path_floor.h"

namespace framelock::lobby {

using json = nlohmann::json;

namespace {

// The delay a joiner would get on `choice`, at the room's frame rate, added to `out`.
void add_expected_delay(json& out, const Room& room, const std::optional<RelayChoice>& choice) {
    if (!choice || !choice->worst_rtt_us) return;
    const Micros rtt = *choice->worst_rtt_us;
    const int lock = netplay::delay_for_round_trip(
        rtt, netplay::FrameTime::from_fps_milli(static_cast<std::uint32_t>(room.fps_milli)));
    // A hybrid room's players feel at most 2 frames of it: prediction covers the rest.
    out["expected_delay"] = room.mode == "hybrid" ? netplay::hybrid_delay(lock) : lock;
    out["expected_rtt_ms"] = static_cast<double>(std::llround(rtt / 100.0)) / 10.0;
}

void check_text_fields(const json& body, Room& room, bool creating) {
    if (auto v = text_field(body, "host_name", 1, 64, creating)) room.host_name = *v;
    if (auto v = text_field(body, "game_name", 1, 128, creating)) room.game_name = *v;
    if (auto v = text_field(body, "region", 0, 32, false)) {
        if (!all_of_chars(*v, "-_", true))
            throw Refusal{400, "\"region\" may hold a-z, 0-9, - and _ only"};
        room.region = *v;
    }
    if (auto v = text_field(body, "server_address", 3, 261, false)) {
        if (!valid_address(*v)) throw Refusal{400, "\"server_address\" must be host:port"};
        room.server_address = *v;
    }
}

// The room behind `key`, if the request carries its host's token.
StoredRoom owned_room(LobbyStore& store, const std::string& key, const ApiRequest& r) {
    auto room = need(store.get_room(key, r.now_ms));
    if (!room) throw Refusal{404, "no live room " + key};
    if (r.bearer.empty()) throw Refusal{401, "this needs the room's token (Authorization: Bearer)"};
    if (!check_token(room->token_hash, r.bearer)) throw Refusal{403, "wrong token for room " + key};
    return *room;
}

}  // namespace

RoomRoutes::RoomRoutes(LobbyStore& store, const ApiConfig& config, const RelayRoutes& relays)
    : m_store(store),
      m_config(config),
      m_relays(relays),
      m_guesses(config.guesses),
      m_passwords(config.password_threads, config.password_queue) {}

std::string RoomRoutes::hash_on_worker(const std::string& password) {
    auto hashed = m_passwords.run<std::string>([&] { return hash_password(password); });
    if (!hashed) throw busy_checking();
    if (hashed->empty()) throw Refusal{503, "cannot hash the password now; retry", 1};
    return *hashed;
}

ApiResponse RoomRoutes::list_rooms(const ApiRequest& r) {
    RoomFilter filter;
    filter.game = query_text(r, "game");
    filter.core = query_text(r, "core");
    filter.mode = query_text(r, "mode");
    if (auto v = query_text(r, "has_slots")) filter.has_slots = *v == "1" || *v == "true";
    filter.limit = query_number(r, "limit", 100, m_config.max_list);
    filter.offset = query_number(r, "offset", 0, 1'000'000);
    const RelayProbes mine = m_relays.probes_of_caller(r);
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

ApiResponse RoomRoutes::create_room(const ApiRequest& r) {
    const json body = parse_body(r, true);
    StoredRoom stored;
    Room& room = stored.room;
    check_text_fields(body, room, true);
    room.content_hash = *text_field(body, "content_hash", 16, 16, true);
    if (!is_hex(room.content_hash, 16))
        throw Refusal{400, "\"content_hash\" must be 16 lowercase hex digits"};
    room.core_name = *text_field(body, "core_name", 1, 64, true);
    if (!all_of_chars(room.core_name, "_.- "))
        throw Refusal{400, "\"core_name\" may hold letters, digits, space, _ . and - only"};
    room.core_version = text_field(body, "core_version", 0, 32, false).value_or("");
    room.mode = choice_field(body, "mode", 16, {"framelock", "nowait", "rollback", "hybrid"});
    const RelayProbes host_probes = probes_field(body);
    room.host_probes = probes_to_text(host_probes);
    // The host core's frame rate, 60 fps unless it says.
    room.fps_milli = thousandths_field(body, "fps", 1, 1000).value_or(60'000);
    room.slots = *integer_field(body, "slots", 1, 8, true);
    room.players = integer_field(body, "players", 0, room.slots, false).value_or(0);
    room.spectators = integer_field(body, "spectators", 0, 1000, false).value_or(0);
    const std::string password = text_field(body, "password", 0, 128, false).value_or("");
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
            choice = RelayChoice{server->id, server->address, server->server_key, std::nullopt};
        }
        if (!choice)
            throw Refusal{409,
                          "no relay server has room for another session; give "
                          "\"server_address\" to host it yourself"};
        room.server_address = choice->address;
        room.server_id = choice->id;
        room.server_key = choice->server_key;
    } else {
        // The host's own server: joiners check they reach the server holding its key.
        room.server_key = server_key_field(body, "server_key");
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

ApiResponse RoomRoutes::get_room(const std::string& key, const ApiRequest& r) {
    auto room = need(m_store.get_room(key, r.now_ms));
    if (!room) return error(404, "no live room " + key);
    json out = room_json(room->room);
    if (const RelayProbes mine = m_relays.probes_of_caller(r); !mine.empty()) {
        add_expected_delay(out, room->room,
                           relay_for_join(room->room, probes_from_text(room->room.host_probes),
                                          mine, need(m_store.list_servers(r.now_ms)), false));
    }
    return reply(200, out);
}

ApiResponse RoomRoutes::save_live_room(Room& room, const std::string& key, std::int64_t now_ms) {
    room.updated_ms = now_ms;
    room.expires_ms = now_ms + m_config.room_ttl_ms;
    if (!need(m_store.update_room(room, now_ms))) return error(404, "no live room " + key);
    return reply(200, room_json(room));
}

ApiResponse RoomRoutes::heartbeat_room(const std::string& key, const ApiRequest& r) {
    StoredRoom stored = owned_room(m_store, key, r);
    const json body = parse_body(r, false);
    Room& room = stored.room;
    if (auto v = integer_field(body, "players", 0, room.slots, false)) room.players = *v;
    if (auto v = integer_field(body, "spectators", 0, 1000, false)) room.spectators = *v;
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

ApiResponse RoomRoutes::update_room(const std::string& key, const ApiRequest& r) {
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
    if (auto v = integer_field(body, "slots", 1, 8, false)) room.slots = *v;
    if (auto v = integer_field(body, "players", 0, room.slots, false)) room.players = *v;
    if (room.players > room.slots) throw Refusal{400, "\"players\" cannot exceed \"slots\""};
    if (auto v = integer_field(body, "spectators", 0, 1000, false)) room.spectators = *v;
    return save_live_room(room, key, r.now_ms);
}

ApiResponse RoomRoutes::delete_room(const std::string& key, const ApiRequest& r) {
    StoredRoom stored = owned_room(m_store, key, r);
    need(m_store.delete_room(stored.room.id));
    if (m_config.rendezvous) m_config.rendezvous->remove_room(stored.room.id);
    return {204, "application/json", ""};
}

ApiResponse RoomRoutes::join_room(const std::string& key, const ApiRequest& r) {
    auto room = need(m_store.get_room(key, r.now_ms));
    if (!room) return error(404, "no live room " + key);
    const json body = parse_body(r, false);
    const std::string password = text_field(body, "password", 0, 128, false).value_or("");
    // Validated before the password check: a malformed join costs no Argon2id.
    const RelayProbes joiner = probes_field(body);
    const bool want_relay = flag_field(body, "relay");
    // A key the client makes up and keeps (frontend/lobby_client): its own share of the
    // room's wrong-password budget beside others at its address (lobby/password_budget.h).
    const std::string client_key = text_field(body, "client_key", 16, 64, false).value_or("");
    if (!all_of_chars(client_key, "-_"))
        throw Refusal{400, "\"client_key\" may hold letters, digits, - and _ only"};
    // The host (its token) joins its own room without the password.
    const bool host = !r.bearer.empty() && check_token(room->token_hash, r.bearer);
    if (room->room.has_password && !host) {
        if (password.empty()) return error(403, "room " + key + " needs a password");
        if (auto refused = check_join_password(*room, password, client_key, r)) return *refused;
    }
    if (room->room.players >= room->room.slots) {
        json full{{"room", room_json(room->room)},
                  {"server_address", room->room.server_address},
                  {"server_key", room->room.server_key},
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
            RelayServer to;
            to.id = choice->id;
            to.address = choice->address;
            to.server_key = choice->server_key;
            if (need(m_store.move_room(current.id, current.server_id, to, r.now_ms))) {
                current.server_address = choice->address;
                current.server_id = choice->id;
                current.server_key = choice->server_key;
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
                    {"server_key", room->room.server_key},
                    {"full", false}};
    if (choice && choice->id == room->room.server_id) add_expected_delay(out, room->room, choice);
    add_reach(out, room->room, r.client, r.now_ms);
    return reply(200, out);
}

std::optional<ApiResponse> RoomRoutes::check_join_password(const StoredRoom& room,
                                                           const std::string& password,
                                                           const std::string& client_key,
                                                           const ApiRequest& r) {
    const std::string& id = room.room.id;
    const std::string& code = room.room.code;
    const std::int64_t window_s = (m_guesses.limits().window_ms + 999) / 1000;
    if (const auto wait = m_guesses.begin(id, r.client, client_key, r.now_ms)) {
        const int wait_s = static_cast<int>((wait->ms + 999) / 1000);
        std::string who;
        switch (wait->level) {
            case PasswordBudget::Level::kRoom:
                who = "from all addresses: its password is checked for nobody until then";
                break;
            case PasswordBudget::Level::kAddress:
                who = "from " + r.client;
                break;
            case PasswordBudget::Level::kClient:
                who = "from this client at " + r.client;
                break;
        }
        return error(429,
                     fmt::format("room {} had {} wrong passwords in the last {} s {}; try again "
                                 "in {} s",
                                 code, wait->wrong, window_s, who, wait_s),
                     wait_s);
    }
    std::optional<bool> right;
    try {
        right = m_passwords.run<bool>(
            [&] { return m_config.check_password(room.password_hash, password); });
    } catch (...) {
        m_guesses.cancel(id, r.client, client_key);
        throw;
    }
    if (!right) {
        m_guesses.cancel(id, r.client, client_key);
        throw busy_checking();
    }
    if (const auto filled = m_guesses.finish(id, r.client, client_key, r.now_ms, *right)) {
        // Named once, when a level fills: the guesser's address, and whether it is the room's
        // whole budget (guessers at many addresses).
        const char* level = *filled == PasswordBudget::Level::kRoom      ? "the room's budget"
                            : *filled == PasswordBudget::Level::kAddress ? "the address's share"
                                                                         : "a client's share";
        log_warn("lobby: room {}: wrong password from {} filled {} of wrong passwords for {} s",
                 code, r.client, level, window_s);
    }
    if (!*right) return error(403, "wrong password for room " + code);
    return std::nullopt;
}

void RoomRoutes::add_reach(nlohmann::json& answer, const Room& room, const std::string& client,
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

}  // namespace framelock::lobby
