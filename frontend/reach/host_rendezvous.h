// The host's half of hole punching (netplay/reach/rendezvous.h; the lobby's half is
// lobby/rendezvous.h). From the socket its room's players reach, a host registers with the
// lobby every second: that keeps its router's mapping open and shows the lobby the host's
// public endpoint. When the lobby names a joiner, the host sends it probes for a punch
// timeout, so that its router lets the joiner's datagrams in (both sides send first). When
// the lobby says the room moved to a relay, move_to() says where.
//
// Stepped by the real-time loop with whichever socket serves the room now (the host's own
// server's, or its player's on a relay); it sends a few datagrams a second and never blocks.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>

#include "netplay/interfaces/clock.h"
#include "netplay/io/enet_transport.h"
#include "netplay/reach/rendezvous.h"

namespace framelock::frontend {

class HostRendezvous {
  public:
    // `lobby`: the lobby's UDP endpoint; `key`: the room's current rendezvous key (it
    // changes when the room is listed again under a new code), read at each registration.
    HostRendezvous(netplay::Endpoint lobby, std::function<std::string()> key);

    // Drains `socket`'s rendezvous datagrams and sends what is due.
    void step(netplay::EnetTransport& socket, netplay::Micros now);
    // When step() next has something to send.
    netplay::Micros next_due() const;

    // Where the lobby last saw this host's socket (empty before its first answer).
    netplay::Endpoint public_endpoint() const { return m_seen; }
    // Non-empty once the lobby moved the room to a relay: "host:port".
    const std::string& move_to() const { return m_move_to; }
    // Joiners punched to so far.
    int punches() const { return m_punches; }

  private:
    struct Punch {
        netplay::Micros started = 0;
        netplay::Micros next = 0;
    };
    void handle(const netplay::Endpoint& from, const netplay::RendezvousMessage& message,
                netplay::Micros now);

    // The nonces of the newest registrations: a HostRegistered counts only when it echoes
    // one (netplay/reach/rendezvous.h).
    std::array<std::uint64_t, 4> m_nonces{};
    std::size_t m_next_nonce = 0;
    std::mt19937_64 m_random{std::random_device{}()};
    netplay::Endpoint m_lobby;
    std::function<std::string()> m_key;
    netplay::Micros m_next_register = 0;
    netplay::Endpoint m_seen;
    std::string m_move_to;
    std::map<std::uint64_t, Punch> m_punching;  // by endpoint (ip << 16 | port)
    std::uint64_t m_nonce = 1;
    int m_punches = 0;
};

}  // namespace framelock::frontend
