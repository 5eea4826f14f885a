// A UDP proxy that impairs traffic between clients and one server on loopback: every
// datagram is held for a delay (plus jitter), or dropped, or sent twice, or corrupted (one
// bit flipped); blackout windows drop everything for a while. It stands in for
// the netem qdisc these machines lack, so netplay can be tested end to end over real UDP.
//
//   client A ──▶ listen socket ──(up: delay/jitter/loss/dup)──▶ upstream socket A ──▶ server
//   client A ◀── listen socket ◀──(down: ...)────────────────── upstream socket A ◀── server
//
// Each client source address gets its own upstream socket, so the server sees one distinct
// source per client, as it would without the proxy. Delays are ONE-WAY per direction: with
// --delay 20 a round trip through the proxy takes 40 ms plus the server's own time.
//
// Time: reads CLOCK_MONOTONIC (this is the real-world adapter, not netplay logic).
// Threading: one thread runs run(); request_stop() may be called from any thread or from a
// signal handler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "netplay/base/result.h"
#include "tools/netem/endpoint.h"
#include "tools/netem/impairment.h"

namespace framelock::netem {

inline constexpr double kMaxDurationS = 3600.0;
inline constexpr double kMaxDelayMs = 10000.0;  // per direction, delay and jitter each
inline constexpr std::size_t kMaxClients = 1024;
inline constexpr std::size_t kMaxDatagram = 65536;

struct ProxyConfig {
    Endpoint listen;         // where clients send; port 0 picks a free port (see listen_port())
    Endpoint forward;        // the server; port must not be 0
    Impairment up;           // client -> server
    Impairment down;         // server -> client
    std::uint64_t seed = 1;  // each direction draws from its own stream derived from this
    std::vector<Blackout> blackouts;  // every datagram in these windows is dropped, both ways
    double duration_s = 0;            // required, (0, kMaxDurationS]: run() returns when it elapses
    double idle_exit_s = 0;           // 0 = off; else run() returns after this long without traffic
    std::size_t max_clients = 64;     // new clients beyond this are refused (counted)
    double client_timeout_s = 60;     // a client idle this long loses its upstream socket
    std::size_t max_queued_bytes = 64u << 20;  // datagrams beyond this are dropped (counted)
    std::string port_file;  // if set, the bound listen port is written here (temp + rename)
    bool allow_non_loopback = false;  // else both addresses must be in 127.0.0.0/8
    // Receives one line per notable event (start, new/expired/refused client). May be empty.
    std::function<void(std::string_view)> log;
};

// kUsage error describing the first invalid field, with the value and the allowed range.
Status validate(const ProxyConfig& config);

// Counters for one direction. "Planned" is the hold time drawn for a datagram; "hold" is
// measured, from the moment the proxy read the datagram to the moment it sent it; "late" is
// hold minus planned: the proxy's own timing error (scheduler wakeup, load).
struct DirectionStats {
    std::uint64_t datagrams_in = 0;
    std::uint64_t datagrams_out = 0;  // copies sent, duplicates included
    std::uint64_t dropped = 0;        // by the loss setting
    std::uint64_t blackout = 0;       // dropped inside a blackout window
    std::uint64_t corrupted = 0;      // delivered with one bit flipped (duplicates count once)
    std::uint64_t duplicated = 0;     // extra copies scheduled
    std::uint64_t overflow = 0;       // dropped because the queue held max_queued_bytes
    std::uint64_t send_errors = 0;    // the kernel refused the send (e.g. server not there)
    std::uint64_t unsent = 0;         // still queued at exit, or their client had expired
    std::uint64_t bytes_in = 0;
    std::uint64_t bytes_out = 0;
    std::uint64_t planned = 0;  // copies queued with a drawn hold time
    double planned_min_ms = 0;  // range of the drawn hold times: the model's delay +/- jitter
    double planned_max_ms = 0;  // exactly, unaffected by how busy the machine is
    double hold_sum_ms = 0;
    double hold_max_ms = 0;
    double late_sum_ms = 0;
    double late_max_ms = 0;

    double hold_mean_ms() const { return datagrams_out ? hold_sum_ms / datagrams_out : 0.0; }
    double late_mean_ms() const { return datagrams_out ? late_sum_ms / datagrams_out : 0.0; }
};

enum class StopReason { kDuration, kIdle, kRequested };
std::string_view to_string(StopReason reason);

struct ProxyStats {
    ProxyConfig config;
    std::uint16_t listen_port = 0;
    StopReason reason = StopReason::kDuration;
    double elapsed_s = 0;
    std::uint64_t clients_seen = 0;
    std::uint64_t refused_datagrams = 0;  // from new clients while the table was full
    std::uint64_t clients_expired = 0;
    DirectionStats up;
    DirectionStats down;
};

std::string format_stats_text(const ProxyStats& stats);
std::string format_stats_json(const ProxyStats& stats);

// Writes `text` to a temporary file beside `path` and renames it over `path`, so a reader
// sees either nothing or the whole file. kIo error naming the path on failure.
Status write_text_atomic(const std::string& path, std::string_view text);

class NetemProxy {
  public:
    // Validates `config`, binds the listen socket and writes config.port_file. kUsage for a
    // bad config, kIo when a socket cannot be opened or bound or the port file written.
    static Result<std::unique_ptr<NetemProxy>> open(const ProxyConfig& config);
    ~NetemProxy();
    NetemProxy(const NetemProxy&) = delete;
    NetemProxy& operator=(const NetemProxy&) = delete;

    std::uint16_t listen_port() const;

    // Forwards traffic until the duration elapses, the proxy has been idle for idle_exit_s,
    // or request_stop() is called. Datagrams still queued then are discarded (counted as
    // unsent). kIo error if polling fails. Call once.
    Result<ProxyStats> run();

    // Async-signal-safe and thread-safe: makes run() return promptly.
    void request_stop() noexcept;

  private:
    struct State;
    explicit NetemProxy(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
};

}  // namespace framelock::netem
