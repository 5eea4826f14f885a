#include "frontend/session/server_runner.h"

#include <fmt/core.h>

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/log.h"
#include "frontend/session/realtime_loop.h"
#include "netplay/io/enet_transport.h"

namespace framelock::frontend {
namespace {

using netplay::Micros;

// Peer slots a session has beyond its players, spectators and joining connections
// (ServerConfig::max_joining, where a rejoining player's new connection and a newcomer find
// room however many half-open connections come): for connections saying goodbye (a refused
// client hearing why, a rejoining player's old connection) until they are gone.
constexpr std::size_t kSpareConnections = 8;
// What the transport's guard refused is logged at most this often per session.
constexpr Micros kGuardReportUs = 10'000'000;
// How often a relay's session is checked for being held idle.
constexpr Micros kIdleCheckUs = 1'000'000;
// An ended session's socket is still serviced this often, until its goodbyes are out.
constexpr Micros kEndedServiceUs = 10'000;
// Malformed traffic is logged this many times per session, then only counted.
constexpr std::uint64_t kMalformedLogLimit = 10;

}  // namespace

struct ServerRunner::Session {
    std::unique_ptr<netplay::EnetTransport> transport;
    std::unique_ptr<netplay::Server> server;
    std::uint16_t port = 0;
    bool started = false;  // its kStarted event was seen
    bool ended = false;
    Micros ended_at = 0;
    Micros wake = 0;        // the Server's next_wakeup() after its last update
    bool readable = false;  // the last wait() saw traffic on its socket
    std::uint64_t rejected = 0, malformed = 0, desyncs = 0, off_pace = 0;
    // The hybrid turned into the frame lock (its kModeChanged): since which frame, and why.
    std::string mode_change;
    // The transport's guard, and connections closed before their Hello in earlier games.
    std::uint64_t half_open_refused_before = 0, half_open_closed_before = 0;
    Micros next_guard_report = 0;
    std::uint64_t games = 1;
    std::size_t index = 0;   // in m_sessions
    Micros busy_since = -1;  // a player joined, the game has not started (idle_reset_s)
    Micros next_idle_check = 0;
};

ServerRunner::ServerRunner(const ServerRunConfig& config, const netplay::Clock& clock)
    : m_config(config), m_clock(clock), m_opened_at(clock.now_us()) {
    // One key for every session of this process: what the lobby publishes for each.
    if (!m_config.server.identity)
        m_config.server.identity = std::make_shared<const netplay::ServerIdentity>();
}

const netplay::ServerKey& ServerRunner::server_key() const {
    return m_config.server.identity->public_key();
}

ServerRunner::~ServerRunner() {
    if (m_epoll >= 0) ::close(m_epoll);
}

Result<std::unique_ptr<ServerRunner>> ServerRunner::open(const ServerRunConfig& config,
                                                         const netplay::Clock& clock) {
    if (config.sessions < 1) return make_error(ErrorCode::kUsage, "--sessions must be at least 1");
    if (config.port != 0 && config.port + config.sessions - 1 > 65535) {
        return make_error(ErrorCode::kUsage, fmt::format("ports {}..{} run past 65535", config.port,
                                                         config.port + config.sessions - 1));
    }
    std::unique_ptr<ServerRunner> runner(new ServerRunner(config, clock));
    runner->m_epoll = epoll_create1(EPOLL_CLOEXEC);
    if (runner->m_epoll < 0) {
        return make_error(ErrorCode::kIo,
                          fmt::format("cannot create an epoll instance: {}", std::strerror(errno)));
    }
    log_info("server key {} (a direct joiner checks it with --server-key)",
             netplay::server_key_text(runner->server_key()));
    for (int s = 0; s < config.sessions; ++s) {
        const int port = config.port == 0 ? 0 : config.port + s;
        auto session = std::make_unique<Session>();
        if (Status opened = runner->open_session(*session, static_cast<std::size_t>(s),
                                                 static_cast<std::uint16_t>(port));
            !opened)
            return opened.error();
        const int start_with = config.server.start_players;
        log_info("session {}: listening on {}:{} for {} players{}", s + 1, config.bind,
                 session->port, config.server.players,
                 start_with > 0 && start_with < config.server.players
                     ? fmt::format(" (starts with {}, the others may join later)", start_with)
                     : std::string());
        runner->m_sessions.push_back(std::move(session));
    }
    return runner;
}

Status ServerRunner::open_session(Session& session, std::size_t index, std::uint16_t port) {
    const netplay::ServerConfig& server = m_config.server;
    session.index = index;
    netplay::EnetOptions options;
    options.max_silent_per_address = std::max(server.max_joining_per_address, 1);
    auto transport = netplay::EnetTransport::listen(
        m_config.bind + ":" + std::to_string(port),
        static_cast<std::size_t>(server.players) +
            static_cast<std::size_t>(std::max(server.max_spectators, 0)) +
            static_cast<std::size_t>(std::max(server.max_joining, 1)) + kSpareConnections,
        options);
    if (!transport) return transport.error();
    // The old Server first: it holds a reference to the old transport.
    session.server.reset();
    session.transport = std::move(transport).value();
    session.port = session.transport->local_port();
    session.server = std::make_unique<netplay::Server>(*session.transport, m_clock, server);
    epoll_event readable{};
    readable.events = EPOLLIN;
    readable.data.u64 = static_cast<std::uint64_t>(index);
    if (epoll_ctl(m_epoll, EPOLL_CTL_ADD, session.transport->socket_fd(), &readable) != 0) {
        return make_error(ErrorCode::kIo, fmt::format("cannot watch the socket of port {}: {}",
                                                      session.port, std::strerror(errno)));
    }
    return {};
}

void ServerRunner::maybe_reopen(Session& session, Micros now) {
    std::string why;
    if (session.ended && now - session.ended_at >= kGoodbyeLingerUs) {
        why = "the game ended";
    } else if (!session.ended && !session.started && m_config.idle_reset_s > 0 &&
               now >= session.next_idle_check) {
        session.next_idle_check = now + kIdleCheckUs;
        bool busy = false;
        for (const auto& slot : session.server->slot_stats()) busy = busy || slot.connected;
        if (!busy) {
            session.busy_since = -1;
        } else if (session.busy_since < 0) {
            session.busy_since = now;
        } else if (static_cast<double>(now - session.busy_since) / 1e6 >= m_config.idle_reset_s) {
            why = fmt::format("its players started no game within {:g} s of the first joining",
                              m_config.idle_reset_s);
        }
    }
    if (why.empty()) return;
    const std::uint16_t port = session.port;
    session.half_open_closed_before += session.server->half_open().too_many +
                                       session.server->half_open().evicted +
                                       session.server->half_open().expired;
    const netplay::EnetTransport::GuardCounts guard = session.transport->guard_totals();
    session.half_open_refused_before += guard.refused + guard.evicted;
    // Closing the socket says goodbye to everyone still connected; the same port, at once.
    session.server.reset();
    session.transport.reset();
    if (Status opened = open_session(session, session.index, port); !opened) {
        log_error("port {}: {}; cannot open the session again: {}", port, why,
                  opened.error().message);
        session.ended = true;
        session.ended_at = std::numeric_limits<Micros>::max() / 2;  // never again
        return;
    }
    session.started = session.ended = false;
    session.busy_since = -1;
    ++session.games;
    log_info("port {}: session opened again for the next game ({})", port, why);
}

void ServerRunner::log_guard(Session& session, Micros now) {
    if (session.transport == nullptr || now < session.next_guard_report) return;
    const auto report = session.transport->take_guard_report();
    if (report.empty()) return;
    session.next_guard_report = now + kGuardReportUs;
    std::vector<std::pair<std::string, std::uint64_t>> by_count;
    std::uint64_t refused = 0, evicted = 0;
    for (const auto& [address, counts] : report) {
        by_count.emplace_back(address, counts.refused + counts.evicted);
        refused += counts.refused;
        evicted += counts.evicted;
    }
    std::sort(by_count.begin(), by_count.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string named;
    for (std::size_t i = 0; i < by_count.size() && i < 5; ++i)
        named += fmt::format("{}{} from {}", i ? ", " : "", by_count[i].second, by_count[i].first);
    if (by_count.size() > 5) named += fmt::format(", and {} more addresses", by_count.size() - 5);
    log_warn(
        "port {}: connections that never spoke: {} ({} requests dropped unread: over {} silent "
        "connections from one address; {} silent connections closed to make room for newcomers; "
        "next report in {} s at the earliest)",
        session.port, named, refused, std::max(m_config.server.max_joining_per_address, 1), evicted,
        kGuardReportUs / 1'000'000);
}

netplay::EnetTransport& ServerRunner::transport(std::size_t index) {
    return *m_sessions.at(index)->transport;
}

void ServerRunner::with_socket(std::size_t index,
                               const std::function<void(netplay::EnetTransport&)>& use) {
    std::lock_guard lock(m_mutex);
    use(*m_sessions.at(index)->transport);
}

std::vector<std::uint16_t> ServerRunner::ports() const {
    std::lock_guard lock(m_mutex);
    std::vector<std::uint16_t> ports;
    for (const auto& session : m_sessions) ports.push_back(session->port);
    return ports;
}

void ServerRunner::update() {
    std::lock_guard lock(m_mutex);
    const Micros now = m_clock.now_us();
    const bool selective = m_after_wait;
    m_after_wait = false;
    if (!selective) {
        for (auto& session : m_sessions) serve(*session, now);
        return;
    }
    // After a wait(): the sessions with traffic first (an input may complete a frame the
    // players wait for), then those whose timer is due (periodic updates, timeouts); a
    // session with neither has nothing to do.
    for (auto& session : m_sessions) {
        if (session->readable) serve(*session, now);
    }
    for (auto& session : m_sessions) {
        if (session->readable)
            session->readable = false;
        else if (session->wake <= now)
            serve(*session, now);
    }
}

void ServerRunner::serve(Session& session, Micros now) {
    serve_once(session, now);
    log_guard(session, now);
    if (!m_config.reuse_sessions) return;
    maybe_reopen(session, now);
    if (!session.ended && !session.started && m_config.idle_reset_s > 0)
        session.wake = std::min(session.wake, session.next_idle_check);
}

void ServerRunner::serve_once(Session& session, Micros now) {
    if (session.ended) {
        // Only the goodbyes left to send: service the socket, not the Server.
        while (session.transport->poll()) {
        }
        session.wake = now + kEndedServiceUs;
        return;
    }
    session.server->update();
    session.wake = session.server->next_wakeup();
    log_events(session);
    if (session.server->ended()) {
        session.ended = true;
        session.ended_at = m_clock.now_us();
        log_info("port {}: session ended after {} frames: every player left", session.port,
                 session.server->confirmed_frames());
    }
}

void ServerRunner::log_events(Session& session) {
    using Type = netplay::ServerEvent::Type;
    const std::uint16_t port = session.port;
    while (auto event = session.server->poll_event()) {
        m_view_events.keep(*event);
        switch (event->type) {
            case Type::kPlayerJoined:
                log_info("port {}: slot {}: {}", port, event->slot, event->message);
                break;
            case Type::kPlayerLeft:
                if (session.started) {
                    log_info("port {}: slot {}: {} (neutral input from frame {})", port,
                             event->slot, event->message, event->frame);
                } else {
                    log_info("port {}: slot {}: {}", port, event->slot, event->message);
                }
                break;
            case Type::kRejected:
                ++session.rejected;
                log_warn("port {}: refused a client: {}", port, event->message);
                break;
            case Type::kStarted:
                session.started = true;
                log_info("port {}: {}; input delay {} frames", port, event->message, event->delay);
                break;
            case Type::kDelayChanged:
                log_info("port {}: input delay {} frames from frame {}", port, event->delay,
                         event->frame);
                break;
            case Type::kDesync:
                ++session.desyncs;
                log_error("port {}: {}", port, event->message);
                break;
            case Type::kPlayerAway:
            case Type::kPlayerBack:
            case Type::kSpectatorJoined:
            case Type::kSpectatorLeft:
            case Type::kStateSent:
            case Type::kEvidence:
            case Type::kPrediction:
                log_info("port {}: {}{}", port,
                         event->slot ? fmt::format("slot {}: ", event->slot) : std::string(),
                         event->message);
                break;
            case Type::kResynced:
                log_warn("port {}: slot {}: {}", port, event->slot, event->message);
                break;
            case Type::kModeChanged:
                session.mode_change =
                    fmt::format("{} (decided at frame {})", event->message, event->frame);
                log_warn("port {}: {}", port, session.mode_change);
                break;
            case Type::kChat:
                log_info("port {}: chat: {}", port, event->message);
                break;
            case Type::kRefused:
            case Type::kConfigAdjusted:
            case Type::kHalfOpen:
                log_warn("port {}: {}", port, event->message);
                break;
            case Type::kOffPace:
                ++session.off_pace;
                log_warn("port {}: slot {}: {}", port, event->slot, event->message);
                break;
            case Type::kMalformed:
                ++session.malformed;
                if (session.malformed <= kMalformedLogLimit) {
                    log_warn("port {}: slot {}: {}{}", port, event->slot, event->message,
                             session.malformed == kMalformedLogLimit
                                 ? " (further malformed traffic is only counted)"
                                 : "");
                }
                break;
        }
    }
}

bool ServerRunner::finished() const {
    std::lock_guard lock(m_mutex);
    const Micros now = m_clock.now_us();
    if (m_config.duration_s > 0 &&
        static_cast<double>(now - m_opened_at) / 1e6 >= m_config.duration_s)
        return true;
    return std::all_of(m_sessions.begin(), m_sessions.end(), [&](const auto& session) {
        return session->ended && now - session->ended_at >= kGoodbyeLingerUs;
    });
}

Micros ServerRunner::next_wakeup() const {
    std::lock_guard lock(m_mutex);
    Micros wake = m_clock.now_us() + 1'000'000;
    for (const auto& session : m_sessions) wake = std::min(wake, session->wake);
    if (m_config.duration_s > 0) {
        wake = std::min(wake, m_opened_at + static_cast<Micros>(m_config.duration_s * 1e6));
    }
    return wake;
}

bool ServerRunner::wait(Micros max_wait) {
    m_after_wait = true;
    const Micros wait = std::max<Micros>(max_wait, 0);
    const timespec timeout{static_cast<time_t>(wait / 1'000'000),
                           static_cast<long>(wait % 1'000'000 * 1000)};
    std::vector<epoll_event> events(m_sessions.size() + 1);
    int ready =
        epoll_pwait2(m_epoll, events.data(), static_cast<int>(events.size()), &timeout, nullptr);
    if (ready < 0 && errno == ENOSYS) {
        // A kernel before 5.11: whole milliseconds, rounded up so the loop never spins.
        ready = epoll_wait(m_epoll, events.data(), static_cast<int>(events.size()),
                           static_cast<int>(std::min<Micros>((wait + 999) / 1000, 1'000'000)));
    }
    if (ready < 0) {
        // Interrupted (a signal): serve every session rather than guess.
        m_after_wait = false;
        return false;
    }
    for (int e = 0; e < ready; ++e) {
        if (events[e].data.u64 < m_sessions.size()) m_sessions[events[e].data.u64]->readable = true;
    }
    return ready > 0;
}

Status ServerRunner::watch_also(int fd) {
    epoll_event readable{};
    readable.events = EPOLLIN;
    readable.data.u64 = std::numeric_limits<std::uint64_t>::max();  // no session's
    if (epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &readable) != 0)
        return make_error(ErrorCode::kIo, fmt::format("cannot watch the player's socket: {}",
                                                      std::strerror(errno)));
    return {};
}

std::vector<ServerSessionSummary> ServerRunner::summary() const {
    std::lock_guard lock(m_mutex);
    std::vector<ServerSessionSummary> out;
    for (const auto& session : m_sessions) {
        ServerSessionSummary s;
        s.port = session->port;
        s.players = m_config.server.players;
        // What the session plays now (the hybrid may have turned into the frame lock), and
        // why: the change first, then the choice at the start.
        const netplay::SessionMode mode = session->server->mode();
        s.mode = mode == netplay::SessionMode::kRollback
                     ? (m_config.server.delay.hybrid ? "hybrid" : "rollback")
                 : mode == netplay::SessionMode::kNoWait ? "nowait"
                                                         : "framelock";
        s.mode_reason = session->mode_change.empty()
                            ? m_config.mode_reason
                            : session->mode_change + "; at the start: " + m_config.mode_reason;
        s.started = session->started;
        s.ended = session->ended;
        s.confirmed_frames = session->server->confirmed_frames();
        s.schedule = session->server->schedule();
        s.keyframes = session->server->keyframes();
        s.path_floor = session->server->path_floor();
        s.predicted_frames = session->server->predicted_frames();
        s.slots = session->server->slot_stats();
        s.rejected = session->rejected;
        s.off_pace = session->off_pace;
        s.malformed = session->malformed;
        s.desyncs = session->desyncs;
        const netplay::Admission::HalfOpen closed = session->server->half_open();
        s.half_open_closed =
            session->half_open_closed_before + closed.too_many + closed.evicted + closed.expired;
        const netplay::EnetTransport::GuardCounts guard = session->transport->guard_totals();
        s.half_open_refused = session->half_open_refused_before + guard.refused + guard.evicted;
        s.games = session->games;
        s.host_traffic = session->transport->host_stats();
        out.push_back(std::move(s));
    }
    return out;
}

std::optional<netplay::ServerEvent> ServerRunner::poll_view_event() {
    std::lock_guard lock(m_mutex);
    return m_view_events.poll();
}

std::vector<bool> ServerRunner::sessions_busy() const {
    std::lock_guard lock(m_mutex);
    std::vector<bool> out;
    for (const auto& session : m_sessions) {
        bool busy = session->started || session->ended;
        for (const auto& slot : session->server->slot_stats()) busy = busy || slot.connected;
        out.push_back(busy);
    }
    return out;
}

}  // namespace framelock::frontend
