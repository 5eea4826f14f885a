// SIGINT and SIGTERM ask framelock's long-running loops (server, join, host, demo, the lobby
// service) to stop cleanly: say goodbye to the peers, write logs and statistics, reap children.
#pragma once

namespace framelock {

// Installs the handlers (without SA_RESTART, so a blocking wait returns early). Idempotent.
void install_stop_signal_handlers();

// True once SIGINT or SIGTERM arrived (or request_stop() was called). Thread-safe.
bool stop_requested();
void request_stop();

}  // namespace framelock
