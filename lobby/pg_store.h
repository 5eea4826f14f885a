// The PostgreSQL backend of LobbyStore (libpqxx): for several lobby processes sharing
// one database. Each store object keeps a small pool of connections. See docs/lobby.md.
#pragma once

#include <memory>
#include <string>

#include "lobby/store.h"

namespace framelock::lobby {

// Connects to `url` (postgresql://... or postgres://..., as libpq reads it). Not migrated
// yet. Errors name the URL without its password.
Result<std::unique_ptr<LobbyStore>> open_pg_store(const std::string& url);

}  // namespace framelock::lobby
