// The real-time side of netplay: the loops that drive netplay::Server and netplay::Client
// over ENet with the steady clock, log what happens, and report statistics at the end.
//
//   ServerRunner  one netplay::Server per session port, all in one process and one loop
//   ClientRunner  one player: a RetroEmulator run by netplay::Client, the local pad from an
//                 InputSource, an optional hash log and screenshot
//   run_realtime  sleeps until the next thing is due (a frame, a datagram, a timer) and
//                 drives either or both; `framelock host` runs a server and a client in it
//
// Events come out as log lines on stderr (frontend/log.h); summaries go to stdout and, as
// JSON, to a file. Threading: none; everything runs on the caller's thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/headless.h"
#include "frontend/image.h"
#include "frontend/io.h"
#include "frontend/progress.h"
#include "frontend/rejoin_file.h"
#include "frontend/replay_file.h"
#include "frontend/retro_emulator.h"
#include "netplay/client.h"
#include "netplay/clock.h"
#include "netplay/io/enet_transport.h"
#include "netplay/protocol.h"
#include "netplay/result.h"
#include "netplay/server.h"

namespace framelock::frontend {

// What a peer must agree on to stay in sync, read from the running emulator: core name and
// version, content hash, core options hash, frames per second x 1000 rounded.
netplay::SessionIdentity session_identity(const RetroEmulator& emulator);

// ---------------------------------------------------------------------------------------
// Server

struct ServerRunConfig {
    std::string bind = "0.0.0.0";  // IPv4 address to listen on
    std::uint16_t port = 0;        // first session's port; 0: the OS picks for every session
    int sessions = 1;              // sessions on ports port .. port + sessions - 1
    netplay::ServerConfig server;  // players, hash interval, delay policy
    double duration_s = 0;         // stop after this long; 0: until every session ended
};

struct ServerSessionSummary {
    std::uint16_t port = 0;
    int players = 0;
    bool started = false;
    bool ended = false;  // every player left after the start
    std::uint32_t confirmed_frames = 0;
    std::vector<netplay::ScheduleEntry> schedule;  // frame 0's delay, then each change
    std::uint64_t keyframes = 0;                   // delay decisions made
    int path_floor = 0;  // netplay::Server::path_floor() at the end (0: unknown)
    std::vector<netplay::SlotStats> slots;
    std::uint64_t rejected = 0, malformed = 0, desyncs = 0;
    std::uint64_t off_pace = 0;       // players named for a clock off pace (no-wait)
    netplay::PeerStats host_traffic;  // the whole socket
};

class ServerRunner {
  public:
    // Binds every session's socket. kUsage error naming the address when one cannot be bound.
    static Result<std::unique_ptr<ServerRunner>> open(const ServerRunConfig& config,
                                                      const netplay::Clock& clock);
    ~ServerRunner();

    // The bound port of each session, in order.
    std::vector<std::uint16_t> ports() const;

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
    // Also wakes wait() when `fd` is readable (a host's own player's socket, so one sleep
    // serves both: a remote player's input is forwarded the moment it arrives).
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
    // Runs one session's Server (or, once it ended, services its socket) and logs events.
    void serve(Session& session, netplay::Micros now);
    void log_events(Session& session);

    ServerRunConfig m_config;
    const netplay::Clock& m_clock;
    netplay::Micros m_opened_at = 0;
    std::vector<std::unique_ptr<Session>> m_sessions;
    std::deque<netplay::ServerEvent> m_view_events;
    int m_epoll = -1;           // every session's socket, readable = traffic
    bool m_after_wait = false;  // wait() ran since the last update(): its readiness counts
};

void print_server_summary(std::FILE* out, const std::vector<ServerSessionSummary>& sessions);
// {"sessions": [{"port", "players", "started", "ended", "confirmed_frames", "delay": {"initial",
// "min", "max", "final", "changes"}, "schedule": [{"frame", "delay"}], "slots": [...]}]}
std::string server_summary_json(const std::vector<ServerSessionSummary>& sessions);

// ---------------------------------------------------------------------------------------
// Client

struct ClientRunConfig {
    std::string server_address;  // "host:port"
    int slot = 0;                // 1..8, 0: any free slot
    std::string player_name;
    std::string content_name;  // for the server's messages ("game.nes")
    unsigned ports = 2;        // controller ports the emulator has (HostConfig::ports)
    std::uint64_t frames = 0;  // leave after this many frames; 0: until the session ends
    std::string hash_log;      // "FRAME HASH" per frame, as `framelock run --hash-log`
    std::string record_path;   // replay file (frontend/replay_file.h); empty: none
    std::optional<std::uint64_t> screenshot_frame;  // picture after this frame ran ...
    std::string screenshot_path;                    // ... written here as PNG
    netplay::Micros server_timeout_us = netplay::kPeerSilenceTimeoutUs;
    bool spectate = false;  // watch: no slot, no input
    std::string password;   // the session's (or its spectators') password
    // Where a player keeps its rejoin token (rejoin_file.h): "" for the default file of this
    // server and name, "-" for nowhere (memory only).
    std::string rejoin_file;
};

// Traffic over an interval, per second, each way: wire bytes (every header down to IP),
// datagrams, and the application's message bytes (before ENet's and UDP/IP's headers).
struct TrafficRates {
    double up_bytes = 0, down_bytes = 0;
    double up_packets = 0, down_packets = 0;
    double up_payload = 0, down_payload = 0;
};

// The rates between two snapshots of one peer's counters taken `interval_s` seconds apart
// (`end` taken last); all zero when `interval_s` is not positive.
TrafficRates traffic_rates(const netplay::PeerStats& start, const netplay::PeerStats& end,
                           double interval_s);

struct ClientRunSummary {
    int slot = 0, players = 0;
    std::string name;       // as the server shows it (a clash gets a suffix)
    bool rollback = false;  // the session ran in rollback mode
    std::uint64_t frames_requested = 0;
    std::uint32_t frames_run = 0;
    std::uint64_t frames_logged = 0;
    bool started = false;
    bool completed = false;  // ran every requested frame (or, without --frames, left cleanly)
    bool rejected = false;
    bool spectator = false;
    // Joined a running session: its emulator started from the state of `first_frame`,
    // `join_seconds` after the runner was created (connect, state transfer, load).
    bool late_join = false;
    std::uint32_t first_frame = 0;
    double join_seconds = 0;
    std::string end_reason;
    int delay_initial = 0, delay_min = 0, delay_max = 0, delay_final = 0, delay_changes = 0;
    std::uint64_t desyncs = 0;
    std::optional<std::uint32_t> first_desync_frame;
    netplay::ClientStatsSnapshot stats;
    // Input round trips (scheduled sample to confirmation), us: median and 99th percentile.
    netplay::Micros round_trip_median = 0, round_trip_p99 = 0;
    // Over the running phase (session start to the last frame).
    double running_seconds = 0;
    TrafficRates rates;
};

class ClientRunner {
  public:
    // Opens the hash log, creates the ENet client and says Hello. `emulator` and `input`
    // are borrowed for the runner's lifetime; the emulator's video sink is replaced when
    // a screenshot is asked for. Port 0 of each InputFrame from `input` is this player's pad.
    static Result<std::unique_ptr<ClientRunner>> create(RetroEmulator& emulator, InputSource& input,
                                                        const netplay::Clock& clock,
                                                        const ClientRunConfig& config);
    ~ClientRunner();

    // Processes the network, runs the frames that are due, logs events. Never blocks.
    void step();
    // True once the session is over for this player (frames done, or rejected/disconnected)
    // and the goodbye had time to go out.
    bool finished() const;
    // When step() next has work to do: the next frame, or a few ms while waiting for inputs.
    netplay::Micros next_wakeup() const;
    // Sleeps up to `max_wait` or until traffic arrives.
    bool wait(netplay::Micros max_wait);
    // The socket wait() sleeps on (for a host's loop that sleeps on its server's too).
    int socket_fd() const;
    // Leaves the session now (SIGINT), if still in it.
    void leave(const std::string& reason);

    // Closes the hash log and writes the screenshot. Call once, after the loop.
    Status finish();
    ClientRunSummary summary() const;

    // For a player's window: the session as it stands, and the events step() logged (the
    // newest 64 are kept).
    const netplay::Client& client() const { return *m_client; }
    const ClientRunConfig& config() const { return m_config; }
    std::optional<netplay::ClientEvent> poll_view_event();

  private:
    class RecordingEmulator;
    ClientRunner(RetroEmulator& emulator, InputSource& input, const netplay::Clock& clock,
                 ClientRunConfig config);
    void handle_event(const netplay::ClientEvent& event);
    void note_delay(int delay);
    void end_of_play(netplay::Micros now);
    void open_replay(std::uint32_t start_frame, std::vector<std::uint8_t> start_state);
    // While joining: the state transfer's progress (the client's own unless given).
    void show_transfer_progress(std::optional<double> fraction = std::nullopt);

    RetroEmulator& m_emulator;
    InputSource& m_input;
    const netplay::Clock& m_clock;
    ClientRunConfig m_config;
    std::unique_ptr<HashLogWriter> m_hash_log;
    std::unique_ptr<ReplayWriter> m_replay;
    HeadlessVideo m_video;  // the screenshot's copy; passes pictures on to the emulator's sink
    std::unique_ptr<RecordingEmulator> m_recording;
    std::unique_ptr<netplay::EnetTransport> m_transport;
    std::unique_ptr<netplay::Client> m_client;
    std::optional<RejoinFile> m_rejoin_file;

    int m_last_ran = 0;
    bool m_delay_seen = false;
    bool m_left = false;                  // this side ended its part (leave or end)
    netplay::Micros m_linger_until = -1;  // after leaving: keep polling until then
    netplay::Micros m_started_at = -1, m_ended_at = -1;
    netplay::Micros m_created_at = 0;
    bool m_transfer_on_tty = false;               // a bar for the state transfer ...
    std::unique_ptr<ProgressBar> m_transfer_bar;  // ... once its first bytes are in
    int m_transfer_quarter = 0;                   // else: quarters logged so far
    std::vector<std::uint8_t> m_common_start;     // the session's start state, for a replay
    netplay::PeerStats m_traffic_at_start, m_traffic_at_end;
    ClientRunSummary m_summary;
    std::deque<netplay::ClientEvent> m_view_events;
};

void print_client_summary(std::FILE* out, const ClientRunSummary& summary);
std::string client_summary_json(const ClientRunSummary& summary);

// ---------------------------------------------------------------------------------------

// What a player's window does around the real-time loop (frontend/netplay_view.h).
class RealtimeObserver {
  public:
    virtual ~RealtimeObserver() = default;
    // Before each client step: window and pad events. True when the player asked to leave.
    virtual bool before_step() = 0;
    // After it: draw what changed.
    virtual void after_step() = 0;
    // The latest the loop may sleep until (the next redraw of a progress bar, say).
    virtual netplay::Micros next_wakeup(netplay::Micros now) const = 0;
};

// Drives `server` and/or `client` (either may be null) until both are finished, stop_signal
// reports SIGINT/SIGTERM (the client then leaves; the server stops), the observer's player
// asks to leave, or `deadline_us` (clock time; 0: none) passes. Sleeps on the client's
// socket when there is a client, else on the server's. `observer` (may be null) runs
// around every client step.
void run_realtime(ServerRunner* server, ClientRunner* client, const netplay::Clock& clock,
                  netplay::Micros deadline_us, RealtimeObserver* observer = nullptr);

}  // namespace framelock::frontend
