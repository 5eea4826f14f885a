// A room and a relay server as the API shows them: the fields their description marks shown
// (lobby/record_fields.h), named as their columns; the frame rate as "fps", a number. Never
// the secrets' hashes, the relay a room is on by id, or the host's probes. A room also says
// what the core atlas measured of its core in its mode (common/core_atlas.h), which the lobby
// decides and never keeps: "core_verdict" ("safe", "unsafe", "unknown") and
// "core_verdict_reason" (why it is not safe; empty when it is).
#pragma once

#include <nlohmann/json.hpp>

#include "lobby/store.h"

namespace framelock::lobby {

nlohmann::json room_json(const Room& room);
nlohmann::json server_json(const RelayServer& server);

}  // namespace framelock::lobby
