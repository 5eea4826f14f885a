// What a netplay session's end report holds, for the server (one entry per session port)
// and for a player, and how it is shown: as text on stdout and as JSON in a file
// (`--stats-json`). The runners fill these in (frontend/session/server_runner.h,
// frontend/session/client_runner.h).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "netplay/client/client.h"
#include "netplay/interfaces/transport.h"
#include "netplay/server/server.h"
#include "netplay/wire/protocol.h"

namespace framelock::frontend {

// ---------------------------------------------------------------------------------------
// Server

struct ServerSessionSummary {
    std::uint16_t port = 0;
    int players = 0;
    // "framelock", "nowait", "rollback" or "hybrid", and why (ServerRunConfig::mode_reason;
    // empty when the caller gave none).
    std::string mode;
    std::string mode_reason;
    bool started = false;
    bool ended = false;  // every player left after the start
    std::uint32_t confirmed_frames = 0;
    std::vector<netplay::ScheduleEntry> schedule;  // frame 0's delay, then each change
    std::uint64_t keyframes = 0;                   // delay decisions made
    int path_floor = 0;        // netplay::Server::path_floor() at the end (0: unknown)
    int predicted_frames = 0;  // netplay::Server::predicted_frames() at the end (the hybrid)
    std::vector<netplay::SlotStats> slots;
    std::uint64_t rejected = 0, malformed = 0, desyncs = 0;
    std::uint64_t off_pace = 0;  // players named for a clock off pace (no-wait)
    // Connections that never said Hello (a half-open flood): requests the transport dropped
    // unread, and connections closed before their Hello (over the per-address cap, closed
    // for a newcomer, or no Hello in time).
    std::uint64_t half_open_refused = 0, half_open_closed = 0;
    std::uint64_t games = 1;          // a relay's session: the games it served (it is reused)
    netplay::PeerStats host_traffic;  // the whole socket
};

void print_server_summary(std::FILE* out, const std::vector<ServerSessionSummary>& sessions);
// {"sessions": [{"port", "players", "started", "ended", "confirmed_frames", "delay": {"initial",
// "min", "max", "final", "changes"}, "schedule": [{"frame", "delay"}], "slots": [...]}]}
std::string server_summary_json(const std::vector<ServerSessionSummary>& sessions);

// ---------------------------------------------------------------------------------------
// Client

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

void print_client_summary(std::FILE* out, const ClientRunSummary& summary);
std::string client_summary_json(const ClientRunSummary& summary);

}  // namespace framelock::frontend
