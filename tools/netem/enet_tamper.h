// An attacker on the path, for the tests of the sealed traffic (docs/netplay.md, "Sealed
// traffic"): it reads the connect ID a client's ENet CONNECT carries in clear, and then
// alters that client's input datagrams so that ENet's CRC32 still holds: in a datagram that is
// one unsequenced message (the game's inputs), it flips the message's last byte and computes
// the CRC again under the connect ID, as ENet does. Without a seal, the server takes the
// altered message for the client's; with it, the message does not open.
//
// ENet's header (its protocol.h): the peer ID (u16, big-endian, flags in the top bits: 0x8000
// a sent time follows), the sent time (u16), the CRC32 when the hosts use one (u32, computed
// over the datagram with this field holding the connect ID), then the commands. Whether they
// do shows in the CONNECT's length; without a CRC there is nothing to make right.
#pragma once

#include <cstdint>
#include <map>
#include <span>

namespace framelock::netem {

class EnetTamper {
  public:
    // Reads a client's CONNECT (keyed by the client's source), if this datagram is one.
    void observe_up(std::uint64_t client, std::span<const std::uint8_t> datagram);
    // Alters the datagram in place, CRC fixed, if it is one unsequenced message of a client
    // whose connect ID is known. True when it did.
    bool tamper_up(std::uint64_t client, std::span<std::uint8_t> datagram) const;

  private:
    struct Connection {
        std::uint32_t connect_id = 0;  // as the CONNECT carried it, raw
        bool crc = false;              // the hosts put a CRC32 in every datagram
    };
    std::map<std::uint64_t, Connection> m_connections;
};

}  // namespace framelock::netem
