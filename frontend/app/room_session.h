// `join --lobby URL CODE`: from a room's code to a session this player can reach. The lobby
// says where the room plays; a host that serves its room itself is reached directly (its
// UPnP mapping or public address) or through its router (hole punching,
// frontend/reach/reach_host.h); when neither answers within the punch timeout, the lobby
// moves the room to a relay and the player goes there, with a line saying why.
#pragma once

#include <memory>
#include <string>

#include "frontend/app/join_args.h"
#include "netplay/base/result.h"
#include "netplay/io/enet_transport.h"

namespace framelock::frontend {

struct RoomSession {
    std::string address;  // "host:port" to connect to
    // The socket the way was opened from, when punched or probed; null: any new socket.
    std::unique_ptr<netplay::EnetTransport> socket;
};

Result<RoomSession> find_room_session(const JoinArgs& args);

}  // namespace framelock::frontend
