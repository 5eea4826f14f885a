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

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "netplay/base/result.h"
#include "tools/netem/proxy_config.h"
#include "tools/netem/proxy_stats.h"

namespace framelock::netem {

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
