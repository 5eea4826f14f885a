// `join --lobby URL CODE`: from a room's code to a session this player can reach. The lobby
// says where the room plays; a host that serves its room itself is reached directly (its
// UPnP mapping or public address) or through its router (hole punching,
// frontend/reach/reach_host.h); when neither answers within the punch timeout, the lobby
// moves the room to a relay and the player goes there, with a line saying why.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "frontend/app/join_args.h"
#include "netplay/base/result.h"
#include "netplay/crypto/server_identity.h"
#include "netplay/io/enet_transport.h"

namespace framelock::frontend {

struct RoomSession {
    std::string address;  // "host:port" to connect to
    // The key the server there holds, as the lobby has it (joins only that server); nullopt
    // from a lobby that keeps none.
    std::optional<netplay::ServerKey> server_key;
    // The socket the way was opened from, when punched or probed; null: any new socket.
    std::unique_ptr<netplay::EnetTransport> socket;
};

Result<RoomSession> find_room_session(const JoinArgs& args);

// The key the lobby gave for the server at `address` (`text`), as a join pins it: nullopt
// (with a warning) when the lobby gave none; an error when it is not a key, or when the
// player's own --server-key (`given`) names another.
Result<std::optional<netplay::ServerKey>> lobby_server_key(const std::string& text,
                                                           const std::string& address,
                                                           const std::string& given);

}  // namespace framelock::frontend
