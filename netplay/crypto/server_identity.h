// Who a server is: an Ed25519 key pair made when the server process starts (libsodium's
// crypto_sign), its public half published where joiners learn the server's address (the
// lobby's room and relay records; `host` and `server` print it for direct joins).
//
// The Welcome carries the public key and a signature over the Challenge's nonce and both
// sides' key exchange keys (session_keys.h). A client that was told the key (a pin) accepts
// only a Welcome signed by it: a man in the middle who swaps the key exchange keys cannot
// sign his own with the server's key, and one who sends his own public key is named as a
// different server. Without a pin the signature only shows the Welcome is whole; the key is
// shown to the player (docs/netplay.md, "Sealed traffic").
//
// Keys travel as text in URL-safe base64 without padding (43 characters).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "netplay/crypto/join_proof.h"
#include "netplay/crypto/session_keys.h"

namespace framelock::netplay {

inline constexpr std::size_t kServerKeyBytes = 32;
inline constexpr std::size_t kServerSignatureBytes = 64;
using ServerKey = std::array<std::uint8_t, kServerKeyBytes>;
using ServerSignature = std::array<std::uint8_t, kServerSignatureBytes>;

class ServerIdentity {
  public:
    // A new key pair from the system's random source.
    ServerIdentity();
    ~ServerIdentity();
    ServerIdentity(const ServerIdentity&) = delete;
    ServerIdentity& operator=(const ServerIdentity&) = delete;

    const ServerKey& public_key() const { return m_public; }
    // What the Welcome of one connection carries: `challenge` its Challenge's nonce, `client`
    // the Hello's key exchange key, `server` the Welcome's.
    ServerSignature sign_welcome(const Nonce& challenge, const KxPublicKey& client,
                                 const KxPublicKey& server) const;

  private:
    ServerKey m_public{};
    std::array<std::uint8_t, 64> m_secret{};
};

// Whether `signature` is `key`'s over what sign_welcome() signs.
bool welcome_signed_by(const ServerKey& key, const ServerSignature& signature,
                       const Nonce& challenge, const KxPublicKey& client,
                       const KxPublicKey& server);

// The key's text (43 characters), and back: nullopt unless `text` is exactly one key's.
std::string server_key_text(const ServerKey& key);
std::optional<ServerKey> parse_server_key(std::string_view text);

}  // namespace framelock::netplay
