// `framelock server` and the server half of `framelock host`: one netplay::Server per
// session port, all in one process and one loop (run by run_realtime,
// frontend/session/realtime_loop.h), each session's events logged, its statistics summarized at the
// end (frontend/session/session_summary.h).
//
// Threading: one thread runs the loop (update() and wait(): the caller's, or for a host a
// thread of its own, frontend/session/server_thread.h); every other public function may be
// called from another thread meanwhile: they and update() take one lock. transport() is for
// before and after the loop only (with_socket() while it runs).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "frontend/session/session_summary.h"
#include "frontend/session/view_events.h"
#include "netplay/base/result.h"
#include "netplay/interfaces/clock.h"
#include "netplay/io/enet_transport.h"
#include "netplay/server/server.h"

namespace framelock::frontend {

struct ServerRunConfig {
    std::string bind = "0.0.0.0";  // IPv4 address to listen on
    std::uint16_t port = 0;        // first session's port; 0: the OS picks for every session
    int sessions = 1;              // sessions on ports port .. port + sessions - 1
    // Players, hash interval, delay policy; the identity (null: the runner makes one).
    netplay::ServerConfig server;
    double duration_s = 0;  // stop after this long; 0: until every session ended
    // A relay's sessions (`server --lobby`): a session that ended is opened again for the next
    // game (a new socket on its port: whoever is still connected goes), and so is one whose
    // players have not started a game idle_reset_s after the first joined (0: never). A
    // stranger can neither end a relay's session for good nor hold it idle.
    bool reuse_sessions = false;
    double idle_reset_s = 600;
    // Why the session plays its mode (frontend/app/mode_choice.h), for the log and the stats.
    std::string mode_reason;
};

class ServerRunner {
  public:
    // Binds every session's socket. kUsage error naming the address when one cannot be bound.
    static Result<std::unique_ptr<ServerRunner>> open(const ServerRunConfig& config,
                                                      const netplay::Clock& clock);
    ~ServerRunner();

    // The key every session's Welcome is signed with (ServerRunConfig::server.identity, or
    // one made for this runner): what the lobby publishes and direct joiners pin.
    const netplay::ServerKey& server_key() const;
    // The bound port of each session, in order.
    std::vector<std::uint16_t> ports() const;
    // Session `index`'s socket, for the datagrams beside ENet (hole punching,
    // frontend/reach/host_rendezvous.h). The runner keeps servicing it.
    netplay::EnetTransport& transport(std::size_t index);
    // Runs `use` on session `index`'s socket under the runner's lock: the rendezvous of a host
    // whose server runs on a thread of its own, stepped from the player's loop.
    void with_socket(std::size_t index, const std::function<void(netplay::EnetTransport&)>& use);

    // Runs every session's timers and traffic once and logs their events. Never blocks.
    void update();
    // True once every session ended (and its goodbyes had time to go out) or the duration
    // passed.
    bool finished() const;
    // When update() next has work to do.
    netplay::Micros next_wakeup() const;
    // Sleeps up to `max_wait` or until any session's socket has traffic; true if one has.
    // The update() after it then serves only the sessions with traffic or due timers (a
    // server with hundreds of sessions does not service every socket on every datagram);
    // an update() without a wait() before it serves every session.
    bool wait(netplay::Micros max_wait);
    // Also wakes wait() when `fd` is readable (ServerThread's eventfd, which stops it).
    Status watch_also(int fd);

    std::vector<ServerSessionSummary> summary() const;
    // Per session: whether it is taken (a player is connected, or it ended and takes no new
    // game). What `server --lobby` reports as each session's load.
    std::vector<bool> sessions_busy() const;

    // The events update() logged, for a player's window (the newest 64 are kept).
    std::optional<netplay::ServerEvent> poll_view_event();

  private:
    struct Session;
    ServerRunner(const ServerRunConfig& config, const netplay::Clock& clock);
    // Session `index`'s socket (bound to `port`, 0: the OS picks) and Server, in `session`.
    Status open_session(Session& session, std::size_t index, std::uint16_t port);
    // reuse_sessions: opens an ended or idle session again.
    void maybe_reopen(Session& session, netplay::Micros now);
    // The transport's guard (half-open floods): what it refused, logged every 10 s at most.
    void log_guard(Session& session, netplay::Micros now);
    // serve_once(), then the guard's log and, for a relay, a new game where one is due.
    void serve(Session& session, netplay::Micros now);
    // Runs one session's Server (or, once it ended, services its socket) and logs events.
    void serve_once(Session& session, netplay::Micros now);
    void log_events(Session& session);

    // Taken by update() and by every public function that reads or changes what it does
    // (all but wait(), watch_also(), transport() and server_key()): what the loop's thread
    // changes, another thread reads only under it.
    mutable std::mutex m_mutex;
    ServerRunConfig m_config;
    const netplay::Clock& m_clock;
    netplay::Micros m_opened_at = 0;
    std::vector<std::unique_ptr<Session>> m_sessions;
    ViewEvents<netplay::ServerEvent> m_view_events;
    int m_epoll = -1;  // every session's socket, readable = traffic
    // wait() ran since the last update(): its readiness counts. Session::readable and this
    // are the loop thread's alone (wait() writes them without the lock).
    bool m_after_wait = false;
};

}  // namespace framelock::frontend
