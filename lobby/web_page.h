// The lobby's web page (GET /): one self-contained HTML document that lists the live rooms
// from /api/rooms, its table's room columns walked from the room's description
// (lobby/record_fields.h).
#pragma once

#include <string>

namespace framelock::lobby {

const std::string& web_page();

}  // namespace framelock::lobby
