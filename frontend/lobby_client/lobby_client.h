// The netplay commands' side of the lobby, over its HTTP JSON API (the service's side is
// lobby/api.h; docs/lobby.md lists the requests). Namespace frontend::lobby_client: the
// player's client, apart from the service's framelock::lobby.
//
//   create_room / join_room   one request each, made before the real-time loop starts
//   RoomKeeper                `host --lobby`: heartbeats the room with its player count,
//                             deletes it on a clean exit
//   ServerAnnouncer           `server --lobby`: each session port is a relay entry of its own
//                             (capacity 1) so the lobby's "least loaded" is a free session
//
// The keeper and the announcer talk to the lobby from a thread of their own: the netplay
// loop only stores numbers into them and never waits for HTTP. A lobby that is down costs
// a warning line now and then, nothing else.
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/reach/rendezvous.h"

namespace httplib {
class Client;
}

namespace framelock::frontend::lobby_client {

// An HTTP client for the lobby at `url` with every timeout set to `timeout_s` seconds.
std::unique_ptr<httplib::Client> lobby_http_client(const std::string& url, int timeout_s);

struct CreatedRoom {
    std::string id, code, token;
    std::string server_address;  // where to connect: the host's own, or an assigned relay
    std::string server_key;      // the key of the server there (what the host's player checks)
    std::int64_t heartbeat_ms = 10'000;
    // The host registers the socket that serves the room with this, on the lobby's UDP
    // rendezvous (netplay/reach/rendezvous.h); empty from a lobby without one.
    std::string rendezvous_key;
};

// POST /api/rooms with `body` (the API's room fields). kIo when the lobby cannot be
// reached, kProtocol with the lobby's own error message otherwise.
Result<CreatedRoom> create_room(const std::string& url, const nlohmann::json& body);

// The lobby's UDP rendezvous: the host of `url` (resolved) and its port.
Result<netplay::Endpoint> rendezvous_endpoint(const std::string& url);

// --- Relay probes (docs/lobby.md, "How the relay is chosen") --------------------------
//
// The lobby picks the relay that minimises the worst player's round trip from the players'
// own measurements. A player measures before its request: probe_relays_json() lists the
// lobby's live relays (GET /api/servers) and probes each (frontend/reach/relay_probe.h,
// about 0.1 s, 1 s at most), and the answer goes with the request:
//
//   host:   create_room(url, with_probes(body, probe_relays_json(url), core_fps))
//   join:   join_room(url, code, JoinRequest{password, spectate, probe_relays_json(url)})
//   cannot reach the host directly: the same with JoinRequest::relay = true
//   lists:  post_probes(url, probes) once, then GET /api/rooms shows expected_delay

// {"server_id": round trip ms, ...} for the lobby's live relays that answered (at most 64,
// those with free capacity first); {} when the lobby or no relay answered (a warning is
// logged; the lobby then chooses by load, as before).
nlohmann::json probe_relays_json(const std::string& url);
// The same through a client the caller holds (and may stop() from another thread).
nlohmann::json probe_relays_json(httplib::Client& client, const std::string& url);

// `body` (a create_room body) with "probes" (when not empty) and the host core's "fps".
nlohmann::json with_probes(nlohmann::json body, const nlohmann::json& probes,
                           std::optional<double> fps = std::nullopt);

// POST /api/probes: the lobby keeps them 10 min for room lists from this address.
Status post_probes(const std::string& url, const nlohmann::json& probes);
Status post_probes(httplib::Client& client, const std::string& url, const nlohmann::json& probes);

struct JoinRequest {
    std::string password;
    bool spectate = false;
    nlohmann::json probes = nlohmann::json::object();  // probe_relays_json()
    // "I cannot reach this room's host directly": the lobby puts the room on a relay.
    bool relay = false;
};
struct JoinAnswer {
    std::string server_address;
    // The key of the server at that address, as the host or relay registered it: the join
    // goes only to the server holding it (netplay/crypto/server_identity.h). Empty from a
    // lobby that keeps none.
    std::string server_key;
    std::optional<int> expected_delay;  // frames, when the lobby could estimate it
    std::optional<double> expected_rtt_ms;
    bool on_relay = false;  // a relay's session (else the host serves the room itself)
    // For a host that serves its room: a ticket to punch through its router with, and where
    // the lobby saw its socket (empty when it cannot be punched to).
    std::string punch_ticket;
    std::string host_endpoint;
};
// Where room `id` plays now and the key of the server there (GET /api/rooms/ID): for a
// host that follows its room to a relay.
struct RoomPlace {
    std::string server_address;
    std::string server_key;
};
Result<RoomPlace> room_place(const std::string& url, const std::string& id);

// join_room() with probes and the relay flag, and the lobby's estimate of the delay.
Result<JoinAnswer> join_room(const std::string& url, const std::string& code,
                             const JoinRequest& request);

class RoomKeeper {
  public:
    // `body`: what the room was created with. A heartbeat answered 404 (the lobby restarted
    // or the room expired while the lobby was out of reach) creates it again from `body`, on
    // the same server; the new code is printed as the first one was.
    RoomKeeper(std::string url, CreatedRoom room, nlohmann::json body);
    // Stops heartbeating without deleting: a killed or failed host's room just expires.
    ~RoomKeeper();
    RoomKeeper(const RoomKeeper&) = delete;
    RoomKeeper& operator=(const RoomKeeper&) = delete;

    // Players in the session now; a change is sent at once rather than at the next beat.
    void set_players(int players);
    // Stops the thread and deletes the room (a short, bounded request): the clean exit.
    void close();
    // Announces another address for the room's server (a port mapping made after the room
    // was listed): sent at once, and kept for a room listed again.
    void set_address(const std::string& address);
    // The relay the lobby moved the room to, as a heartbeat's answer said ("" while none).
    // Thread-safe.
    std::string moved_to();
    // The room's rendezvous key now (a room listed again has a new one). Thread-safe.
    std::string rendezvous_key();

  private:
    void run();
    // A heartbeat's answer: a new rendezvous key, a move.
    void take_heartbeat_answer(const std::string& body);

    std::string m_url;
    CreatedRoom m_room;  // the thread's own until it ends; close() reads it after the join
    nlohmann::json m_body;
    std::atomic<int> m_players{0};
    std::mutex m_key_mutex;
    std::string m_key;       // the rendezvous key, under m_key_mutex
    std::string m_moved_to;  // likewise
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::string m_new_address;  // to announce, under m_mutex
    std::thread m_thread;
};

class ServerAnnouncer {
  public:
    // One relay entry per address ("HOST:PORT"), all in `region` and holding `server_key`
    // (the sessions' key, as text), registered with the lobby operator's `relay_key`
    // (common/relay_key.h; never logged).
    ServerAnnouncer(std::string url, std::vector<std::string> addresses, std::string region,
                    std::string server_key, std::string relay_key);
    ~ServerAnnouncer();
    ServerAnnouncer(const ServerAnnouncer&) = delete;
    ServerAnnouncer& operator=(const ServerAnnouncer&) = delete;

    // Session `index` is busy (1) or free (0); a change is sent at once.
    void set_load(std::size_t index, int load);
    // The server is going: stops the thread and marks every entry full, so that until the
    // lobby expires them no room is sent to a session that is no longer there (the API has
    // no way to remove a server). Short, bounded requests.
    void close();

  private:
    struct Entry {
        std::string address;
        std::string id, token;  // empty until registered
        int sent_load = -1;
    };
    void run();

    std::string m_url, m_region, m_server_key, m_relay_key;
    std::vector<Entry> m_entries;                 // the thread's own
    std::unique_ptr<std::atomic<int>[]> m_loads;  // written by the loop, read by the thread
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false, m_changed = false;
    std::thread m_thread;
};

}  // namespace framelock::frontend::lobby_client
