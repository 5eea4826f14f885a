// Proofs of a secret in the join handshake, so that no secret crosses the wire.
//
// The server opens every connection with a Challenge: a fresh random nonce, and the salt its
// password keys are derived with. A client proves what it knows by a keyed hash (BLAKE2b) of
// that nonce: under the key derived from a password (Argon2id, so a captured exchange costs
// an attacker a slow derivation per guess), or under its slot's rejoin token. A captured
// Hello answers one nonce only; the next connection gets another.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "netplay/base/types.h"

namespace framelock::netplay {

inline constexpr std::size_t kNonceBytes = 32;
inline constexpr std::size_t kSaltBytes = 16;
inline constexpr std::size_t kProofBytes = 32;
inline constexpr std::size_t kRejoinTokenBytes = 32;  // 256 random bits

using Nonce = std::array<std::uint8_t, kNonceBytes>;
using Salt = std::array<std::uint8_t, kSaltBytes>;
using Proof = std::array<std::uint8_t, kProofBytes>;
using RejoinToken = std::array<std::uint8_t, kRejoinTokenBytes>;
using PasswordKey = std::array<std::uint8_t, 32>;
// The rejoin token travels sealed to a key pair the client made for this connection
// (X25519, libsodium's sealed box): a listener on the path cannot read it.
inline constexpr std::size_t kBoxKeyBytes = 32;
inline constexpr std::size_t kSealedTokenBytes = kRejoinTokenBytes + 48;
using BoxPublicKey = std::array<std::uint8_t, kBoxKeyBytes>;
using SealedToken = std::array<std::uint8_t, kSealedTokenBytes>;
struct BoxKeys {
    BoxPublicKey public_key{};
    std::array<std::uint8_t, kBoxKeyBytes> secret_key{};
};

// Fills `out` from the operating system's random source.
void random_bytes(std::span<std::uint8_t> out);

template <std::size_t N>
std::array<std::uint8_t, N> random_array() {
    std::array<std::uint8_t, N> out;
    random_bytes(out);
    return out;
}

// What deriving a password key costs (Argon2id): passes over memory_kib KiB. The server
// chooses it and says so in its Challenge; a client refuses costs outside the bounds.
struct KdfCost {
    std::uint8_t passes = 2;
    std::uint32_t memory_kib = 19 * 1024;  // OWASP's smallest Argon2id setting, with 2 passes
    friend bool operator==(const KdfCost&, const KdfCost&) = default;
};
inline constexpr KdfCost kMinKdfCost{1, 8};  // libsodium's floor: tests and fuzzing only
inline constexpr KdfCost kMaxKdfCost{4, 64 * 1024};
bool within_bounds(const KdfCost& cost);

// Argon2id of the password under the salt (by default about 20 MiB and a few tens of ms;
// nullopt when the cost is out of bounds or the machine cannot spare the memory).
std::optional<PasswordKey> derive_password_key(const std::string& password, const Salt& salt,
                                               const KdfCost& cost = {});

// The answer to `nonce` under a password key. The role is part of what is hashed: a
// spectator's proof never passes as a player's.
Proof password_proof(const PasswordKey& key, const Nonce& nonce, Role role);
// The answer to `nonce` under a slot's rejoin token.
Proof rejoin_proof(const RejoinToken& token, const Nonce& nonce);

BoxKeys new_box_keys();
SealedToken seal_token(const RejoinToken& token, const BoxPublicKey& to);
// nullopt: not sealed to these keys (or damaged).
std::optional<RejoinToken> open_token(const SealedToken& sealed, const BoxKeys& keys);

// Constant-time comparison.
bool same_proof(const Proof& a, const Proof& b);

// The token as 64 lower-case hex digits, and back (nullopt: not exactly that).
std::string token_to_hex(const RejoinToken& token);
std::optional<RejoinToken> token_from_hex(const std::string& text);

}  // namespace framelock::netplay
