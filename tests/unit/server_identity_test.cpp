// The server's key (netplay/crypto/server_identity.h): a Welcome's signature holds for one
// connection's nonce and key exchange keys only, keys travel as one text each, and a client
// told the key joins only the server holding it, with a refusal naming both keys.
#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>

#include "netplay/client/client.h"
#include "netplay/crypto/server_identity.h"
#include "netplay/sim/sim_network.h"
#include "netplay/sim/sim_session.h"
#include "sealed_welcome.h"
#include "unit/three_slot_server.h"
#include "wire_fixtures.h"

using namespace framelock::netplay;

TEST_CASE("Server key: a Welcome's signature holds for its nonce and both key exchange keys only",
          "[netplay][crypto][server_key]") {
    const ServerIdentity server, other;
    const Nonce nonce = random_array<kNonceBytes>();
    const KxPublicKey client = new_kx_keys().public_key, own = new_kx_keys().public_key;
    const ServerSignature signature = server.sign_welcome(nonce, client, own);
    CHECK(welcome_signed_by(server.public_key(), signature, nonce, client, own));
    CHECK_FALSE(welcome_signed_by(other.public_key(), signature, nonce, client, own));
    CHECK_FALSE(welcome_signed_by(server.public_key(), signature, random_array<kNonceBytes>(),
                                  client, own));
    // A man in the middle's key exchange key, on either side, breaks it.
    const KxPublicKey swapped = new_kx_keys().public_key;
    CHECK_FALSE(welcome_signed_by(server.public_key(), signature, nonce, swapped, own));
    CHECK_FALSE(welcome_signed_by(server.public_key(), signature, nonce, client, swapped));
    // Either half's key in the other's place (a reflected Welcome) breaks it too.
    CHECK_FALSE(welcome_signed_by(server.public_key(), signature, nonce, own, client));
    int refused = 0;
    for (std::size_t i = 0; i < signature.size(); ++i) {
        ServerSignature altered = signature;
        altered[i] ^= 0x01;
        refused += welcome_signed_by(server.public_key(), altered, nonce, client, own) ? 0 : 1;
    }
    CHECK(refused == static_cast<int>(signature.size()));
    CHECK(server.public_key() != other.public_key());
}

TEST_CASE("Server key: one text of 43 characters per key, anything else is refused",
          "[netplay][crypto][server_key]") {
    const ServerIdentity server;
    const std::string text = server_key_text(server.public_key());
    CHECK(text.size() == 43);
    CHECK(text.find_first_not_of(
              "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
          std::string::npos);
    REQUIRE(parse_server_key(text));
    CHECK(*parse_server_key(text) == server.public_key());
    CHECK_FALSE(parse_server_key(""));
    CHECK_FALSE(parse_server_key(text.substr(0, 42)));
    CHECK_FALSE(parse_server_key(text + "A"));
    CHECK_FALSE(parse_server_key(text + "="));
    CHECK_FALSE(parse_server_key(" " + text));
    CHECK_FALSE(parse_server_key(text.substr(0, 42) + "+"));  // standard base64's alphabet
    // The last character carries 2 bits past the key's 256: only one of its 16 texts passes.
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    int passing = 0;
    for (char c : alphabet) passing += parse_server_key(text.substr(0, 42) + c) ? 1 : 0;
    CHECK(passing == 16);  // the 16 with those 2 bits zero, each a different key
    int same_key = 0;
    for (char c : alphabet) {
        const auto key = parse_server_key(text.substr(0, 42) + c);
        same_key += key && *key == server.public_key() ? 1 : 0;
    }
    CHECK(same_key == 1);
}

namespace {

// Runs `client` against the three-slot server for up to 2 s: until it runs or ends.
void join(ThreeSlotServer& s, Client& client) {
    client.start();
    for (int step = 0; step < 2000; ++step) {
        s.step([&] { client.tick(0); });
        if (client.state() == Client::State::kLobby || client.state() == Client::State::kEnded)
            return;
    }
}

}  // namespace

TEST_CASE("Server key: a client told the server's key joins it, and refuses any other's",
          "[netplay][client][server_key]") {
    ThreeSlotServer s{41};
    const ServerKey real = s.server.server_key();
    HashingEmulator e1, e2, e3;

    auto t1 = s.net.create_endpoint("pinned");
    ClientConfig pinned = ThreeSlotServer::player(1, "pinned", "game.flarc");
    pinned.server_key = real;
    Client c1{*t1, s.clock, e1, pinned};
    join(s, c1);
    CHECK(c1.state() == Client::State::kLobby);
    REQUIRE(c1.server_key());
    CHECK(*c1.server_key() == real);

    // Without a pin: joins, and knows the key it joined (shown to the player).
    auto t2 = s.net.create_endpoint("unpinned");
    Client c2{*t2, s.clock, e2, ThreeSlotServer::player(2, "unpinned", "game.flarc")};
    join(s, c2);
    CHECK(c2.state() == Client::State::kLobby);
    REQUIRE(c2.server_key());
    CHECK(*c2.server_key() == real);

    // Told another server's key: this one is not the session's, whatever answers here.
    const ServerIdentity elsewhere;
    auto t3 = s.net.create_endpoint("misled");
    ClientConfig misled = ThreeSlotServer::player(3, "misled", "game.flarc");
    misled.server_key = elsewhere.public_key();
    Client c3{*t3, s.clock, e3, misled};
    join(s, c3);
    REQUIRE(c3.state() == Client::State::kEnded);
    INFO(c3.end_reason());
    CHECK_THAT(c3.end_reason(), Catch::Contains(server_key_text(real)) &&
                                    Catch::Contains(server_key_text(elsewhere.public_key())) &&
                                    Catch::Contains("refused"));
    CHECK_FALSE(c3.server_key());
    CHECK_FALSE(c3.rejoin_token());
}

TEST_CASE(
    "Server key: a Welcome signed by another key than the one it names is refused, and "
    "so is an impostor's own against the pin",
    "[netplay][client][server_key]") {
    ManualClock clock(1'000'000);
    SimNetwork net(9, clock);
    auto raw_server = net.create_endpoint("server");
    SealedTransport server(*raw_server);
    const ServerIdentity real, impostor;
    struct Case {
        const char* what;
        std::optional<ServerKey> pin;
        std::optional<ServerKey> named;  // the key the impostor's Welcome names
        const char* reason;
    };
    const Case cases[] = {
        {"names the real key, no pin", std::nullopt, real.public_key(), "not signed by"},
        {"names the real key, pinned", real.public_key(), real.public_key(), "not signed by"},
        {"names its own key, pinned", real.public_key(), std::nullopt, "another machine answers"},
    };
    int endpoint_number = 0;
    for (const Case& c : cases) {
        INFO(c.what);
        auto endpoint = net.create_endpoint("client" + std::to_string(++endpoint_number));
        HashingEmulator emulator;
        ClientConfig config;
        config.server_address = "server";
        config.identity = {"sim", "1", 1, 2, 60000, 0};
        config.server_key = c.pin;
        Client client(*endpoint, clock, emulator, config);
        client.start();
        std::optional<PeerId> peer;
        while (auto e = server.poll()) {
            if (e->type == TransportEvent::Type::kConnected) peer = e->peer;
        }
        REQUIRE(peer);
        welcome_sealed(server, *peer, client, test_welcome(1, 2, clock.now_us()), impostor,
                       c.named);
        client.tick(0);
        REQUIRE(client.state() == Client::State::kEnded);
        INFO(client.end_reason());
        CHECK_THAT(client.end_reason(), Catch::Contains(c.reason));
        CHECK_FALSE(client.server_key());
        CHECK_FALSE(client.rejoin_token());
    }
}
