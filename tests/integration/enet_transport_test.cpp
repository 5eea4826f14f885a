// EnetTransport over real UDP sockets on 127.0.0.1, server and clients in one process.
// Servers bind port 0 (the OS picks), so tests running in parallel never collide; every
// wait is bounded by a deadline of a few seconds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "netplay/io/enet_transport.h"
#include "netplay/io/real_clock.h"

using namespace framelock;
using namespace framelock::netplay;
using namespace std::chrono_literals;

namespace {

using Type = TransportEvent::Type;
using SteadyTime = std::chrono::steady_clock;

constexpr auto kDeadline = 3000ms;

std::unique_ptr<EnetTransport> make_server(std::size_t max_peers = 8, EnetOptions options = {}) {
    auto server = EnetTransport::listen("127.0.0.1:0", max_peers, options);
    if (!server) FAIL(server.error().message);
    return std::move(server).value();
}

std::unique_ptr<EnetTransport> make_client(EnetOptions options = {}) {
    auto client = EnetTransport::client(options);
    if (!client) FAIL(client.error().message);
    return std::move(client).value();
}

std::string address_of(const EnetTransport& server) {
    return "127.0.0.1:" + std::to_string(server.local_port());
}

PeerId connect_to(EnetTransport& client, const std::string& address) {
    auto peer = client.connect(address);
    if (!peer) FAIL(peer.error().message);
    return peer.value();
}

// A transport under test and every event it has handed out.
struct Side {
    EnetTransport* transport = nullptr;
    std::vector<TransportEvent> events;

    std::vector<PeerId> peers_with(Type type) const {
        std::vector<PeerId> peers;
        for (const auto& event : events) {
            if (event.type == type) peers.push_back(event.peer);
        }
        return peers;
    }
    std::vector<const TransportEvent*> messages(Channel channel) const {
        std::vector<const TransportEvent*> found;
        for (const auto& event : events) {
            if (event.type == Type::kMessage && event.channel == channel) found.push_back(&event);
        }
        return found;
    }
    std::size_t count(Type type) const { return peers_with(type).size(); }
};

// Polls every side until done() holds or `limit` passes. Returns done().
template <class Done>
bool pump(const std::vector<Side*>& sides, Done done, std::chrono::milliseconds limit = kDeadline) {
    const auto deadline = SteadyTime::now() + limit;
    for (;;) {
        for (Side* side : sides) {
            while (auto event = side->transport->poll()) side->events.push_back(std::move(*event));
        }
        if (done()) return true;
        if (SteadyTime::now() >= deadline) return false;
        std::this_thread::sleep_for(1ms);
    }
}

// Polls for `duration`, whatever happens.
void pump_for(const std::vector<Side*>& sides, std::chrono::milliseconds duration) {
    (void)pump(
        sides, [] { return false; }, duration);
}

// A server and one client, connected: both sides have seen kConnected.
struct Pair {
    std::unique_ptr<EnetTransport> server_transport;
    std::unique_ptr<EnetTransport> client_transport;
    Side server;
    Side client;
    PeerId server_peer = 0;  // the server, as the client knows it
    PeerId client_peer = 0;  // the client, as the server knows it

    explicit Pair(EnetOptions options = {})
        : server_transport(make_server(8, options)), client_transport(make_client(options)) {
        server.transport = server_transport.get();
        client.transport = client_transport.get();
        server_peer = connect_to(*client_transport, address_of(*server_transport));
        REQUIRE(pump({&server, &client}, [&] {
            return server.count(Type::kConnected) == 1 && client.count(Type::kConnected) == 1;
        }));
        REQUIRE(client.peers_with(Type::kConnected).front() == server_peer);
        client_peer = server.peers_with(Type::kConnected).front();
        server.events.clear();
        client.events.clear();
    }
    std::vector<Side*> both() { return {&server, &client}; }
};

std::vector<std::uint8_t> pattern(std::size_t size, std::uint8_t seed) {
    std::vector<std::uint8_t> bytes(size);
    for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::uint8_t>(seed + i * 31);
    return bytes;
}

std::vector<std::uint8_t> numbered(std::uint32_t index, std::size_t size) {
    std::vector<std::uint8_t> bytes(std::max<std::size_t>(size, 4), 0xA5);
    for (int i = 0; i < 4; ++i) bytes[i] = static_cast<std::uint8_t>(index >> (8 * i));
    return bytes;
}

std::uint32_t number_of(const std::vector<std::uint8_t>& bytes) {
    std::uint32_t index = 0;
    for (int i = 0; i < 4; ++i) index |= static_cast<std::uint32_t>(bytes.at(i)) << (8 * i);
    return index;
}

long long elapsed_ms(SteadyTime::time_point since) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyTime::now() - since).count();
}

}  // namespace

TEST_CASE("Client and server both see the connection", "[netplay][enet]") {
    Pair pair;
    CHECK(pair.server_peer >= 1);
    CHECK(pair.client_peer >= 1);
    CHECK(pair.client_transport->peer_address(pair.server_peer) ==
          address_of(*pair.server_transport));
    CHECK(pair.server_transport->peer_address(pair.client_peer).rfind("127.0.0.1:", 0) == 0);
    CHECK_FALSE(pair.client_transport->round_trip_ms(9999).has_value());
    // The RTT is measured once acknowledgements flow (ENet's default of 500 ms before).
    pump_for(pair.both(), 50ms);
    const auto rtt = pair.client_transport->round_trip_ms(pair.server_peer);
    REQUIRE(rtt.has_value());
    CHECK(*rtt < 100);
    CHECK(pair.client_transport->peer_address(9999).empty());
    CHECK(pair.client_transport->local_port() != 0);
}

TEST_CASE("Messages on all three channels arrive intact", "[netplay][enet]") {
    Pair pair;
    const std::vector<std::size_t> sizes = {0, 1, 1400};
    const std::vector<std::size_t> bulk_sizes = {0, 1, 1400, 64 * 1024};
    for (std::size_t size : sizes) {
        pair.client_transport->send(pair.server_peer, Channel::kControl, pattern(size, 1));
        pair.client_transport->send(pair.server_peer, Channel::kInput, pattern(size, 2));
    }
    for (std::size_t size : bulk_sizes) {
        pair.client_transport->send(pair.server_peer, Channel::kBulk, pattern(size, 3));
    }
    pair.client_transport->flush();
    REQUIRE(pump(pair.both(), [&] { return pair.server.count(Type::kMessage) == 10; }));

    const auto control = pair.server.messages(Channel::kControl);
    const auto input = pair.server.messages(Channel::kInput);
    const auto bulk = pair.server.messages(Channel::kBulk);
    REQUIRE(control.size() == 3);
    REQUIRE(input.size() == 3);
    REQUIRE(bulk.size() == 4);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        CHECK(control[i]->peer == pair.client_peer);
        CHECK(control[i]->data == pattern(sizes[i], 1));  // reliable: in order
    }
    for (std::size_t i = 0; i < bulk_sizes.size(); ++i) {
        CHECK(bulk[i]->data == pattern(bulk_sizes[i], 3));
    }
    // Unsequenced: any order, each intact.
    std::multiset<std::vector<std::uint8_t>> expected_input, got_input;
    for (std::size_t size : sizes) expected_input.insert(pattern(size, 2));
    for (const auto* message : input) got_input.insert(message->data);
    CHECK(got_input == expected_input);

    // And the other way.
    pair.server_transport->send(pair.client_peer, Channel::kBulk, pattern(64 * 1024, 9));
    pair.server_transport->flush();
    REQUIRE(pump(pair.both(), [&] { return pair.client.count(Type::kMessage) == 1; }));
    CHECK(pair.client.events.back().peer == pair.server_peer);
    CHECK(pair.client.events.back().channel == Channel::kBulk);
    CHECK(pair.client.events.back().data == pattern(64 * 1024, 9));
}

TEST_CASE("1000 reliable messages arrive in order on control and bulk", "[netplay][enet]") {
    Pair pair;
    constexpr std::uint32_t kCount = 1000;
    for (std::uint32_t i = 0; i < kCount; ++i) {
        pair.client_transport->send(pair.server_peer, Channel::kControl, numbered(i, 4 + i % 64));
        pair.client_transport->send(pair.server_peer, Channel::kBulk, numbered(i, 200));
        if (i % 100 == 0) pair.client_transport->poll();  // keep ENet moving as an app would
    }
    REQUIRE(pump(
        pair.both(), [&] { return pair.server.count(Type::kMessage) == 2 * kCount; }, 5000ms));
    for (Channel channel : {Channel::kControl, Channel::kBulk}) {
        const auto messages = pair.server.messages(channel);
        REQUIRE(messages.size() == kCount);
        for (std::uint32_t i = 0; i < kCount; ++i) {
            if (number_of(messages[i]->data) != i) FAIL("message " << i << " out of order");
        }
    }
}

TEST_CASE("Four clients get distinct PeerIds, never reused", "[netplay][enet]") {
    auto server_transport = make_server(8);
    Side server{server_transport.get(), {}};
    std::vector<std::unique_ptr<EnetTransport>> client_transports;
    std::vector<Side> clients(5);
    for (int i = 0; i < 4; ++i) {
        client_transports.push_back(make_client());
        clients[i].transport = client_transports.back().get();
        connect_to(*clients[i].transport, address_of(*server_transport));
    }
    const auto sides = [&] {
        std::vector<Side*> all = {&server};
        for (std::size_t i = 0; i < client_transports.size(); ++i) all.push_back(&clients[i]);
        return all;
    };
    REQUIRE(pump(sides(), [&] {
        return server.count(Type::kConnected) == 4 &&
               std::all_of(clients.begin(), clients.begin() + 4,
                           [](const Side& c) { return c.count(Type::kConnected) == 1; });
    }));
    const auto ids = server.peers_with(Type::kConnected);
    const std::set<PeerId> distinct(ids.begin(), ids.end());
    CHECK(distinct.size() == 4);
    CHECK(distinct.count(0) == 0);

    // Each client's message arrives under that client's id.
    for (int i = 0; i < 4; ++i) {
        const PeerId server_peer = clients[i].peers_with(Type::kConnected).front();
        clients[i].transport->send(server_peer, Channel::kControl,
                                   numbered(static_cast<std::uint32_t>(i), 4));
        clients[i].transport->flush();
    }
    REQUIRE(pump(sides(), [&] { return server.count(Type::kMessage) == 4; }));
    std::set<PeerId> senders;
    for (const auto* message : server.messages(Channel::kControl)) senders.insert(message->peer);
    CHECK(senders == distinct);

    // One leaves, a fifth joins (taking the freed ENet slot): a new id.
    const PeerId leaving = clients[0].peers_with(Type::kConnected).front();
    clients[0].transport->disconnect(leaving);
    REQUIRE(pump(sides(), [&] { return server.count(Type::kDisconnected) == 1; }));
    client_transports.push_back(make_client());
    clients[4].transport = client_transports.back().get();
    connect_to(*clients[4].transport, address_of(*server_transport));
    REQUIRE(pump(sides(), [&] { return server.count(Type::kConnected) == 5; }));
    const PeerId newcomer = server.peers_with(Type::kConnected).back();
    CHECK(distinct.count(newcomer) == 0);
    CHECK(newcomer > *distinct.rbegin());
}

TEST_CASE("A disconnect is seen by the other side only", "[netplay][enet]") {
    SECTION("client disconnects gracefully") {
        Pair pair;
        pair.client_transport->disconnect(pair.server_peer);
        REQUIRE(pump(pair.both(), [&] { return pair.server.count(Type::kDisconnected) == 1; }));
        CHECK(pair.server.peers_with(Type::kDisconnected).front() == pair.client_peer);
        pump_for(pair.both(), 100ms);
        CHECK(pair.client.events.empty());  // no event on the side that disconnected
        // Sending to a closed peer does nothing.
        pair.client_transport->send(pair.server_peer, Channel::kControl, pattern(8, 0));
        CHECK(pair.client_transport->stats(pair.server_peer).payload_bytes_sent == 0);
    }
    SECTION("server disconnects gracefully") {
        Pair pair;
        pair.server_transport->disconnect(pair.client_peer);
        REQUIRE(pump(pair.both(), [&] { return pair.client.count(Type::kDisconnected) == 1; }));
        CHECK(pair.client.peers_with(Type::kDisconnected).front() == pair.server_peer);
        pump_for(pair.both(), 100ms);
        CHECK(pair.server.events.empty());
    }
    SECTION("a graceful disconnect delivers what was sent before it") {
        Pair pair;
        const auto start = SteadyTime::now();
        pair.server_transport->send(pair.client_peer, Channel::kControl, pattern(5, 7));
        pair.server_transport->disconnect(pair.client_peer);  // no flush in between
        REQUIRE(pump(pair.both(), [&] { return pair.client.count(Type::kDisconnected) == 1; }));
        CHECK(elapsed_ms(start) >= kCloseLingerUs / 1000);
        REQUIRE(pair.client.events.size() == 2);
        CHECK(pair.client.events[0].type == Type::kMessage);
        CHECK(pair.client.events[0].data == pattern(5, 7));
        CHECK(pair.client.events[1].type == Type::kDisconnected);
        CHECK(pair.server.events.empty());
    }
    SECTION("disconnect_now") {
        Pair pair;
        pair.server_transport->disconnect_now(pair.client_peer);
        CHECK_FALSE(pair.server_transport->round_trip_ms(pair.client_peer).has_value());
        REQUIRE(pump(pair.both(), [&] { return pair.client.count(Type::kDisconnected) == 1; }));
        CHECK(pair.client.peers_with(Type::kDisconnected).front() == pair.server_peer);
        pump_for(pair.both(), 100ms);
        CHECK(pair.server.events.empty());
    }
    SECTION("the client's transport is destroyed") {
        Pair pair;
        pair.client_transport.reset();
        REQUIRE(pump({&pair.server}, [&] { return pair.server.count(Type::kDisconnected) == 1; }));
        CHECK(pair.server.peers_with(Type::kDisconnected).front() == pair.client_peer);
    }
}

TEST_CASE("Connecting to nobody ends in kDisconnected within the timeout", "[netplay][enet]") {
    const EnetOptions options{.peer_timeout_us = 300'000};
    std::string address;
    std::unique_ptr<EnetTransport> silent;
    SECTION("a bound socket that never answers") {
        silent = make_server();  // never polled
        address = address_of(*silent);
    }
    SECTION("a closed port") {
        address = address_of(*make_server());  // destroyed again: the port is free
    }
    auto client_transport = make_client(options);
    Side client{client_transport.get(), {}};
    const auto start = SteadyTime::now();
    const PeerId peer = connect_to(*client_transport, address);
    REQUIRE(pump(
        {&client}, [&] { return !client.events.empty(); }, 2000ms));
    const auto took = elapsed_ms(start);
    REQUIRE(client.events.size() == 1);
    CHECK(client.events[0].type == Type::kDisconnected);
    CHECK(client.events[0].peer == peer);
    CHECK(took >= 290);
    CHECK(took <= 600);
    INFO("connect failed after " << took << " ms");
}

TEST_CASE("A peer that goes silent is dropped after the timeout", "[netplay][enet]") {
    Pair pair(EnetOptions{.peer_timeout_us = 400'000});
    // Traffic up to the moment the server stops polling, so the silence starts then.
    const auto until = SteadyTime::now() + 100ms;
    while (SteadyTime::now() < until) {
        pair.server_transport->send(pair.client_peer, Channel::kInput, pattern(4, 0));
        pump_for(pair.both(), 2ms);
    }
    const auto stopped = SteadyTime::now();
    REQUIRE(pump({&pair.client}, [&] { return pair.client.count(Type::kDisconnected) == 1; }));
    const auto took = elapsed_ms(stopped);
    INFO("dropped after " << took << " ms of silence");
    CHECK(took >= 390);
    CHECK(took <= 1000);
    CHECK(pair.client.peers_with(Type::kDisconnected).front() == pair.server_peer);
    // The server, polling again, learns it too.
    REQUIRE(pump({&pair.server}, [&] { return pair.server.count(Type::kDisconnected) == 1; }));
}

TEST_CASE("A connected peer outlives the connect timeout's worth of silence (a network outage)",
          "[netplay][enet]") {
    // A short connect timeout and a longer peer timeout: an unanswered connect fails after
    // the first, a connected peer silent for twice as long is kept (sessions ride out an
    // outage this way), and dropped after the second.
    const EnetOptions options{.peer_timeout_us = 1'200'000, .connect_timeout_us = 300'000};
    {
        auto lone = make_client(options);
        Side side{lone.get(), {}};
        const auto start = SteadyTime::now();
        connect_to(*lone, address_of(*make_server()));
        REQUIRE(pump(
            {&side}, [&] { return !side.events.empty(); }, 2000ms));
        CHECK(side.events[0].type == Type::kDisconnected);
        CHECK(elapsed_ms(start) <= 800);
    }
    Pair pair(options);
    pump_for(pair.both(), 50ms);
    // The server stops answering for 600 ms (twice the connect timeout): the client keeps it.
    const auto stopped = SteadyTime::now();
    pump_for({&pair.client}, 600ms);
    CHECK(pair.client.events.empty());
    pair.server_transport->send(pair.client_peer, Channel::kInput, pattern(4, 1));
    pump_for(pair.both(), 100ms);
    REQUIRE(pair.client.count(Type::kMessage) == 1);
    CHECK(pair.client.count(Type::kDisconnected) == 0);
    CHECK(pair.server.count(Type::kDisconnected) == 0);
    INFO("silent for " << elapsed_ms(stopped) << " ms and kept");
    // Silent for the whole peer timeout: dropped. (The server's last datagram may be up to a
    // ping interval, timeout / 4, older than this moment.)
    const auto silent = SteadyTime::now();
    REQUIRE(pump(
        {&pair.client}, [&] { return pair.client.count(Type::kDisconnected) == 1; }, 3000ms));
    CHECK(elapsed_ms(silent) >= 1200 - 300 - 50);
    CHECK(elapsed_ms(silent) <= 2000);
}

TEST_CASE("An idle but live connection is kept, even with a short timeout", "[netplay][enet]") {
    Pair pair(EnetOptions{.peer_timeout_us = 300'000});
    pump_for(pair.both(), 1000ms);  // no messages at all: only ENet's pings keep it alive
    CHECK(pair.server.events.empty());
    CHECK(pair.client.events.empty());
    CHECK(pair.client_transport->round_trip_ms(pair.server_peer).has_value());
}

TEST_CASE("set_peer_timeout changes the timeout of live peers", "[netplay][enet]") {
    Pair pair;
    pair.client_transport->set_peer_timeout(300'000);
    pump_for(pair.both(), 50ms);
    const auto stopped = SteadyTime::now();
    REQUIRE(pump({&pair.client}, [&] { return pair.client.count(Type::kDisconnected) == 1; }));
    CHECK(elapsed_ms(stopped) <= 1000);
}

TEST_CASE("Listening on an address in use names it and suggests --port", "[netplay][enet]") {
    auto first = make_server();
    const std::string taken = address_of(*first);
    auto second = EnetTransport::listen(taken, 4);
    REQUIRE_FALSE(second.ok());
    const std::string& message = second.error().message;
    INFO(message);
    CHECK(second.error().code == ErrorCode::kUsage);
    CHECK(message.find(taken) != std::string::npos);
    CHECK(message.find("in use") != std::string::npos);
    CHECK(message.find("--port") != std::string::npos);

    auto no_peers = EnetTransport::listen("127.0.0.1:0", 0);
    REQUIRE_FALSE(no_peers.ok());
    CHECK(no_peers.error().message.find("127.0.0.1:0") != std::string::npos);
}

TEST_CASE("Listening on :0 and 0.0.0.0:0 binds every interface", "[netplay][enet]") {
    for (const char* any : {":0", "0.0.0.0:0"}) {
        auto server = EnetTransport::listen(any, 2);
        REQUIRE(server.ok());
        CHECK(server.value()->local_port() != 0);
    }
}

TEST_CASE("Malformed addresses are errors naming the input", "[netplay][enet]") {
    auto client = make_client();
    const std::vector<std::string> both = {
        "",
        "7845",
        "127.0.0.1",
        "127.0.0.1:",
        "127.0.0.1:abc",
        "127.0.0.1:65536",
        "127.0.0.1:-1",
        "127.0.0.1:123456",
        "999.1.1.1:7845",
        "1.2.3:7845",
        "::1:7845",
        "[::1]:7845",
        "bad host:7845",
        "a_b:7845",
    };
    for (const auto& address : both) {
        INFO("address '" << address << "'");
        auto listened = EnetTransport::listen(address, 2);
        REQUIRE_FALSE(listened.ok());
        CHECK(listened.error().code == ErrorCode::kUsage);
        CHECK(listened.error().message.find("'" + address + "'") != std::string::npos);
        auto connected = client->connect(address);
        REQUIRE_FALSE(connected.ok());
        CHECK(connected.error().message.find("'" + address + "'") != std::string::npos);
    }
    for (const std::string address : {":7845", "127.0.0.1:0"}) {  // fine for listen only
        INFO("address '" << address << "'");
        auto connected = client->connect(address);
        REQUIRE_FALSE(connected.ok());
        CHECK(connected.error().message.find("'" + address + "'") != std::string::npos);
    }
}

TEST_CASE("A host name is resolved", "[netplay][enet]") {
    auto server = make_server();
    Side server_side{server.get(), {}};
    auto client = make_client();
    Side client_side{client.get(), {}};
    connect_to(*client, "localhost:" + std::to_string(server->local_port()));
    CHECK(pump({&server_side, &client_side},
               [&] { return client_side.count(Type::kConnected) == 1; }));
}

TEST_CASE("A client has one peer slot", "[netplay][enet]") {
    Pair pair;
    auto second = pair.client_transport->connect(address_of(*pair.server_transport));
    REQUIRE_FALSE(second.ok());
    CHECK(second.error().message.find("slot") != std::string::npos);
}

TEST_CASE("Stats count payload and wire bytes", "[netplay][enet]") {
    Pair pair;
    EnetTransport& client = *pair.client_transport;
    EnetTransport& server = *pair.server_transport;
    constexpr int kMessages = 100;
    constexpr std::size_t kSize = 16;
    for (int i = 0; i < kMessages; ++i) {
        client.send(pair.server_peer, Channel::kInput,
                    numbered(static_cast<std::uint32_t>(i), kSize));
        if (i % 10 == 9) client.flush();
    }
    REQUIRE(pump(pair.both(), [&] { return pair.server.count(Type::kMessage) == kMessages; }));
    pump_for(pair.both(), 50ms);

    const PeerStats sent = client.stats(pair.server_peer);
    const PeerStats received = server.stats(pair.client_peer);
    CHECK(sent.payload_bytes_sent == kMessages * kSize);
    CHECK(received.payload_bytes_received == kMessages * kSize);
    CHECK(sent.datagrams_sent >= 10);
    CHECK(sent.wire_bytes_sent >=
          sent.payload_bytes_sent + kIpUdpHeaderBytes * sent.datagrams_sent);
    CHECK(sent.datagrams_received >= 1);
    CHECK(sent.wire_bytes_received >= kIpUdpHeaderBytes * sent.datagrams_received);
    CHECK(received.wire_bytes_received >=
          received.payload_bytes_received + kIpUdpHeaderBytes * received.datagrams_received);

    // The client has one peer slot: its per-peer figures are the socket's, exactly.
    const PeerStats client_host = client.host_stats();
    CHECK(sent.wire_bytes_sent == client_host.wire_bytes_sent);
    CHECK(sent.datagrams_sent == client_host.datagrams_sent);
    CHECK(sent.wire_bytes_received == client_host.wire_bytes_received);
    CHECK(sent.datagrams_received == client_host.datagrams_received);

    // What the server read from the client can't exceed what the client sent; the server's
    // socket also read the connection request, before ENet had a peer for it.
    CHECK(received.datagrams_received <= sent.datagrams_sent);
    CHECK(received.wire_bytes_received <= sent.wire_bytes_sent);
    CHECK(server.host_stats().datagrams_received >= received.datagrams_received + 1);
    CHECK(server.stats(9999).wire_bytes_sent == 0);

    // One 10-byte input alone in a datagram costs 10 + 2 (ENet header without a sent time)
    // + 4 (its CRC32) + 8 (unsequenced command) + 28 (IPv4 + UDP) = 52 bytes on the wire. A ping or
    // an acknowledgement can share the datagram, so try a few times.
    bool exact = false;
    for (int attempt = 0; attempt < 5 && !exact; ++attempt) {
        pump_for(pair.both(), 20ms);
        const PeerStats before = client.stats(pair.server_peer);
        client.send(pair.server_peer, Channel::kInput, pattern(10, 0));
        client.flush();
        const PeerStats after = client.stats(pair.server_peer);
        exact = after.datagrams_sent - before.datagrams_sent == 1 &&
                after.wire_bytes_sent - before.wire_bytes_sent == 52;
    }
    CHECK(exact);
}

TEST_CASE("Server stats split sends among its peers and add up to the socket's",
          "[netplay][enet]") {
    auto server_transport = make_server(4);
    Side server{server_transport.get(), {}};
    std::vector<std::unique_ptr<EnetTransport>> client_transports;
    std::vector<Side> clients(3);
    std::vector<Side*> sides = {&server};
    for (auto& client : clients) {
        client_transports.push_back(make_client());
        client.transport = client_transports.back().get();
        connect_to(*client.transport, address_of(*server_transport));
        sides.push_back(&client);
    }
    REQUIRE(pump(sides, [&] { return server.count(Type::kConnected) == 3; }));
    const auto ids = server.peers_with(Type::kConnected);
    for (int tick = 0; tick < 30; ++tick) {
        for (PeerId id : ids) server_transport->send(id, Channel::kInput, pattern(20, 1));
        server_transport->flush();
    }
    REQUIRE(pump(sides, [&] {
        return std::all_of(clients.begin(), clients.end(),
                           [](const Side& c) { return c.count(Type::kMessage) == 30; });
    }));
    std::uint64_t wire = 0, datagrams = 0;
    for (PeerId id : ids) {
        const PeerStats stats = server_transport->stats(id);
        CHECK(stats.payload_bytes_sent == 30 * 20);
        CHECK(stats.wire_bytes_sent >= stats.payload_bytes_sent + kIpUdpHeaderBytes * 30);
        wire += stats.wire_bytes_sent;
        datagrams += stats.datagrams_sent;
    }
    const PeerStats host = server_transport->host_stats();
    CHECK(host.payload_bytes_sent == 3 * 30 * 20);
    CHECK(wire <= host.wire_bytes_sent);
    CHECK(datagrams <= host.datagrams_sent);
    CHECK(datagrams >= 90);
}

TEST_CASE("wait() sleeps until a packet arrives or the time is up", "[netplay][enet]") {
    Pair pair;
    pump_for(pair.both(), 20ms);
    auto start = SteadyTime::now();
    CHECK_FALSE(pair.server_transport->wait(150'000));
    const auto idle = elapsed_ms(start);
    CHECK(idle >= 140);
    CHECK(idle <= 1000);

    pair.client_transport->send(pair.server_peer, Channel::kInput, pattern(3, 3));
    pair.client_transport->flush();
    start = SteadyTime::now();
    REQUIRE(pair.server_transport->wait(2'000'000));
    CHECK(elapsed_ms(start) < 1000);
    const auto event = pair.server_transport->poll();
    REQUIRE(event.has_value());
    CHECK(event->type == Type::kMessage);
    CHECK(event->data == pattern(3, 3));
    CHECK_FALSE(pair.server_transport->wait(0));
}

TEST_CASE("SteadyClock counts microseconds forward", "[netplay][enet]") {
    const SteadyClock clock;
    const Micros a = clock.now_us();
    std::this_thread::sleep_for(2ms);
    const Micros b = clock.now_us();
    CHECK(b - a >= 2000);
    CHECK(b - a < 2'000'000);
}

TEST_CASE("A probe is answered by the socket it reaches, with the address it came from",
          "[netplay][enet][rendezvous]") {
    auto server = make_server();
    auto client = make_client();
    auto server_end = parse_endpoint(address_of(*server));
    REQUIRE(server_end);
    client->send_datagram(server_end.value(), Probe{42});
    std::optional<EnetTransport::Datagram> got;
    const auto deadline = SteadyTime::now() + kDeadline;
    while (!got && SteadyTime::now() < deadline) {
        server->poll();  // answers the probe inside its service call
        client->poll();
        got = client->poll_datagram();
        std::this_thread::sleep_for(1ms);
    }
    REQUIRE(got);
    CHECK(got->from == server_end.value());
    const auto* reply = std::get_if<ProbeReply>(&got->message);
    REQUIRE(reply);
    CHECK(reply->nonce == 42);
    CHECK(reply->seen == Endpoint{0x7F000001, client->local_port()});
    // Probes are answered by the transport itself, never queued for the application.
    CHECK_FALSE(server->poll_datagram());

    // Other rendezvous datagrams are queued for the application.
    client->send_datagram(server_end.value(), HostRegister{});
    std::optional<EnetTransport::Datagram> registered;
    const auto deadline2 = SteadyTime::now() + kDeadline;
    while (!registered && SteadyTime::now() < deadline2) {
        server->poll();
        registered = server->poll_datagram();
        std::this_thread::sleep_for(1ms);
    }
    REQUIRE(registered);
    CHECK(std::holds_alternative<HostRegister>(registered->message));
}

TEST_CASE(
    "The guard caps silent connections per address, and a newcomer to a full server takes "
    "a silent one's slot, never a peer's that spoke",
    "[netplay][enet][floods]") {
    EnetOptions guarded;
    guarded.max_silent_per_address = 2;
    auto server_transport = make_server(6, guarded);
    Side server{server_transport.get(), {}};
    const std::string address = address_of(*server_transport);
    // Two attackers, five connections each, never a message.
    std::vector<std::unique_ptr<EnetTransport>> attackers;
    std::vector<Side> attacker_sides(2);
    for (int a = 0; a < 2; ++a) {
        auto t = EnetTransport::listen("127.0.0." + std::to_string(12 + a) + ":0", 5);
        if (!t) FAIL(t.error().message);
        attackers.push_back(std::move(t).value());
        attacker_sides[a].transport = attackers.back().get();
        for (int c = 0; c < 5; ++c) connect_to(*attackers.back(), address);
    }
    std::vector<Side*> sides = {&server, &attacker_sides[0], &attacker_sides[1]};
    // Two from each address get in; the other requests are dropped unread.
    REQUIRE(pump(sides, [&] { return server.count(Type::kConnected) == 4; }));
    pump_for(sides, 300ms);
    CHECK(server.count(Type::kConnected) == 4);
    CHECK(attacker_sides[0].count(Type::kConnected) == 2);
    CHECK(attacker_sides[1].count(Type::kConnected) == 2);
    CHECK(server_transport->guard_totals().refused >= 6);
    // The attackers stand still from here (no retransmitted requests), two players fill the
    // table, and speak.
    sides = {&server};
    std::vector<std::unique_ptr<EnetTransport>> players;
    std::vector<Side> player_sides(3);
    for (int p = 0; p < 2; ++p) {
        players.push_back(make_client());
        player_sides[p].transport = players.back().get();
        sides.push_back(&player_sides[p]);
        const PeerId to_server = connect_to(*players.back(), address);
        REQUIRE(pump(sides, [&] { return player_sides[p].count(Type::kConnected) == 1; }));
        players.back()->send(to_server, Channel::kControl, pattern(8, 1));
    }
    REQUIRE(pump(sides, [&] { return server.messages(Channel::kControl).size() == 2; }));
    const std::vector<PeerId> spoke = {server.messages(Channel::kControl)[0]->peer,
                                       server.messages(Channel::kControl)[1]->peer};
    // A newcomer: the server's table is full, so a silent attacker goes.
    players.push_back(make_client());
    player_sides[2].transport = players.back().get();
    sides.push_back(&player_sides[2]);
    connect_to(*players.back(), address);
    REQUIRE(pump(sides, [&] { return player_sides[2].count(Type::kConnected) == 1; }));
    const std::vector<PeerId> gone = server.peers_with(Type::kDisconnected);
    REQUIRE(gone.size() == 1);
    CHECK(std::find(spoke.begin(), spoke.end(), gone.front()) == spoke.end());
    CHECK(server_transport->guard_totals().evicted == 1);
    const auto report = server_transport->take_guard_report();
    CHECK(report.size() == 2);
    CHECK(report.count("127.0.0.12") == 1);
    CHECK(server_transport->take_guard_report().empty());
}
