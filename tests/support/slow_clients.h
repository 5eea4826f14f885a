// A slowloris: many TCP connections to an HTTP server, each from one of a list of local
// source addresses (all of 127/8 is loopback on Linux), each sending a request line and then
// one more header line every `line_every`, never finishing its request. A connection the
// server ends is opened again, so the pressure holds for as long as this runs. On a thread of
// its own, from construction to destruction.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace framelock::test {

class SlowClients {
  public:
    // `connections` spread evenly over `sources`, to 127.0.0.1:`port`.
    SlowClients(std::uint16_t port, std::vector<std::string> sources, int connections,
                std::chrono::milliseconds line_every);
    ~SlowClients();
    SlowClients(const SlowClients&) = delete;
    SlowClients& operator=(const SlowClients&) = delete;

    // Connections open now (connected, and not yet ended by the server).
    int open() const { return m_open.load(); }
    // Since the start: connections made, ended by the server (closed or reset), and
    // answered 408 (Request Timeout) before they ended.
    int opened() const { return m_opened.load(); }
    int ended() const { return m_ended.load(); }
    int timed_out() const { return m_timed_out.load(); }
    // Header lines sent, since the start.
    long lines() const { return m_lines.load(); }

  private:
    void run();

    const std::uint16_t m_port;
    const std::vector<std::string> m_sources;
    const int m_connections;
    const std::chrono::milliseconds m_line_every;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_open{0}, m_opened{0}, m_ended{0}, m_timed_out{0};
    std::atomic<long> m_lines{0};
    std::thread m_thread;
};

}  // namespace framelock::test
