// `framelock browse`: the room browser in the player's window. Fetches the lobby's rooms
// (GET /api/rooms) every few seconds and on R, shows them with RoomBrowserModel, and asks
// the lobby to join the chosen one (POST /api/rooms/CODE/join). The caller then plays the
// session in the same window.
#pragma once

#include <optional>
#include <string>

#include "frontend/player/player_window.h"
#include "netplay/base/result.h"
#include "netplay/interfaces/clock.h"

namespace framelock::frontend::lobby_client {

struct BrowseChoice {
    std::string code;
    std::string server_address;  // HOST:PORT of the session's server, from the lobby
    std::string password;        // typed at the prompt (empty for open rooms)
};

// Runs until the lobby accepted a join (the choice), or the player quit or a stop signal
// came (nullopt). Lobby errors are shown in the window, never fatal: the lobby may come
// back. Full rooms are refused unless `spectating` (spectators need no slot). Leaves the
// window out of menu mode.
std::optional<BrowseChoice> run_room_browser(PlayerWindow& window, const std::string& lobby_url,
                                             const netplay::Clock& clock, bool spectating);

}  // namespace framelock::frontend::lobby_client
