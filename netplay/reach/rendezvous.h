// The datagrams framelock sends beside ENet, on the same UDP sockets: probes (a round trip to
// a relay, and the public address a socket is seen from) and the lobby's rendezvous, which
// lets a host behind a home router be reached without a port forward (hole punching).
//
// They share a socket with ENet so that what they measure and open is the session's own
// path: a probe answered by a relay's session socket times the path the inputs will take, and
// a hole punched from a socket is open for that socket only. Every one starts with the magic
// "FLRV": as an ENet header that would be a peer id with the compression flag set, which a
// framelock peer never sends (no compressor), so the two never mix (EnetTransport sorts them
// in its intercept, netplay/io/enet_transport.h).
//
//   a player          lobby (rendezvous, UDP)           host's server socket
//                     <- HostRegister(key)   every second, also keeping its NAT mapping open
//                     -> HostRegistered(seen, punch_to[], move_to)
//   JoinerHello(ticket) ->                    (the ticket came with the HTTP join)
//   <- JoinerAck(seen, host)  -> HostRegistered(punch_to = [the joiner as seen]) at once
//   Probe -> host's public endpoint   <-  Probe to the joiner   (both send first: the
//   <- ProbeReply                     ProbeReply ->              NATs let the answers in)
//
// Nothing here is larger than the datagram that caused it (no amplification): a Probe is
// padded to the size of a ProbeReply, and a HostRegister and a JoinerHello to the largest
// HostRegistered (kRendezvousRequestBytes), which is what a registration or a hello can draw
// from the lobby. The lobby answers registrations and hellos only for keys and tickets it
// handed out over HTTP; a host believes a HostRegistered only when it echoes the nonce of one
// of its own recent registrations (a forged one from an off-path sender cannot move the room
// or point the host's probes elsewhere).
//
// All fields little-endian (netplay/wire/wire.h); every decoder is bounds-checked and rejects
// trailing bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "netplay/base/result.h"

namespace framelock::netplay {

inline constexpr std::array<std::uint8_t, 4> kRendezvousMagic = {'F', 'L', 'R', 'V'};
inline constexpr std::uint8_t kRendezvousVersion = 1;
// Registrations a host sends the lobby: often enough to keep a home router's UDP mapping
// open (Linux keeps an unreplied one 30 s, a replied one 120-180 s; some routers 20 s) and
// to hear of a joiner within a second even when the lobby's push was lost.
inline constexpr std::int64_t kHostRegisterIntervalUs = 1'000'000;
// How long the joiner and the host try to reach each other through their routers before the
// room falls back to a relay.
inline constexpr std::int64_t kPunchTimeoutUs = 3'000'000;
// Between two probes of one punch (each side sends this often while punching).
inline constexpr std::int64_t kPunchProbeIntervalUs = 50'000;
// At most this many joiners per HostRegistered (the newest); a lobby keeps each for a punch
// timeout.
inline constexpr std::size_t kMaxPunchTargets = 8;
inline constexpr std::size_t kRendezvousSecretBytes = 16;
// The longest "host:port" a HostRegistered names a relay by (a DNS name at most).
inline constexpr std::size_t kMaxMoveTo = 261;
// The size of the largest HostRegistered, to which a HostRegister and a JoinerHello are
// padded: magic, version, type, nonce, seen, the punch targets (count and endpoints), move_to.
inline constexpr std::size_t kRendezvousRequestBytes =
    4 + 1 + 1 + 8 + 6 + 1 + 6 * kMaxPunchTargets + 2 + kMaxMoveTo;

// An IPv4 UDP endpoint as the wire carries it: address in host order.
struct Endpoint {
    std::uint32_t ipv4 = 0;
    std::uint16_t port = 0;
    bool operator==(const Endpoint&) const = default;
    bool empty() const { return ipv4 == 0 && port == 0; }
    std::string to_string() const;  // "a.b.c.d:port"
};
// "a.b.c.d:port" (dotted numbers only, no names); errors (kUsage) name the text.
Result<Endpoint> parse_endpoint(const std::string& text);

using RendezvousSecret = std::array<std::uint8_t, kRendezvousSecretBytes>;
std::string secret_to_hex(const RendezvousSecret& secret);
std::optional<RendezvousSecret> secret_from_hex(const std::string& hex);

struct Probe {
    std::uint64_t nonce = 0;
};
struct ProbeReply {
    std::uint64_t nonce = 0;
    Endpoint seen;  // where the probe came from, as the answering side saw it
};
// Host -> lobby: "the room with this key is served from the socket this comes from".
struct HostRegister {
    RendezvousSecret key{};
    std::uint64_t nonce = 0;  // random per registration; echoed in the answer
};
struct HostRegistered {
    std::uint64_t nonce = 0;         // of the registration this answers (or the newest one)
    Endpoint seen;                   // the host's public endpoint, as the lobby sees it
    std::vector<Endpoint> punch_to;  // joiners to send probes to now
    std::string move_to;             // non-empty: the room moved to this relay ("host:port")
};
// Joiner -> lobby, from the socket it will connect from.
struct JoinerHello {
    RendezvousSecret ticket{};
};
struct JoinerAck {
    Endpoint seen;  // the joiner, as the lobby sees it
    Endpoint host;  // where to send probes and then connect
};

using RendezvousMessage =
    std::variant<Probe, ProbeReply, HostRegister, HostRegistered, JoinerHello, JoinerAck>;

// Whether a datagram is one of these (by its magic), not ENet's.
bool is_rendezvous(std::span<const std::uint8_t> datagram);

std::vector<std::uint8_t> encode_rendezvous(const RendezvousMessage& message);
// kProtocol errors say what was wrong: no magic, another version, unknown type, a short or
// long datagram, a field out of range.
Result<RendezvousMessage> decode_rendezvous(std::span<const std::uint8_t> datagram);

}  // namespace framelock::netplay
