// The rooms' part of the lobby's API (lobby/api.h): /api/rooms and a room's heartbeat, update,
// delete and join. Owns what only rooms need: the workers that hash and check room passwords,
// and the budget of wrong guesses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "lobby/api_types.h"
#include "lobby/password_budget.h"
#include "lobby/password_workers.h"
#include "lobby/relay_routes.h"
#include "lobby/store.h"

namespace framelock::lobby {

class RoomRoutes {
  public:
    // Keeps references to `store`, `config` (its check_password set) and `relays` (the
    // callers' probes), which outlive it.
    RoomRoutes(LobbyStore& store, const ApiConfig& config, const RelayRoutes& relays);

    // Thread-safe, as LobbyApi::handle; a password check waits on a worker of its own
    // without holding anything. Each throws a Refusal (lobby/api_reply.h) for a request it
    // cannot serve. `key` is a room's id or code (a path's, checked by record_key()).
    ApiResponse list_rooms(const ApiRequest& request);
    ApiResponse create_room(const ApiRequest& request);
    ApiResponse get_room(const std::string& key, const ApiRequest& request);
    ApiResponse heartbeat_room(const std::string& key, const ApiRequest& request);
    ApiResponse update_room(const std::string& key, const ApiRequest& request);
    ApiResponse delete_room(const std::string& key, const ApiRequest& request);
    ApiResponse join_room(const std::string& key, const ApiRequest& request);

    const PasswordWorkers& passwords() const { return m_passwords; }
    const PasswordBudget& guesses() const { return m_guesses; }

  private:
    // Keeps `room` alive for another TTL from the request's time and stores it: its JSON, or
    // 404 when it expired meanwhile (heartbeat_room and update_room end so).
    ApiResponse save_live_room(Room& room, const std::string& key, std::int64_t now_ms);
    // How a joiner reaches the room: on a relay, or the host's own (with a ticket to punch
    // through to it when its socket registered).
    void add_reach(nlohmann::json& answer, const Room& room, const std::string& client,
                   std::int64_t now_ms);
    std::string hash_on_worker(const std::string& password);
    // A join's password against the room's hash, within the room's budget of wrong guesses:
    // nullopt when right, else the answer (403 wrong, 429 over the budget, unchecked).
    std::optional<ApiResponse> check_join_password(const StoredRoom& room,
                                                   const std::string& password,
                                                   const std::string& client_key,
                                                   const ApiRequest& request);

    LobbyStore& m_store;
    const ApiConfig& m_config;
    const RelayRoutes& m_relays;
    PasswordBudget m_guesses;
    PasswordWorkers m_passwords;  // last: its threads stop first
};

}  // namespace framelock::lobby
