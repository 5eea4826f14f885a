#include "frontend/session/server_runner.h"

#include <fmt/core.h>

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "common/log.h"
#include "frontend/session/realtime_loop.h"
#include "netplay/io/enet_transport.h"

namespace framelock::frontend {
namespace {

using netplay::Micros;

// Connections a session accepts beyond its players and spectators: room for clients that
// are refused (wrong game, full) so they hear why instead of timing out, and for a
// rejoining player whose old connection has not timed out yet.
constexpr std::size_t kSpareConnections = 8;
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
};

ServerRunner::ServerRunner(const ServerRunConfig& config, const netplay::Clock& clock)
    : m_config(config), m_clock(clock), m_opened_at(clock.now_us()) {}

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
    for (int s = 0; s < config.sessions; ++s) {
        const int port = config.port == 0 ? 0 : config.port + s;
        auto transport = netplay::EnetTransport::listen(
            config.bind + ":" + std::to_string(port),
            static_cast<std::size_t>(config.server.players) +
                static_cast<std::size_t>(std::max(config.server.max_spectators, 0)) +
                kSpareConnections);
        if (!transport) return transport.error();
        auto session = std::make_unique<Session>();
        session->transport = std::move(transport).value();
        session->port = session->transport->local_port();
        session->server =
            std::make_unique<netplay::Server>(*session->transport, clock, config.server);
        epoll_event readable{};
        readable.events = EPOLLIN;
        readable.data.u64 = static_cast<std::uint64_t>(s);
        if (epoll_ctl(runner->m_epoll, EPOLL_CTL_ADD, session->transport->socket_fd(), &readable) !=
            0) {
            return make_error(ErrorCode::kIo, fmt::format("cannot watch the socket of port {}: {}",
                                                          session->port, std::strerror(errno)));
        }
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

netplay::EnetTransport& ServerRunner::transport(std::size_t index) {
    return *m_sessions.at(index)->transport;
}

std::vector<std::uint16_t> ServerRunner::ports() const {
    std::vector<std::uint16_t> ports;
    for (const auto& session : m_sessions) ports.push_back(session->port);
    return ports;
}

void ServerRunner::update() {
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
                log_info("port {}: {}{}", port,
                         event->slot ? fmt::format("slot {}: ", event->slot) : std::string(),
                         event->message);
                break;
            case Type::kResynced:
                log_warn("port {}: slot {}: {}", port, event->slot, event->message);
                break;
            case Type::kRefused:
            case Type::kConfigAdjusted:
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
    const Micros now = m_clock.now_us();
    if (m_config.duration_s > 0 &&
        static_cast<double>(now - m_opened_at) / 1e6 >= m_config.duration_s)
        return true;
    return std::all_of(m_sessions.begin(), m_sessions.end(), [&](const auto& session) {
        return session->ended && now - session->ended_at >= kGoodbyeLingerUs;
    });
}

Micros ServerRunner::next_wakeup() const {
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
    std::vector<ServerSessionSummary> out;
    for (const auto& session : m_sessions) {
        ServerSessionSummary s;
        s.port = session->port;
        s.players = m_config.server.players;
        s.started = session->started;
        s.ended = session->ended;
        s.confirmed_frames = session->server->confirmed_frames();
        s.schedule = session->server->schedule();
        s.keyframes = session->server->keyframes();
        s.path_floor = session->server->path_floor();
        s.slots = session->server->slot_stats();
        s.rejected = session->rejected;
        s.off_pace = session->off_pace;
        s.malformed = session->malformed;
        s.desyncs = session->desyncs;
        s.host_traffic = session->transport->host_stats();
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<bool> ServerRunner::sessions_busy() const {
    std::vector<bool> out;
    for (const auto& session : m_sessions) {
        bool busy = session->started || session->ended;
        for (const auto& slot : session->server->slot_stats()) busy = busy || slot.connected;
        out.push_back(busy);
    }
    return out;
}

}  // namespace framelock::frontend
