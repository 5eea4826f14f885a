// The lobby's rendezvous (lobby/rendezvous.h) on UDP: the same address and port number as
// its HTTP service, so a player finds it from the lobby's URL alone. One thread reads a
// datagram, asks the Rendezvous what to send, sends it, and sends what the Rendezvous has
// to push (a move's news to a host) within 20 ms.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "lobby/rendezvous.h"
#include "netplay/base/result.h"

namespace framelock::lobby {

class RendezvousSocket {
  public:
    // Binds UDP `bind`:`port` (an IPv4 address or a name with one; "", "0.0.0.0" or "::"
    // for all; port 0: any free)
    // and starts serving `rendezvous`, which must outlive this. Errors (kUsage) name the
    // address.
    static Result<std::unique_ptr<RendezvousSocket>> open(const std::string& bind,
                                                          std::uint16_t port,
                                                          Rendezvous& rendezvous);
    ~RendezvousSocket();  // stops the thread (within 20 ms) and closes the socket
    RendezvousSocket(const RendezvousSocket&) = delete;
    RendezvousSocket& operator=(const RendezvousSocket&) = delete;

    std::uint16_t port() const { return m_port; }
    std::uint64_t datagrams_in() const { return m_in.load(); }

  private:
    RendezvousSocket(int fd, std::uint16_t port, Rendezvous& rendezvous);
    void serve();

    int m_fd;
    std::uint16_t m_port;
    Rendezvous& m_rendezvous;
    std::atomic<bool> m_stop{false};
    std::atomic<std::uint64_t> m_in{0};
    std::thread m_thread;
};

}  // namespace framelock::lobby
