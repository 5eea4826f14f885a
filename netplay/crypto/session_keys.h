// The keys that seal a session's traffic after the join (datagram_seal.h), agreed in the
// handshake: the client's Hello and the server's Welcome each carry an X25519 public key made
// for this connection (libsodium's key exchange, crypto_kx), and each side derives one key per
// direction from the shared secret.
//
// Each key is then bound to what the two sides share that a stranger lacks: the Challenge's
// nonce (the keys of one connection never serve another) and, when the session has one, the
// password key of the joiner's role (join_proof.h). A man in the middle of the handshake who
// swaps both public keys for its own knows both shared secrets, but without the password it
// cannot derive the keys either side seals with: every datagram it forwards or forges fails
// to open. Without a password it can (see docs/netplay.md, "Sealed traffic").
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "netplay/crypto/join_proof.h"

namespace framelock::netplay {

inline constexpr std::size_t kKxKeyBytes = 32;
inline constexpr std::size_t kSealKeyBytes = 32;
using KxPublicKey = std::array<std::uint8_t, kKxKeyBytes>;
using SealKey = std::array<std::uint8_t, kSealKeyBytes>;

// One side's key pair for one connection; the secret half never leaves the process.
struct KxKeys {
    KxPublicKey public_key{};
    std::array<std::uint8_t, kKxKeyBytes> secret_key{};
};

// What one side seals with (send) and opens with (receive).
struct SealKeys {
    SealKey send{};
    SealKey receive{};
};

KxKeys new_kx_keys();

// The keys of each side. `binding`: the password key of the joiner's role, when the session
// has a password for it. nullopt when the peer's public key is unusable (a low-order point:
// the shared secret would be known to anyone).
std::optional<SealKeys> client_seal_keys(const KxKeys& own, const KxPublicKey& server,
                                         const Nonce& challenge,
                                         const std::optional<PasswordKey>& binding);
std::optional<SealKeys> server_seal_keys(const KxKeys& own, const KxPublicKey& client,
                                         const Nonce& challenge,
                                         const std::optional<PasswordKey>& binding);

}  // namespace framelock::netplay
