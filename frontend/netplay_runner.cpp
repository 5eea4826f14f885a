#include "frontend/netplay_runner.h"

#include <fmt/core.h>
#include <map>
#include <nlohmann/json.hpp>

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include "frontend/log.h"
#include "frontend/progress.h"
#include "frontend/stop_signal.h"
#include "netplay/evidence.h"
#include "netplay/state_hash.h"

namespace framelock::frontend {
namespace {

using netplay::Micros;
using Json = nlohmann::ordered_json;

// Connections a session accepts beyond its players and spectators: room for clients that
// are refused (wrong game, full) so they hear why instead of timing out, and for a
// rejoining player whose old connection has not timed out yet.
constexpr std::size_t kSpareConnections = 8;
// After a session ends (or this client leaves), keep servicing the socket this long so
// ENet gets the goodbyes out: the transport's own linger plus a round trip or two.
constexpr Micros kGoodbyeLingerUs = netplay::kCloseLingerUs + 300'000;
// An ended session's socket is still serviced this often, until its goodbyes are out.
constexpr Micros kEndedServiceUs = 10'000;
// While a due frame waits for inputs, the loop sleeps on the socket; this bounds the sleep
// so the client's own timers (input resends) still run.
constexpr Micros kStallWaitUs = 4'000;
// Malformed traffic is logged this many times per session, then only counted.
constexpr std::uint64_t kMalformedLogLimit = 10;
// Events kept for a player's window; more would only be ones it never polled.
constexpr std::size_t kViewEventLimit = 64;

template <class Event>
void keep_view_event(std::deque<Event>& events, const Event& event) {
    events.push_back(event);
    if (events.size() > kViewEventLimit) events.pop_front();
}

double seconds(Micros us) {
    return static_cast<double>(us) / 1e6;
}

Json traffic_json(const netplay::PeerStats& s) {
    return {{"wire_bytes_sent", s.wire_bytes_sent},
            {"wire_bytes_received", s.wire_bytes_received},
            {"datagrams_sent", s.datagrams_sent},
            {"datagrams_received", s.datagrams_received},
            {"payload_bytes_sent", s.payload_bytes_sent},
            {"payload_bytes_received", s.payload_bytes_received}};
}

// The schedule reduced to its changes: the delay from each listed frame on.
// How late, on average, a frame ran after its scheduled time: with the delay, the
// input-to-screen lag a player feels.
double mean_lateness_ms(const netplay::ClientStatsSnapshot& stats) {
    return stats.frames_run ? static_cast<double>(stats.lateness_total_us) / stats.frames_run / 1e3
                            : 0.0;
}

std::string slot_list(std::uint8_t slots) {
    std::string text;
    for (int s = 0; s < netplay::kMaxPlayers; ++s) {
        if (slots & (1u << s)) text += (text.empty() ? "" : ", ") + std::to_string(s + 1);
    }
    return text.empty() ? "-" : text;
}

}  // namespace

TrafficRates traffic_rates(const netplay::PeerStats& start, const netplay::PeerStats& end,
                           double interval_s) {
    if (interval_s <= 0) return {};
    const auto rate = [interval_s](std::uint64_t from, std::uint64_t to) {
        return static_cast<double>(to - from) / interval_s;
    };
    return {rate(start.wire_bytes_sent, end.wire_bytes_sent),
            rate(start.wire_bytes_received, end.wire_bytes_received),
            rate(start.datagrams_sent, end.datagrams_sent),
            rate(start.datagrams_received, end.datagrams_received),
            rate(start.payload_bytes_sent, end.payload_bytes_sent),
            rate(start.payload_bytes_received, end.payload_bytes_received)};
}

netplay::SessionIdentity session_identity(const RetroEmulator& emulator) {
    netplay::SessionIdentity id;
    id.core_name = emulator.core_info().library_name;
    id.core_version = emulator.core_info().library_version;
    id.content_hash = emulator.content_hash();
    id.options_hash = emulator.options().hash();
    id.fps_milli = static_cast<std::uint32_t>(std::lround(emulator.frames_per_second() * 1000.0));
    id.ports = static_cast<std::uint8_t>(emulator.ports());
    return id;
}

// ---------------------------------------------------------------------------------------
// Server

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
        keep_view_event(m_view_events, *event);
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
    if (m_config.duration_s > 0 && seconds(now - m_opened_at) >= m_config.duration_s) return true;
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

std::optional<netplay::ServerEvent> ServerRunner::poll_view_event() {
    if (m_view_events.empty()) return std::nullopt;
    netplay::ServerEvent event = std::move(m_view_events.front());
    m_view_events.pop_front();
    return event;
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

void print_server_summary(std::FILE* out, const std::vector<ServerSessionSummary>& sessions) {
    for (const auto& s : sessions) {
        fmt::print(out, "session  port {}: {}, {} frames confirmed\n", s.port,
                   !s.started ? "never started"
                   : s.ended  ? "ended"
                              : "still running at exit",
                   s.confirmed_frames);
        if (!s.schedule.empty()) {
            std::string delays;
            for (const auto& entry : s.schedule)
                delays +=
                    fmt::format("{}{}@{}", delays.empty() ? "" : ", ", entry.delay, entry.frame);
            fmt::print(out, "delay    {} (frames@from frame)\n", delays);
        }
        for (const auto& slot : s.slots) {
            fmt::print(out,
                       "slot {}   {}: {} frames, {} stall frames, RTT {:.1f} ms, {} datagrams "
                       "({} lost up), {} malformed, {}\n",
                       slot.slot, slot.name, slot.frames_run, slot.stall_frames, slot.srtt / 1000.0,
                       slot.datagrams_received, slot.datagrams_lost_up, slot.malformed,
                       slot.connected ? "connected" : "left");
        }
        fmt::print(
            out, "traffic  {} B sent, {} B received (wire); {} refused, {} malformed, {} desyncs\n",
            s.host_traffic.wire_bytes_sent, s.host_traffic.wire_bytes_received, s.rejected,
            s.malformed, s.desyncs);
    }
}

std::string server_summary_json(const std::vector<ServerSessionSummary>& sessions) {
    Json list = Json::array();
    for (const auto& s : sessions) {
        Json schedule = Json::array();
        const auto& changes = s.schedule;
        int min_delay = 0, max_delay = 0;
        for (std::size_t i = 0; i < changes.size(); ++i) {
            schedule.push_back({{"frame", changes[i].frame}, {"delay", changes[i].delay}});
            min_delay = i == 0 ? changes[i].delay : std::min<int>(min_delay, changes[i].delay);
            max_delay = std::max<int>(max_delay, changes[i].delay);
        }
        Json slots = Json::array();
        for (const auto& slot : s.slots) {
            slots.push_back({{"slot", slot.slot},
                             {"name", slot.name},
                             {"connected", slot.connected},
                             {"srtt_us", slot.srtt},
                             {"rttvar_us", slot.rttvar},
                             {"frames_run", slot.frames_run},
                             {"stall_frames", slot.stall_frames},
                             {"datagrams_received", slot.datagrams_received},
                             {"datagrams_lost_up", slot.datagrams_lost_up},
                             {"malformed", slot.malformed},
                             {"server_srtt_us", slot.server_srtt},
                             {"server_rttvar_us", slot.server_rttvar},
                             {"round_trip_reports",
                              {{"used", slot.reports_used},
                               {"inflated", slot.reports_inflated},
                               {"hiccup", slot.reports_hiccup}}},
                             {"redundant", slot.redundant},
                             {"clock",
                              {{"rate_error", slot.clock_rate_error ? Json(*slot.clock_rate_error)
                                                                    : Json(nullptr)},
                               {"refused", slot.clock_refused},
                               {"off_pace", slot.off_pace}}},
                             {"traffic", traffic_json(slot.traffic)}});
        }
        list.push_back({{"port", s.port},
                        {"players", s.players},
                        {"started", s.started},
                        {"ended", s.ended},
                        {"confirmed_frames", s.confirmed_frames},
                        {"delay",
                         {{"initial", changes.empty() ? 0 : changes.front().delay},
                          {"min", min_delay},
                          {"max", max_delay},
                          {"final", changes.empty() ? 0 : changes.back().delay},
                          {"changes", changes.empty() ? 0 : changes.size() - 1},
                          {"path_floor", s.path_floor}}},
                        {"schedule", schedule},
                        {"keyframes", s.keyframes},
                        {"slots", slots},
                        {"rejected", s.rejected},
                        {"off_pace", s.off_pace},
                        {"malformed", s.malformed},
                        {"desyncs", s.desyncs},
                        {"traffic", traffic_json(s.host_traffic)}});
    }
    return Json{{"sessions", list}}.dump(2) + "\n";
}

// ---------------------------------------------------------------------------------------
// Client

// The emulator the netplay client drives: the real one, plus a hash-log line after every
// frame and a copy of the picture of one frame (which is presented even when the client
// fast-forwards through it).
class ClientRunner::RecordingEmulator final : public netplay::Emulator {
  public:
    // `record`: a replay will be asked for, so frames are kept from the first one on (a
    // late joiner runs frames in the very tick its state arrives, before the runner has
    // seen the event and opened the file).
    RecordingEmulator(RetroEmulator& inner, HashLogWriter* log, std::uint64_t log_frames,
                      const HeadlessVideo* video, std::optional<std::uint64_t> picture_frame,
                      bool record)
        : m_inner(inner),
          m_log(log),
          m_log_frames(log_frames),
          m_video(video),
          m_picture_frame(picture_frame),
          m_record(record) {}

    void run_frame(const netplay::InputFrame& inputs, bool present) override {
        const std::uint64_t frame = m_inner.frame_count();
        const bool picture = m_video && m_picture_frame == frame;
        m_inner.run_frame(inputs, present || picture);
        m_ran_any = true;
        // Frames beyond the requested count can run in the last catch-up tick; the log
        // stops at the count so logs of equal runs have equal length. A frame run again
        // (rollback) replaces its line; lines are written once final (flush_log). A frame
        // already written is not written again: a desync repair re-runs final frames from
        // the reference state, and the log keeps what this emulator computed the first
        // time (the replay must stay contiguous, too).
        if ((m_log || m_record) && (m_log_frames == 0 || frame < m_log_frames) &&
            frame >= m_flushed_end) {
            // The evidence the server compares (the state without the bytes a load moves):
            // logs of two players compare like their hash reports.
            std::uint64_t hash = 0;
            std::uint16_t generation = 0;
            if (m_client) {
                const netplay::EvidenceMask& mask =
                    m_client->evidence_mask_at(static_cast<std::uint32_t>(frame));
                hash = netplay::evidence_hash(m_inner, mask, m_scratch);
                generation = mask.generation;
                if (generation > m_newest_mask) {
                    // A replay says from which frame its hashes used this mask: this one.
                    m_newest_mask = generation;
                    m_masks_used.push_back(mask);
                    m_masks_used.back().from_frame = static_cast<std::uint32_t>(frame);
                }
            } else {
                hash = m_inner.state_hash();
            }
            m_lines[frame] = {inputs, hash, generation};
        }
        if (picture) m_picture = to_image(m_video->last_frame());
    }
    void rewind_to(std::uint64_t next_frame) override {
        m_inner.rewind_to(next_frame);
        // A rewind before any frame ran is a late join loading the session's state: the
        // state a replay of this client has to start from. (Rollback and repairs rewind
        // only after frames ran.)
        if (m_record && !m_ran_any) {
            m_start_frame = next_frame;
            if (!m_inner.save_state(m_start_state)) m_start_state.clear();
        }
    }
    // Writes the hash-log lines and replay frames of frames [.., final_frames): those that
    // will not run again.
    void flush_log(std::uint64_t final_frames) {
        m_flushed_end = std::max(m_flushed_end, final_frames);
        bool wrote = false;
        while (!m_lines.empty() && m_lines.begin()->first < final_frames) {
            const auto& [frame, entry] = *m_lines.begin();
            if (m_log) {
                m_log->write_line(std::to_string(frame) + ' ' + netplay::hash_to_hex(entry.hash));
                ++m_logged;
                wrote = true;
            }
            while (m_replay && m_masks_written < m_masks_used.size() &&
                   m_masks_used[m_masks_written].generation <= entry.generation) {
                if (Status s = m_replay->add_mask(m_masks_used[m_masks_written]); !s) {
                    log_error("{}; recording stopped", s.error().message);
                    m_replay = nullptr;
                }
                ++m_masks_written;
            }
            if (m_replay) {
                if (Status s = m_replay->add({entry.inputs, entry.hash}); !s) {
                    log_error("{}; recording stopped", s.error().message);
                    m_replay = nullptr;
                }
            }
            m_lines.erase(m_lines.begin());
        }
        // Once per step, not per line: a live session's log is watched while it grows (a
        // rejoin is checked against it), and 60 small writes a second cost nothing.
        if (wrote) m_log->flush();
    }
    // The client whose evidence masks the log's hashes follow.
    void set_client(const netplay::Client* client) { m_client = client; }
    // Frames are recorded from now on (from the first frame: set before the session starts
    // or, for a late joiner, before its first frame is flushed).
    void record_to(ReplayWriter* replay) {
        m_replay = replay;
        m_record = replay != nullptr;
    }
    // A late joiner's first frame and the state it loaded for it (empty: none captured).
    std::uint64_t start_frame() const { return m_start_frame; }
    const std::vector<std::uint8_t>& start_state() const { return m_start_state; }
    std::uint64_t frame_count() const override { return m_inner.frame_count(); }
    bool save_state(std::vector<std::uint8_t>& out) override { return m_inner.save_state(out); }
    bool load_state(std::span<const std::uint8_t> state) override {
        return m_inner.load_state(state);
    }
    std::uint64_t state_hash() override { return m_inner.state_hash(); }
    std::vector<netplay::MemoryRegion> memory_regions() override {
        return m_inner.memory_regions();
    }
    double frames_per_second() const override { return m_inner.frames_per_second(); }

    std::uint64_t logged() const { return m_logged; }
    const Image& picture() const { return m_picture; }

  private:
    RetroEmulator& m_inner;
    HashLogWriter* m_log;
    std::uint64_t m_log_frames;
    const HeadlessVideo* m_video;
    std::optional<std::uint64_t> m_picture_frame;
    std::uint64_t m_logged = 0;
    struct Line {
        netplay::InputFrame inputs;
        std::uint64_t hash = 0;
        std::uint16_t generation = 0;  // of the evidence mask it was hashed with
    };
    std::map<std::uint64_t, Line> m_lines;  // frames run, not yet final
    ReplayWriter* m_replay = nullptr;
    bool m_record = false;
    bool m_ran_any = false;
    std::uint64_t m_flushed_end = 0;  // frames [0, this) are written
    const netplay::Client* m_client = nullptr;
    std::vector<std::uint8_t> m_scratch;
    // The evidence masks hashes were computed with, each from the first frame it was used
    // at (a replay records them), and how many of them the replay has.
    std::uint16_t m_newest_mask = 0;
    std::vector<netplay::EvidenceMask> m_masks_used;
    std::size_t m_masks_written = 0;
    std::uint64_t m_start_frame = 0;
    std::vector<std::uint8_t> m_start_state;
    Image m_picture;
};

ClientRunner::ClientRunner(RetroEmulator& emulator, InputSource& input, const netplay::Clock& clock,
                           ClientRunConfig config)
    : m_emulator(emulator), m_input(input), m_clock(clock), m_config(std::move(config)) {}

ClientRunner::~ClientRunner() {
    // The client borrows the emulator's video sink; do not leave it pointing here.
    if (m_config.screenshot_frame) m_emulator.set_video_sink(m_video.forwards_to());
}

Result<std::unique_ptr<ClientRunner>> ClientRunner::create(RetroEmulator& emulator,
                                                           InputSource& input,
                                                           const netplay::Clock& clock,
                                                           const ClientRunConfig& config) {
    std::unique_ptr<ClientRunner> runner(new ClientRunner(emulator, input, clock, config));
    if (!config.hash_log.empty()) {
        auto log = HashLogWriter::open(config.hash_log, false);
        if (!log) return log.error();
        runner->m_hash_log = std::move(log).value();
    }
    if (config.screenshot_frame) {
        if (config.screenshot_path.empty())
            return make_error(ErrorCode::kUsage, "a screenshot frame needs a file to write to");
        runner->m_video.keep_last_frame(true);
        // A window keeps getting every picture.
        runner->m_video.forward_to(emulator.video_sink());
        emulator.set_video_sink(&runner->m_video);
    }
    runner->m_recording =
        std::make_unique<RecordingEmulator>(emulator, runner->m_hash_log.get(), config.frames,
                                            config.screenshot_frame ? &runner->m_video : nullptr,
                                            config.screenshot_frame, !config.record_path.empty());

    auto transport = netplay::EnetTransport::client();
    if (!transport) return transport.error();
    runner->m_transport = std::move(transport).value();

    netplay::ClientConfig client;
    client.server_address = config.server_address;
    client.requested_slot = static_cast<std::uint8_t>(config.slot);
    client.player_name = config.player_name;
    client.content_name = config.content_name;
    client.identity = session_identity(emulator);
    client.server_timeout_us = config.server_timeout_us;
    client.role = config.spectate ? netplay::Role::kSpectator : netplay::Role::kPlayer;
    client.password = config.password;
    if (!config.spectate && config.rejoin_file != "-") {
        // The token of the slot an earlier run held (it crashed): the server gives it back.
        auto file = config.rejoin_file.empty() ? RejoinFile::open_free(RejoinFile::default_path(
                                                     config.server_address, config.player_name))
                                               : RejoinFile::open(config.rejoin_file);
        if (!file && !config.rejoin_file.empty()) return file.error();
        if (!file) {
            log_warn("{}; the rejoin token stays in memory only", file.error().message);
        } else {
            runner->m_rejoin_file = std::move(file).value();
            client.rejoin_token = runner->m_rejoin_file->token();
            log_info("rejoin token kept in {}{}", runner->m_rejoin_file->path().string(),
                     client.rejoin_token ? " (holds one: asking for that slot back)" : "");
        }
    }
    // Exactly the frames asked for, even when catching up runs several in one tick.
    client.stop_at_frame = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(config.frames, std::numeric_limits<std::uint32_t>::max()));
    runner->m_client = std::make_unique<netplay::Client>(*runner->m_transport, clock,
                                                         *runner->m_recording, client);
    runner->m_recording->set_client(runner->m_client.get());
    runner->m_summary.frames_requested = config.frames;
    runner->m_summary.spectator = config.spectate;
    runner->m_created_at = clock.now_us();
    log_info("connecting to {} as {} '{}' ({} {}, content {}, options {})", config.server_address,
             config.spectate ? "spectator" : "player", config.player_name,
             client.identity.core_name, client.identity.core_version,
             netplay::hash_to_hex(client.identity.content_hash),
             netplay::hash_to_hex(client.identity.options_hash));
    runner->m_client->start();
    if (runner->m_client->state() == netplay::Client::State::kEnded)
        return make_error(ErrorCode::kUsage, runner->m_client->end_reason());
    return runner;
}

void ClientRunner::step() {
    const Micros now = m_clock.now_us();
    if (m_left) {
        // Only services the socket now, so the goodbye goes out.
        m_client->tick(0);
        while (auto event = m_client->poll_event()) handle_event(*event);
        return;
    }
    // The client samples the pad on the session's timeline, not on emulation progress:
    // a script or bot is read for the frame being sampled.
    const netplay::InputWord pad = m_input.input_for(m_client->next_sample_frame()).pads[0];
    m_last_ran = m_client->tick(pad);
    // Events first: a late joiner's replay is opened on kJoined, before the frames it ran
    // in the same tick are flushed to it.
    while (auto event = m_client->poll_event()) handle_event(*event);
    if (!m_left && (m_client->state() == netplay::Client::State::kJoining ||
                    m_client->receiving_start_state()))
        show_transfer_progress();
    m_recording->flush_log(m_client->final_frames());
    if (!m_left && m_config.frames > 0 && m_client->final_frames() >= m_config.frames) {
        end_of_play(now);
        m_summary.completed = true;
        leave("finished " + std::to_string(m_config.frames) + " frames");
    }
}

void ClientRunner::leave(const std::string& reason) {
    if (m_left) return;
    end_of_play(m_clock.now_us());
    if (m_config.frames == 0 && m_summary.started) m_summary.completed = true;
    m_client->leave(reason);
    while (auto event = m_client->poll_event()) handle_event(*event);
    m_left = true;
    // Left on purpose: there is no slot to take back.
    if (m_rejoin_file) m_rejoin_file->remove();
    m_linger_until = m_clock.now_us() + kGoodbyeLingerUs;
}

void ClientRunner::end_of_play(Micros now) {
    if (m_ended_at >= 0) return;
    m_ended_at = now;
    m_summary.stats = m_client->stats();
    m_summary.round_trip_median = m_client->round_trip_quantile(0.5);
    m_summary.round_trip_p99 = m_client->round_trip_quantile(0.99);
    m_traffic_at_end = m_summary.stats.traffic;
}

void ClientRunner::note_delay(int delay) {
    if (!m_delay_seen) {
        m_delay_seen = true;
        m_summary.delay_initial = m_summary.delay_min = m_summary.delay_max = delay;
    } else if (delay != m_summary.delay_final) {
        ++m_summary.delay_changes;
    }
    m_summary.delay_min = std::min(m_summary.delay_min, delay);
    m_summary.delay_max = std::max(m_summary.delay_max, delay);
    m_summary.delay_final = delay;
}

std::optional<netplay::ClientEvent> ClientRunner::poll_view_event() {
    if (m_view_events.empty()) return std::nullopt;
    netplay::ClientEvent event = std::move(m_view_events.front());
    m_view_events.pop_front();
    return event;
}

void ClientRunner::handle_event(const netplay::ClientEvent& event) {
    using Type = netplay::ClientEvent::Type;
    const Micros now = m_clock.now_us();
    keep_view_event(m_view_events, event);
    switch (event.type) {
        case Type::kWelcome:
            m_summary.slot = m_client->slot();
            m_summary.name = m_client->display_name();
            m_summary.players = m_client->players();
            m_summary.rollback = m_client->mode() == netplay::SessionMode::kRollback;
            // Cores like FBNeo switch to netplay-safe savestates when told.
            if (m_summary.rollback)
                m_emulator.set_savestate_context(RETRO_SAVESTATE_CONTEXT_ROLLBACK_NETPLAY);
            log_info("joined {}: slot {} of {}", m_config.server_address, m_client->slot(),
                     m_client->players());
            if (m_client->display_name() != m_config.player_name) {
                log_info("playing as '{}': another player here goes by '{}'",
                         m_client->display_name(), m_config.player_name);
            }
            if (m_rejoin_file) {
                if (const auto token = m_client->rejoin_token()) {
                    if (auto written = m_rejoin_file->write(*token); !written)
                        log_warn("{}: after a crash this slot cannot be taken back",
                                 written.error().message);
                }
            }
            if (static_cast<unsigned>(m_client->players()) > m_config.ports) {
                log_warn(
                    "the session has {} players but this emulator has {} controller ports "
                    "(--ports): the pads of slots above {} do nothing here",
                    m_client->players(), m_config.ports, m_config.ports);
            }
            break;
        case Type::kRejected:
            m_summary.rejected = true;
            log_error("the server refused this client: {}", event.message);
            // A file made for this run and never given a token is of no use to the next.
            if (m_rejoin_file && !m_rejoin_file->token()) m_rejoin_file->remove();
            break;
        case Type::kStarted: {
            m_summary.started = true;
            m_started_at = now;
            if (!m_config.record_path.empty()) open_replay(0, m_common_start);
            m_traffic_at_start = m_client->stats().traffic;
            const double frame_ms = 1000.0 / m_emulator.frames_per_second();
            log_info("session started: input delay {} frames ({:.0f} ms)", event.delay,
                     event.delay * frame_ms);
            note_delay(event.delay);
            break;
        }
        case Type::kDelayChanged:
            log_info("input delay {} frames from frame {}", event.delay, event.frame);
            note_delay(event.delay);
            break;
        case Type::kPlayerLeft:
            log_info("slot {} left, neutral input from frame {}: {}", event.slot, event.frame,
                     event.message);
            break;
        case Type::kDesync:
            ++m_summary.desyncs;
            if (!m_summary.first_desync_frame) m_summary.first_desync_frame = event.frame;
            log_error("desync at frame {}: slot(s) {} differ from the majority", event.frame,
                      slot_list(event.differing_slots));
            break;
        case Type::kJoining:
            log_info("{}", event.message);
            m_transfer_on_tty = isatty(2) && log_level() <= LogLevel::kInfo;
            break;
        case Type::kJoined: {
            show_transfer_progress(1.0);
            if (m_transfer_bar) m_transfer_bar->done();
            m_summary.started = true;
            m_summary.late_join = true;
            m_summary.first_frame = event.frame;
            m_summary.join_seconds = seconds(now - m_created_at);
            m_started_at = now;
            m_traffic_at_start = m_client->stats().traffic;
            log_info("{} ({:.1f} ms after connecting; input delay {} frames)", event.message,
                     m_summary.join_seconds * 1000, event.delay);
            note_delay(event.delay);
            if (!m_config.record_path.empty()) {
                if (m_recording->start_state().empty() ||
                    m_recording->start_frame() != event.frame) {
                    log_error(
                        "cannot record this late join: the state of frame {} was not captured; "
                        "the session is not recorded",
                        event.frame);
                } else {
                    open_replay(event.frame, m_recording->start_state());
                }
            }
            break;
        }
        case Type::kResynced:
            log_warn("{}", event.message);
            break;
        case Type::kStateError:
            log_error("state transfer: {}", event.message);
            break;
        case Type::kStartLoaded:
            show_transfer_progress(1.0);
            if (m_transfer_bar) m_transfer_bar->done();
            m_transfer_bar.reset();
            m_transfer_quarter = 0;
            log_info("{}", event.message);
            // A replay starts from the same bytes (no frame has run yet).
            if (!m_config.record_path.empty() && !m_emulator.save_state(m_common_start))
                m_common_start.clear();
            break;
        case Type::kDisconnected:
            end_of_play(now);
            m_summary.end_reason = event.message;
            // The server ended the session or gave the slot up: its token opens nothing.
            if (m_rejoin_file && m_client->closed_by_server()) m_rejoin_file->remove();
            if (m_left || m_summary.completed) {
                log_info("left the session at frame {}: {}", event.frame, event.message);
            } else if (m_summary.rejected) {
                // Already said why.
            } else {
                log_error("disconnected at frame {}: {}", event.frame, event.message);
            }
            if (!m_left) {
                m_left = true;
                m_linger_until = now;  // the server is gone or has dropped us
            }
            break;
    }
}

void ClientRunner::open_replay(std::uint32_t start_frame, std::vector<std::uint8_t> start_state) {
    netplay::ReplayHeader header;
    header.identity = session_identity(m_emulator);
    header.players = static_cast<std::uint8_t>(m_client->players());
    // A late joiner's replay starts from the state it was sent: the format carries a start
    // state, and `replay play` loads it before the first frame.
    header.start_frame = start_frame;
    header.start_state = std::move(start_state);
    auto writer = ReplayWriter::open(m_config.record_path, header);
    if (writer) {
        m_replay = std::move(writer).value();
        m_recording->record_to(m_replay.get());
        if (start_frame > 0) {
            log_info("recording the session to {} from frame {} (with its {}-byte state)",
                     m_config.record_path, start_frame, header.start_state.size());
        } else {
            log_info("recording the session to {}", m_config.record_path);
        }
    } else {
        m_recording->record_to(nullptr);
        log_error("{}; the session is not recorded", writer.error().message);
    }
}

void ClientRunner::show_transfer_progress(std::optional<double> fraction) {
    const double done = std::clamp(fraction.value_or(m_client->transfer_progress()), 0.0, 1.0);
    if (m_transfer_on_tty) {
        // Drawn once the first bytes are in: until then log lines ("receiving the state of
        // frame N") still come, and would land on the bar's line.
        if (!m_transfer_bar && done > 0) {
            // Per mille of the compressed state received.
            m_transfer_bar = std::make_unique<ProgressBar>("state", 1000, true);
        }
        if (m_transfer_bar) m_transfer_bar->update(static_cast<std::uint64_t>(done * 1000));
        return;
    }
    // Not a terminal: a line per quarter keeps logs short and still shows a stuck transfer.
    const int quarter = static_cast<int>(done * 4);
    while (m_transfer_quarter < quarter) {
        ++m_transfer_quarter;
        log_info("receiving the session's state: {}%", m_transfer_quarter * 25);
    }
}

bool ClientRunner::finished() const {
    return m_left && m_clock.now_us() >= m_linger_until;
}

Micros ClientRunner::next_wakeup() const {
    const Micros now = m_clock.now_us();
    if (m_left) return std::min(m_linger_until, now + 10'000);
    const Micros wake = m_client->next_wakeup();
    if (wake > now) return wake;
    // Due but not run: either the catch-up limit was hit (run on at once) or the frame is
    // waiting for inputs (sleep until a datagram arrives, briefly).
    if (m_last_ran > 0) return now;
    return now + kStallWaitUs;
}

bool ClientRunner::wait(Micros max_wait) {
    return m_transport->wait(max_wait);
}

int ClientRunner::socket_fd() const {
    return m_transport->socket_fd();
}

Status ClientRunner::finish() {
    m_summary.frames_run = m_summary.stats.frames_run;
    m_summary.frames_logged = m_recording->logged();
    m_summary.slot = m_client->slot();
    m_summary.players = m_client->players();
    if (m_started_at >= 0 && m_ended_at > m_started_at) {
        m_summary.running_seconds = seconds(m_ended_at - m_started_at);
        m_summary.rates =
            traffic_rates(m_traffic_at_start, m_traffic_at_end, m_summary.running_seconds);
    }
    if (m_summary.end_reason.empty()) m_summary.end_reason = m_client->end_reason();
    if (m_hash_log) {
        Status closed = m_hash_log->close();
        if (!closed) return closed;
    }
    if (m_replay) {
        m_recording->record_to(nullptr);
        Status closed = m_replay->close();
        if (!closed) return closed;
        log_info("replay written: {}", m_config.record_path);
    }
    if (m_config.screenshot_frame) {
        const Image& picture = m_recording->picture();
        if (picture.width == 0) {
            return make_error(ErrorCode::kIo,
                              fmt::format("no picture of frame {} for {}: the session ended "
                                          "before it, or the core showed none",
                                          *m_config.screenshot_frame, m_config.screenshot_path));
        }
        return write_png(m_config.screenshot_path, picture);
    }
    return {};
}

ClientRunSummary ClientRunner::summary() const {
    return m_summary;
}

void print_client_summary(std::FILE* out, const ClientRunSummary& s) {
    if (s.spectator)
        fmt::print(out, "slot       spectator ({} player{})\n", s.players,
                   s.players == 1 ? "" : "s");
    else
        fmt::print(out, "slot       {} of {}\n", s.slot, s.players);
    if (s.late_join) {
        fmt::print(out, "joined     a running session at frame {}, {:.1f} ms after connecting\n",
                   s.first_frame, s.join_seconds * 1000);
    }
    fmt::print(out, "frames     {}{}\n", s.frames_run,
               s.frames_requested ? fmt::format(" of {} requested", s.frames_requested) : "");
    fmt::print(out, "stalls     {} stall frames ({} waits), {} frames fast-forwarded\n",
               s.stats.stall_frames, s.stats.stall_events, s.stats.frames_fast_forwarded);
    fmt::print(out, "rtt        {:.1f} ms (rttvar {:.1f} ms)\n", s.stats.srtt / 1000.0,
               s.stats.rttvar / 1000.0);
    fmt::print(out,
               "delay      {} frames at the end ({}..{}, {} changes; path floor {}); frames ran "
               "{:.1f} ms late on average\n",
               s.delay_final, s.delay_min, s.delay_max, s.delay_changes, s.stats.path_floor,
               mean_lateness_ms(s.stats));
    fmt::print(out,
               "upstream   {:.0f} B/s, {:.1f} datagrams/s ({} B, {} datagrams, wire incl. "
               "UDP/IP headers; payload {:.0f} B/s)\n",
               s.rates.up_bytes, s.rates.up_packets, s.stats.traffic.wire_bytes_sent,
               s.stats.traffic.datagrams_sent, s.rates.up_payload);
    fmt::print(
        out, "downstream {:.0f} B/s, {:.1f} datagrams/s ({} B, {} datagrams; payload {:.0f} B/s)\n",
        s.rates.down_bytes, s.rates.down_packets, s.stats.traffic.wire_bytes_received,
        s.stats.traffic.datagrams_received, s.rates.down_payload);
    if (s.rollback) {
        const auto& st = s.stats;
        const double seconds = s.running_seconds > 0 ? s.running_seconds : 1;
        fmt::print(out,
                   "rollback   {:.1f} rollbacks/s, {} frames re-run (longest {}), prediction "
                   "right {:.1f}% of {} frames, frame advantage {:.2f}\n",
                   st.rollbacks / seconds, st.frames_resimulated, st.longest_rollback,
                   st.predicted_frames ? 100.0 * st.predicted_right / st.predicted_frames : 100.0,
                   st.predicted_frames,
                   st.frames_run ? static_cast<double>(st.advantage_total) / st.frames_run : 0.0);
    }
    if (s.desyncs)
        fmt::print(out, "desyncs    {} (first at frame {})\n", s.desyncs, *s.first_desync_frame);
    fmt::print(out, "end        {}\n", s.end_reason.empty() ? "-" : s.end_reason);
}

std::string client_summary_json(const ClientRunSummary& s) {
    Json json = {
        {"slot", s.slot},
        {"name", s.name},
        {"players", s.players},
        {"frames_requested", s.frames_requested},
        {"frames_run", s.frames_run},
        {"frames_logged", s.frames_logged},
        {"started", s.started},
        {"completed", s.completed},
        {"rejected", s.rejected},
        {"spectator", s.spectator},
        {"late_join", s.late_join},
        {"first_frame", s.first_frame},
        {"join_seconds", s.join_seconds},
        {"end_reason", s.end_reason},
        {"stall_frames", s.stats.stall_frames},
        {"stall_events", s.stats.stall_events},
        {"frames_fast_forwarded", s.stats.frames_fast_forwarded},
        {"srtt_us", s.stats.srtt},
        {"rttvar_us", s.stats.rttvar},
        {"clock_offset_us", s.stats.clock_offset},
        {"mean_lateness_ms", mean_lateness_ms(s.stats)},
        {"delay",
         {{"initial", s.delay_initial},
          {"min", s.delay_min},
          {"max", s.delay_max},
          {"final", s.delay_final},
          {"changes", s.delay_changes},
          {"path_floor", s.stats.path_floor}}},
        {"input_round_trip_ms",
         {{"median", s.round_trip_median / 1000.0}, {"p99", s.round_trip_p99 / 1000.0}}},
        {"updates_received", s.stats.updates_received},
        {"updates_lost", s.stats.updates_lost},
        {"copies_sent", s.stats.copies_sent},
        {"updates_redundant", s.stats.updates_redundant},
        {"desyncs", s.desyncs},
        {"first_desync_frame", s.first_desync_frame ? Json(*s.first_desync_frame) : Json()},
        {"running_seconds", s.running_seconds},
        {"upstream_bytes_per_s", s.rates.up_bytes},
        {"downstream_bytes_per_s", s.rates.down_bytes},
        {"upstream_packets_per_s", s.rates.up_packets},
        {"downstream_packets_per_s", s.rates.down_packets},
        {"upstream_payload_bytes_per_s", s.rates.up_payload},
        {"downstream_payload_bytes_per_s", s.rates.down_payload},
        {"traffic", traffic_json(s.stats.traffic)},
    };
    if (s.rollback) {
        json["rollback"] = {{"rollbacks", s.stats.rollbacks},
                            {"frames_resimulated", s.stats.frames_resimulated},
                            {"longest_rollback", s.stats.longest_rollback},
                            {"predicted_frames", s.stats.predicted_frames},
                            {"predicted_right", s.stats.predicted_right},
                            {"advantage_total", s.stats.advantage_total}};
    }
    return json.dump(2) + "\n";
}

// ---------------------------------------------------------------------------------------

void run_realtime(ServerRunner* server, ClientRunner* client, const netplay::Clock& clock,
                  Micros deadline_us, RealtimeObserver* observer) {
    bool stopping = false;
    for (;;) {
        if (stop_requested() && !stopping) {
            stopping = true;
            log_info("stopping (signal)");
            if (client) client->leave("interrupted");
        }
        if (server) server->update();
        if (observer && observer->before_step() && !stopping) {
            stopping = true;
            log_info("stopping (the player closed the window)");
            if (client) client->leave("quit");
        }
        if (client) client->step();
        if (observer) observer->after_step();
        const bool client_done = !client || client->finished();
        const bool server_done = !server || server->finished() || stopping;
        if (client_done && server_done) return;
        const Micros now = clock.now_us();
        if (deadline_us > 0 && now >= deadline_us) {
            log_warn("time limit reached");
            if (client) client->leave("time limit");
            return;
        }

        Micros wake = deadline_us > 0 ? deadline_us : now + 1'000'000;
        if (observer) wake = std::min(wake, observer->next_wakeup(now));
        if (!client_done) wake = std::min(wake, client->next_wakeup());
        if (server && !server_done) wake = std::min(wake, server->next_wakeup());
        const Micros wait = wake - clock.now_us();
        if (client_done) {
            // A server alone: its timers are a polling tick, not deadlines, so it sleeps on
            // its socket for at least ENet's 1 ms granularity (a datagram wakes it at once).
            server->wait(std::max<Micros>(wait, 1000));
            continue;
        }
        if (wait <= 0) continue;
        if (server && !server_done) {
            // A host: one sleep on both sockets (ServerRunner::watch_also), to the
            // microsecond, so neither the remote players' inputs nor the local player's
            // next frame waits on the other's timer.
            server->wait(wait);
            continue;
        }
        // ENet sleeps in whole milliseconds (rounding down); the rest of a millisecond is
        // slept here, without servicing the socket, so the loop never spins until a frame.
        if (wait < 1000) {
            std::this_thread::sleep_for(std::chrono::microseconds(wait));
            continue;
        }
        client->wait(wait);
    }
}

}  // namespace framelock::frontend
