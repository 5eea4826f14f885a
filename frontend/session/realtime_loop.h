// The real-time side of netplay: the loop that drives netplay::Server and netplay::Client
// over ENet with the steady clock.
//
//   ServerRunner  one netplay::Server per session port, all in one process and one loop
//                 (frontend/session/server_runner.h)
//   ClientRunner  one player: a RetroEmulator run by netplay::Client, the local pad from an
//                 InputSource, an optional hash log, replay and screenshot
//                 (frontend/session/client_runner.h)
//   run_realtime  sleeps until the next thing is due (a frame, a datagram, a timer) and
//                 drives either or both; `framelock host` runs a server and a client in it,
//                 the server on a thread of its own (frontend/session/server_thread.h)
//
// Events come out as log lines on stderr (common/log.h); summaries go to stdout and, as
// JSON, to a file (frontend/session/session_summary.h). Threading: the client, a server alone
// and the observer run on the caller's thread; a host's server runs on its own thread for the
// loop's duration (ServerRunner's public functions may be called from the observer meanwhile).
#pragma once

#include <string>

#include "netplay/interfaces/clock.h"
#include "netplay/io/enet_transport.h"

namespace framelock::frontend {

class ClientRunner;
class ServerRunner;

// After a session ends (or a client leaves), a runner keeps servicing its socket this long
// so ENet gets the goodbyes out: the transport's own linger plus a round trip or two.
constexpr netplay::Micros kGoodbyeLingerUs = netplay::kCloseLingerUs + 300'000;

// What a player's window does around the real-time loop (frontend/player/netplay_view.h).
class RealtimeObserver {
  public:
    virtual ~RealtimeObserver() = default;
    // Before each client step: window and pad events. True when the player asked to leave.
    virtual bool before_step() = 0;
    // After it: draw what changed.
    virtual void after_step() = 0;
    // The latest the loop may sleep until (the next redraw of a progress bar, say).
    virtual netplay::Micros next_wakeup(netplay::Micros now) const = 0;
    // Why before_step() asked to leave, for the log.
    virtual std::string stop_reason() const { return "the player closed the window"; }
};

// Drives `server` and/or `client` (either may be null) until both are finished, stop_signal
// reports SIGINT/SIGTERM (the client then leaves; the server stops), the observer's player
// asks to leave, or `deadline_us` (clock time; 0: none) passes. Sleeps on the client's
// socket when there is a client, else on the server's; with both, the server is served on a
// thread of its own, sleeping on its sockets. `observer` (may be null) runs around every
// client step.
void run_realtime(ServerRunner* server, ClientRunner* client, const netplay::Clock& clock,
                  netplay::Micros deadline_us, RealtimeObserver* observer = nullptr);

}  // namespace framelock::frontend
