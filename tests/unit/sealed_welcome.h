// A test's hand-made server welcoming a real Client: the Challenge, the client's Hello, then
// the Welcome with the key exchange a real server does (netplay/crypto/session_keys.h). From
// then on the SealedTransport seals what the test sends the client and opens what it sends.
#pragma once

#include <catch2/catch.hpp>

#include <optional>

#include "netplay/client/client.h"
#include "netplay/wire/sealed_transport.h"

namespace framelock::netplay {

inline void welcome_sealed(SealedTransport& server, PeerId peer, Client& client, Welcome welcome) {
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
    const KxKeys kx = new_kx_keys();
    welcome.kx_key = kx.public_key;
    server.send(peer, Channel::kControl, encode(welcome));
    server.seal(peer, server_seal_keys(kx, hello->kx_key, challenge.nonce, std::nullopt).value());
}

}  // namespace framelock::netplay
