// What the server and client harnesses (fuzz_server.cpp, fuzz_client.cpp) share with the
// corpus capture (capture_corpus.cpp): the session they stand in, and their inputs' format.
//
// An input is a flags byte (fuzz_mode, kFlag*, kRawHandshake), then ops until the input ends. Each
// op starts with a byte h; h & 3 is its kind:
//   kSend (0)     u16 length + bytes: a datagram from a peer (server: peer (h >> 2) % 3;
//                 client: from the server, a Welcome signed and everything after it sealed
//                 by the harness, unless h & 0x04) on channel (h >> 4) % 3
//   kAdvance (1)  u8 n: the clock moves (n + 1) * 500 us
//   kClose (2)    the peer's process ends (server: peer (h >> 2) % 3; client: the server
//                 drops it)
//   kValid (3)    a well-formed handshake message the harness writes (server: a Hello from
//                 peer (h >> 2) % 3, a spectator's when h & 0x10, answering the peer's newest
//                 Challenge with the right password and, when h & 0x20, the rejoin token it
//                 was last given; client: a Challenge, the client's Hello, a signed
//                 Welcome, then Start)
// Peers 0 and 1 say a valid Hello for slots 1 and 2 before the first op (unless the flags
// have kRawHandshake), and the client harness welcomes its client as kValid does, so the
// traffic after it reaches a session's running code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "netplay/server/server.h"
#include "netplay/wire/protocol.h"

namespace framelock::fuzz {

inline constexpr std::uint8_t kOpSend = 0, kOpAdvance = 1, kOpClose = 2, kOpValid = 3;
inline constexpr std::uint8_t kFlagThreeSlots = 0x04;  // room for a late joiner
inline constexpr std::uint8_t kFlagPauseOnDrop = 0x08;
inline constexpr std::uint8_t kRawHandshake = 0x10;  // no harness Hello / Welcome first
// The session has a password and a spectator password (kFuzzPassword, kFuzzSpectatorPassword),
// derived at the cheapest cost so that an input costs no Argon2id time.
inline constexpr std::uint8_t kFlagPassword = 0x20;
inline const std::string kFuzzPassword = "fuzz";
inline const std::string kFuzzSpectatorPassword = "watch";
inline constexpr int kFuzzPeers = 3;
// The endpoints' names: run_scenario's, so captured traffic maps onto the same peers.
inline const std::string kFuzzPeerNames[kFuzzPeers] = {"client1", "client2", "joiner1"};
inline constexpr netplay::Micros kFuzzClockStart = 1'000'000;  // run_scenario's too
inline constexpr netplay::Micros kFuzzAdvanceUnitUs = 500;

// The flags' low two bits: 0 frame lock, 1 rollback, 2 (and 3) no-wait.
inline netplay::SessionMode fuzz_mode(std::uint8_t flags) {
    return static_cast<netplay::SessionMode>(std::min(flags & 3, 2));
}

// run_scenario's identity for a 60 fps session.
inline netplay::SessionIdentity fuzz_identity() {
    return {"sim", "1", 0x1234, 0x5678, 60000, 0};
}

// The server the flags describe (the capture runs its sessions with the same).
inline netplay::ServerConfig fuzz_server_config(std::uint8_t flags) {
    netplay::ServerConfig c;
    c.mode = fuzz_mode(flags);
    c.players = (flags & kFlagThreeSlots) ? 3 : 2;
    c.start_players = 2;
    c.pause_on_drop = (flags & kFlagPauseOnDrop) != 0;
    if (c.mode == netplay::SessionMode::kRollback) c.delay.fixed_delay = 1;
    if (c.mode == netplay::SessionMode::kNoWait) c.delay.fixed_delay = 4;
    if (flags & kFlagPassword) {
        c.password = kFuzzPassword;
        c.spectator_password = kFuzzSpectatorPassword;
        c.password_kdf = netplay::kMinKdfCost;
    }
    return c;
}

}  // namespace framelock::fuzz
