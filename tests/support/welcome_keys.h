// What a server writes into the Welcome that answers a client's Hello, as framelock's own
// server does (netplay/server/admission.cpp): a key exchange key of its own for this
// connection, its Ed25519 key and its signature over the Challenge's nonce and both key
// exchange keys (netplay/crypto/server_identity.h). For the hand-made servers of the unit
// tests (tests/unit/sealed_welcome.h) and of the client fuzz target (tests/fuzz/fuzz_client.cpp),
// which then seal the connection with the keys it returns (SealedTransport::seal).
#pragma once

#include <optional>

#include "netplay/crypto/server_identity.h"
#include "netplay/crypto/session_keys.h"
#include "netplay/wire/protocol.h"

namespace framelock::test {

// Fills in `welcome`'s key exchange key, server key and signature for the client whose Hello
// carried `client_kx` in answer to the Challenge with `nonce`, signed by `identity`. `named`:
// the key the Welcome names, when not the signer's (a forgery). Returns the server side's
// seal keys (no password binding); nullopt when `client_kx` is unusable.
inline std::optional<netplay::SealKeys> sign_welcome(
    netplay::Welcome& welcome, const netplay::Nonce& nonce, const netplay::KxPublicKey& client_kx,
    const netplay::ServerIdentity& identity,
    const std::optional<netplay::ServerKey>& named = std::nullopt) {
    const netplay::KxKeys kx = netplay::new_kx_keys();
    welcome.kx_key = kx.public_key;
    welcome.server_key = named.value_or(identity.public_key());
    welcome.signature = identity.sign_welcome(nonce, client_kx, kx.public_key);
    return netplay::server_seal_keys(kx, client_kx, nonce, std::nullopt);
}

}  // namespace framelock::test
