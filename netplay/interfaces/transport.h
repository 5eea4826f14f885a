// How sessions talk: messages to peers over three channels, events handed out by poll().
// ENet implements it over UDP (netplay/io/enet_transport.h); SimNetwork implements it
// over a simulated network with a virtual clock (netplay/sim/sim_network.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/interfaces/clock.h"

namespace framelock::netplay {

using PeerId = std::uint32_t;

enum class Channel : std::uint8_t {
    kControl = 0,  // reliable, ordered: handshake, schedule, hashes, disconnect reasons
    kInput = 1,    // unreliable: per-frame inputs and updates; loss is covered by redundancy
    kBulk = 2,     // reliable, ordered, separate queue: state transfer
};
inline constexpr int kChannelCount = 3;

// How long a connected peer may stay silent before it is given up, on every layer (the
// transport, the client watching its server, the server watching a client that has no
// reconnect grace). Long enough to ride out a network outage of several seconds (a Wi-Fi
// hiccup, a router that reboots: a 5 s blackout must not end a session, and ENet's
// retransmissions, backing off, may take about as long again to get through), short enough
// that a dead server is noticed well inside a player's patience and the server's
// reconnect grace (60 s). Players are marked away after only 0.5 s (ServerConfig).
inline constexpr Micros kPeerSilenceTimeoutUs = 15'000'000;
// Before the start, server and client each send at least this often (the other's round
// trips and its silence are measured from it).
inline constexpr Micros kLobbyHeartbeatUs = 100'000;

struct TransportEvent {
    enum class Type { kConnected, kDisconnected, kMessage };
    Type type = Type::kMessage;
    PeerId peer = 0;
    Channel channel = Channel::kControl;
    std::vector<std::uint8_t> data;  // kMessage only
};

// Traffic counters for one peer. Wire bytes include every header down to IP
// (UDP/IPv4 = 28 bytes per datagram), so they compare with a bandwidth budget.
struct PeerStats {
    std::uint64_t wire_bytes_sent = 0;
    std::uint64_t wire_bytes_received = 0;
    std::uint64_t datagrams_sent = 0;
    std::uint64_t datagrams_received = 0;
    std::uint64_t payload_bytes_sent = 0;
    std::uint64_t payload_bytes_received = 0;
    // Sealed messages refused (netplay/wire/sealed_transport.h): they did not open (a byte
    // changed on the way, a forgery), or their counter was seen already (a replay) or is too
    // old. Dropped; the connection goes on.
    std::uint64_t altered = 0;
    std::uint64_t replayed = 0;
};

class Transport {
  public:
    virtual ~Transport() = default;

    // Client side: starts connecting to `address` (transport-specific, e.g. "127.0.0.1:7845").
    // A kConnected or kDisconnected event for the returned peer follows from poll().
    virtual Result<PeerId> connect(const std::string& address) = 0;

    // Queues a message; it goes out at the next poll() or flush(). Sending to an unknown or
    // disconnected peer does nothing.
    virtual void send(PeerId peer, Channel channel, std::span<const std::uint8_t> data) = 0;

    // Hands out the next event, or nothing. Never blocks; drives I/O.
    virtual std::optional<TransportEvent> poll() = 0;

    // Sends what is queued now.
    virtual void flush() = 0;

    // Closes the connection to `peer` (the peer sees kDisconnected). No event here.
    virtual void disconnect(PeerId peer) = 0;

    virtual PeerStats stats(PeerId peer) const = 0;

    // Where the peer's datagrams come from: "host:port" (a simulated endpoint: its name), or
    // empty for an unknown peer or a transport that cannot say. The server limits what one
    // source may hold (Admission) by the host part, and names it in its log.
    virtual std::string peer_address(PeerId peer) const {
        (void)peer;
        return {};
    }
};

}  // namespace framelock::netplay
