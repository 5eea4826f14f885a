// The seal of a session's traffic after the join: the key exchange and its binding
// (netplay/crypto/session_keys.h), the replay window (replay_window.h), one message sealed and
// opened (datagram_seal.h), and the transport that seals per peer (wire/sealed_transport.h).
#include <sodium.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "netplay/crypto/datagram_seal.h"
#include "netplay/crypto/join_proof.h"
#include "netplay/crypto/replay_window.h"
#include "netplay/crypto/session_keys.h"
#include "netplay/interfaces/clock.h"
#include "netplay/sim/sim_network.h"
#include "netplay/wire/sealed_transport.h"

using namespace framelock::netplay;

namespace {

struct Pair {
    SealKeys client, server;
};

Pair agreed(const std::optional<PasswordKey>& client_binding,
            const std::optional<PasswordKey>& server_binding) {
    const KxKeys c = new_kx_keys(), s = new_kx_keys();
    const Nonce nonce = random_array<kNonceBytes>();
    return {client_seal_keys(c, s.public_key, nonce, client_binding).value(),
            server_seal_keys(s, c.public_key, nonce, server_binding).value()};
}

std::vector<std::uint8_t> bytes(std::initializer_list<int> values) {
    std::vector<std::uint8_t> out;
    for (int v : values) out.push_back(static_cast<std::uint8_t>(v));
    return out;
}

}  // namespace

TEST_CASE("Seal keys: each side's send key is the other's receive key, bound to the password",
          "[netplay][seal]") {
    const Pair plain = agreed(std::nullopt, std::nullopt);
    CHECK(plain.client.send == plain.server.receive);
    CHECK(plain.client.receive == plain.server.send);
    CHECK(plain.client.send != plain.client.receive);
    const PasswordKey key = random_array<32>();
    const Pair bound = agreed(key, key);
    CHECK(bound.client.send == bound.server.receive);
    // A man in the middle without the password derives other keys than the server's.
    const Pair impostor = agreed(std::nullopt, key);
    CHECK(impostor.client.send != impostor.server.receive);
    const Pair wrong = agreed(random_array<32>(), key);
    CHECK(wrong.client.send != wrong.server.receive);
    // A low-order point (all zeros) gives a secret anyone knows: refused.
    CHECK_FALSE(client_seal_keys(new_kx_keys(), KxPublicKey{}, Nonce{}, std::nullopt));
    CHECK_FALSE(server_seal_keys(new_kx_keys(), KxPublicKey{}, Nonce{}, std::nullopt));
}

TEST_CASE("Replay window: fresh once, 64 behind the newest, wrap-safe expansion",
          "[netplay][seal]") {
    ReplayWindow window;
    CHECK(window.expand(0) == 0);
    CHECK(window.fresh(0));
    window.accept(0);
    CHECK_FALSE(window.fresh(0));  // the same counter twice: refused
    window.accept(100);
    CHECK(window.fresh(37));        // 63 behind the newest, never seen
    CHECK_FALSE(window.fresh(36));  // 64 behind: older than the window
    window.accept(99);
    CHECK_FALSE(window.fresh(99));
    CHECK(window.fresh(98));
    CHECK(window.fresh(101));
    // The low 8 bits expand to the full counter nearest the newest, across the wrap, and on
    // by whole periods when asked (a gap of lost messages).
    ReplayWindow wrap;
    for (std::uint64_t c = 250; c <= 255; ++c) wrap.accept(c);
    CHECK(wrap.expand(2) == 258);
    CHECK(wrap.expand(254) == 254);
    CHECK_FALSE(wrap.fresh(wrap.expand(254)));
    wrap.accept(258);
    CHECK(wrap.expand(255) == 255);  // just behind, before the wrap
    CHECK(wrap.fresh(256));
    CHECK(wrap.expand(3) == 259);
    CHECK(wrap.expand(3, 2) == 259 + 512);
    // A jump far ahead (a long outage) clears the window.
    wrap.accept(1'000'000);
    CHECK_FALSE(wrap.fresh(258 + 10));
    CHECK(wrap.fresh(1'000'000 - 63));
}

TEST_CASE("Datagram seal: no plaintext on the wire, and altered, cut and replayed messages refused",
          "[netplay][seal]") {
    const Pair keys = agreed(std::nullopt, std::nullopt);
    DatagramSeal client(keys.client), server(keys.server);
    const auto input = bytes({0x10, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a, 0xa5, 1, 2, 3});
    const auto sealed = client.seal(1, input);
    REQUIRE(sealed.size() == input.size() + kSealOverheadBytes);
    CHECK(std::search(sealed.begin(), sealed.end(), input.begin() + 1, input.begin() + 5) ==
          sealed.end());
    const auto opened = server.open(1, sealed);
    REQUIRE(opened);
    CHECK(*opened == input);
    // The same datagram again (a replay, or the same nonce twice): refused.
    CHECK_FALSE(server.open(1, sealed));
    CHECK(server.refusal() == DatagramSeal::Refusal::kReplayed);
    // A copy is sealed again: a new counter, a new nonce, other bytes.
    const auto copy = client.seal(1, input);
    CHECK(copy != sealed);
    // Every single byte changed anywhere (counter, ciphertext, tag): refused as altered, and
    // the untouched message still opens after.
    for (std::size_t i = 0; i < copy.size(); ++i) {
        auto altered = copy;
        altered[i] ^= 0x01;
        INFO("byte " << i);
        CHECK_FALSE(server.open(1, altered));
        // A changed counter may name one seen already (a replay), else it fails to open.
        CHECK(server.refusal() ==
              (i == 0 ? DatagramSeal::Refusal::kReplayed : DatagramSeal::Refusal::kAltered));
    }
    auto tag_flip = copy;
    tag_flip.back() ^= 0x80;
    CHECK_FALSE(server.open(1, tag_flip));
    CHECK(server.refusal() == DatagramSeal::Refusal::kAltered);
    // A tag cut short, or nothing but the header: refused.
    CHECK_FALSE(server.open(1, std::span(copy).first(copy.size() - 1)));
    CHECK(server.refusal() == DatagramSeal::Refusal::kAltered);
    CHECK_FALSE(server.open(1, std::span(copy).first(kSealOverheadBytes - 1)));
    // Another lane's nonce: refused (a message moved between channels).
    CHECK_FALSE(server.open(0, copy));
    CHECK(server.refusal() == DatagramSeal::Refusal::kAltered);
    CHECK(server.open(1, copy) == input);
    // The other direction has its own key: the client's own datagram does not open there.
    CHECK_FALSE(client.open(1, client.seal(1, input)));
    CHECK(client.open(1, server.seal(1, input)) == input);
    // An empty message seals and opens too.
    CHECK(server.open(2, client.seal(2, {})) == std::vector<std::uint8_t>{});
}

TEST_CASE(
    "Datagram seal: opens what libsodium's AEAD sealed by hand at every length around a block, "
    "seals the same bytes, and refuses every single byte altered",
    "[netplay][seal]") {
    SealKeys sender_keys, receiver_keys;
    sender_keys.send = receiver_keys.receive = random_array<kSealKeyBytes>();
    DatagramSeal sender(sender_keys), receiver(receiver_keys), in_place(receiver_keys);
    constexpr std::uint8_t kLane = 2;
    std::uint64_t counter = 0;
    for (const std::size_t length : {0, 1, 15, 16, 17, 63, 64, 65, 1000}) {
        INFO("length " << length);
        std::vector<std::uint8_t> plain(length);
        for (std::size_t i = 0; i < length; ++i) plain[i] = static_cast<std::uint8_t>(i * 7 + 3);
        // The wire bytes by hand: the counter's low byte, the AEAD's ciphertext under the nonce
        // (the lane, the counter little-endian, zeros) and no associated data, its tag's first 8.
        std::array<std::uint8_t, crypto_aead_chacha20poly1305_ietf_NPUBBYTES> nonce{};
        nonce[0] = kLane;
        for (int i = 0; i < 8; ++i) nonce[1 + i] = static_cast<std::uint8_t>(counter >> (8 * i));
        std::array<std::uint8_t, crypto_aead_chacha20poly1305_ietf_ABYTES> tag{};
        std::vector<std::uint8_t> wire(1 + length + kSealTagBytes);
        wire[0] = static_cast<std::uint8_t>(counter);
        crypto_aead_chacha20poly1305_ietf_encrypt_detached(
            wire.data() + 1, tag.data(), nullptr, plain.data(), length, nullptr, 0, nullptr,
            nonce.data(), receiver_keys.receive.data());
        std::copy(tag.begin(), tag.begin() + kSealTagBytes, wire.end() - kSealTagBytes);
        CHECK(sender.seal(kLane, plain) == wire);
        // Every single byte changed: refused (a changed counter may name one seen already).
        for (std::size_t i = 0; i < wire.size(); ++i) {
            auto altered = wire;
            altered[i] ^= 0x01;
            const auto sent = altered;
            INFO("byte " << i);
            CHECK_FALSE(receiver.open(kLane, altered));
            if (i == 0) CHECK(receiver.refusal() != DatagramSeal::Refusal::kNone);
            if (i != 0) CHECK(receiver.refusal() == DatagramSeal::Refusal::kAltered);
            CHECK_FALSE(in_place.open_in_place(kLane, altered));
            CHECK(altered == sent);  // refused: left as it was
        }
        CHECK(receiver.open(kLane, wire) == plain);
        auto datagram = wire;
        REQUIRE(in_place.open_in_place(kLane, datagram));
        CHECK(datagram == plain);
        ++counter;
    }
}

TEST_CASE("Datagram seal: reordered within the window opens, each once, past 65536 messages",
          "[netplay][seal]") {
    const Pair keys = agreed(std::nullopt, std::nullopt);
    DatagramSeal client(keys.client), server(keys.server);
    std::vector<std::vector<std::uint8_t>> batch;
    int opened = 0;
    for (int i = 0; i < 70'000; ++i) {
        batch.push_back(client.seal(1, bytes({i & 0xff, 1})));
        if (batch.size() == 10) {
            // Delivered backwards: every one within the window.
            for (auto it = batch.rbegin(); it != batch.rend(); ++it)
                opened += !!server.open(1, *it);
            batch.clear();
        }
    }
    CHECK(opened == 70'000);
    // A gap of 600 lost messages: the next one still opens (a counter 256 * k further on);
    // after 2000, none of the counters tried is its own: refused.
    for (int i = 0; i < 600; ++i) client.seal(1, bytes({1}));
    CHECK(server.open(1, client.seal(1, bytes({7}))) == bytes({7}));
    for (int i = 0; i < 2000; ++i) client.seal(1, bytes({1}));
    CHECK_FALSE(server.open(1, client.seal(1, bytes({7}))));
    CHECK(server.refusal() == DatagramSeal::Refusal::kAltered);
}

TEST_CASE("Sealed transport: a sealed peer's traffic is sealed, and what does not open is counted",
          "[netplay][seal]") {
    ManualClock clock(1'000'000);
    SimNetwork net(3, clock);
    auto server_end = net.create_endpoint("server");
    auto client_end = net.create_endpoint("client");
    SealedTransport server(*server_end), client(*client_end);
    const PeerId to_server = client.connect("server").value();
    std::optional<PeerId> to_client;
    for (int i = 0; i < 100 && !to_client; ++i) {
        clock.advance(1000);
        while (auto e = server.poll())
            if (e->type == TransportEvent::Type::kConnected) to_client = e->peer;
        while (client.poll()) {
        }
    }
    REQUIRE(to_client);
    const auto drain = [&](Transport& t) {
        std::vector<TransportEvent> out;
        for (int i = 0; i < 200; ++i) {
            clock.advance(1000);
            while (auto e = t.poll())
                if (e->type == TransportEvent::Type::kMessage) out.push_back(*e);
        }
        return out;
    };
    // Before the keys: in clear both ways (the handshake).
    client.send(to_server, Channel::kControl, bytes({1, 2, 3}));
    auto got = drain(server);
    REQUIRE(got.size() == 1);
    CHECK(got[0].data == bytes({1, 2, 3}));
    const Pair keys = agreed(std::nullopt, std::nullopt);
    // The server seals at once; its update overtakes the Welcome, and waits for the keys.
    client.hold_until_sealed(to_server);
    server.seal(*to_client, keys.server);
    server.send(*to_client, Channel::kInput, bytes({0x11, 7}));
    CHECK(drain(client).empty());
    client.seal(to_server, keys.client);
    got = drain(client);
    REQUIRE(got.size() == 1);
    CHECK(got[0].data == bytes({0x11, 7}));
    // A message in clear from a sealed peer, straight on the raw transport: refused, counted.
    client_end->send(to_server, Channel::kInput, bytes({0x10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
    client.send(to_server, Channel::kInput, bytes({0x10, 42}));
    got = drain(server);
    REQUIRE(got.size() == 1);
    CHECK(got[0].data == bytes({0x10, 42}));
    CHECK(server.stats(*to_client).altered == 1);
    CHECK(server.stats(*to_client).replayed == 0);
}
