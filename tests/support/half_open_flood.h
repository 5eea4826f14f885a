// An attacker for the session's half-open defences: ENet clients bound to source addresses
// 127.0.0.2, 127.0.0.3, ... (every 127.0.0.0/8 address is the loopback on Linux) that connect
// to a server and never say Hello, each connection opened again as soon as it ends. Runs on
// a thread of its own until stopped.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace framelock::test {

class HalfOpenFlood {
  public:
    // `per_address` connections from each of `addresses` source addresses to `server`
    // ("127.0.0.1:PORT"), kept open (reopened when dropped or refused) until stop().
    HalfOpenFlood(std::string server, int addresses, int per_address);
    ~HalfOpenFlood();
    HalfOpenFlood(const HalfOpenFlood&) = delete;
    HalfOpenFlood& operator=(const HalfOpenFlood&) = delete;

    void stop();

    // Connections the server accepted so far (ENet's handshake done), those it closed, and
    // those it holds now.
    std::uint64_t accepted() const { return m_accepted; }
    std::uint64_t closed() const { return m_closed; }
    int open_now() const { return m_open; }
    // Connection attempts made (each connection opened, and each again).
    std::uint64_t attempts() const { return m_attempts; }
    // Why the attacker could not run (a source address it could not bind), or "".
    std::string error() const;

  private:
    void run();

    std::string m_server;
    int m_addresses, m_per_address;
    std::atomic<bool> m_stop{false};
    std::atomic<std::uint64_t> m_accepted{0}, m_closed{0}, m_attempts{0};
    std::atomic<int> m_open{0};
    mutable std::mutex m_mutex;
    std::string m_error;
    std::thread m_thread;
};

}  // namespace framelock::test
