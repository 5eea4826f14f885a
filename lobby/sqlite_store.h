// The SQLite backend of LobbyStore: one file, WAL journal so readers never wait for the
// writer, a busy timeout so several connections (threads or processes) on one file queue
// instead of failing. See docs/lobby.md.
#pragma once

#include <memory>
#include <string>

#include "lobby/store.h"

namespace framelock::lobby {

// Opens (creating if needed) the database file at `path`; `url` is what the operator
// wrote, named in errors. Not migrated yet.
Result<std::unique_ptr<LobbyStore>> open_sqlite_store(const std::string& path,
                                                      const std::string& url);

}  // namespace framelock::lobby
