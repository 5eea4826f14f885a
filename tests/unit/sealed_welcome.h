// A test's hand-made server welcoming a real Client: the Challenge, the client's Hello, then
// the Welcome with the key exchange a real server does (netplay/crypto/session_keys.h), signed
// by `identity` as a real server signs it (server_identity.h; tests/support/welcome_keys.h
// fills it in). From then on the SealedTransport seals what the test sends the client and
// opens what it sends.
#pragma once

#include <catch2/catch.hpp>

#include <optional>

#include "netplay/client/client.h"
#include "netplay/crypto/server_identity.h"
#include "netplay/wire/sealed_transport.h"
#include "support/welcome_keys.h"

namespace framelock::netplay {

// A key of the tests' own hand-made servers.
inline const ServerIdentity& test_server_identity() {
    static const ServerIdentity identity;
    return identity;
}

// `named`: the key the Welcome names, when not the one that signs it (a forgery).
inline void welcome_sealed(SealedTransport& server, PeerId peer, Client& client, Welcome welcome,
                           const ServerIdentity& identity = test_server_identity(),
                           std::optional<ServerKey> named = std::nullopt) {
    Challenge challenge;
    challenge.nonce = random_array<kNonceBytes>();
    server.send(peer, Channel::kControl, encode(challenge));
    client.tick(0);  // the Hello
    std::optional<Hello> hello;
    while (auto e = server.poll()) {
        if (e->type == TransportEvent::Type::kMessage && peek_id(e->data) == MsgId::kHello)
            hello = decode_hello(e->data);
    }
    REQUIRE(hello);
    const auto keys = test::sign_welcome(welcome, challenge.nonce, hello->kx_key, identity, named);
    REQUIRE(keys);
    server.send(peer, Channel::kControl, encode(welcome));
    server.seal(peer, *keys);
}

}  // namespace framelock::netplay
