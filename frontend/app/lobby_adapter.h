// The program's side of the lobby (frontend/lobby_client/lobby_client.h): the room
// `framelock host --lobby` opens, and the numbers the real-time loop feeds the room keeper
// and the server announcer while a session runs.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "frontend/app/join_args.h"
#include "frontend/app/server_args.h"
#include "frontend/host/retro_emulator.h"
#include "frontend/lobby_client/lobby_client.h"
#include "frontend/reach/host_rendezvous.h"
#include "frontend/reach/upnp_request.h"
#include "frontend/session/client_runner.h"
#include "frontend/session/realtime_loop.h"
#include "frontend/session/server_runner.h"
#include "netplay/interfaces/clock.h"

namespace framelock::frontend {

// The room `framelock host --lobby` opens: what players filter on and must match.
// `server_address`: where players reach its server ("" when the lobby assigns a relay), and
// `server_key` the key that server holds (as text), which players check.
nlohmann::json room_body(const JoinArgs& args, const ServerArgs& server_args,
                         const RetroEmulator& emulator, const std::string& server_address,
                         const std::string& server_key);

// Feeds the lobby's room keeper and server announcer from the real-time loop: it only
// stores numbers into them (their threads do the HTTP), a few times a second since a
// server's slot statistics are not free to gather. Wraps the player's window, if any.
class LobbyFeed : public RealtimeObserver {
  public:
    LobbyFeed(RealtimeObserver* inner, const netplay::Clock& clock)
        : m_inner(inner), m_clock(clock) {}

    lobby_client::RoomKeeper* keeper = nullptr;
    ClientRunner* client = nullptr;
    lobby_client::ServerAnnouncer* announcer = nullptr;
    const ServerRunner* server = nullptr;
    // A host's rendezvous with the lobby (hole punching, moves), stepped on the first session's
    // socket of `rendezvous_server` (under its lock: a host's server runs on a thread of its
    // own) when given, else on `rendezvous_socket`.
    HostRendezvous* rendezvous = nullptr;
    ServerRunner* rendezvous_server = nullptr;
    netplay::EnetTransport* rendezvous_socket = nullptr;
    // The session the player is in now ("host:port"): a move to elsewhere ends the loop
    // while the session has not started (moved_to() then says where).
    std::string playing_on;
    // The host's port mapping: announced to the room once the router made it.
    const UpnpRequest* upnp = nullptr;

    bool before_step() override;
    void after_step() override;
    netplay::Micros next_wakeup(netplay::Micros now) const override;
    std::string stop_reason() const override;
    const std::string& moved_to() const { return m_moved_to; }

  private:
    RealtimeObserver* m_inner;
    const netplay::Clock& m_clock;
    netplay::Micros m_next = 0;
    std::string m_moved_to;
    bool m_upnp_announced = false;
    netplay::Micros m_next_move_check = 0;
};

}  // namespace framelock::frontend
