// The client against a broken or hostile server: what it is told cannot make it do
// unbounded work or keep unbounded state.
#include <catch2/catch.hpp>

#include <memory>

#include "netplay/client/client.h"
#include "netplay/sim/sim_network.h"
#include "netplay/sim/sim_session.h"
#include "netplay/transfer/state_transfer.h"
#include "sealed_welcome.h"
#include "wire_fixtures.h"

using namespace framelock::netplay;

TEST_CASE("A Start an hour in the past does not make the client sample every frame since",
          "[netplay][client][robustness]") {
    // Found by fuzz_client: frame 0 far in the past (a hostile Start, or a clock sample
    // that moves the server's clock) made one tick sample, keep and send an input for
    // every frame up to "now" until memory ran out.
    ManualClock clock(1'000'000);
    SimNetwork net(5, clock);
    auto raw_server = net.create_endpoint("server");
    SealedTransport sealed_server(*raw_server);
    auto* server = &sealed_server;
    auto endpoint = net.create_endpoint("client1");
    HashingEmulator emulator;
    ClientConfig config;
    config.server_address = "server";
    config.requested_slot = 1;
    config.identity = {"sim", "1", 1, 2, 60000, 0};
    Client client(*endpoint, clock, emulator, config);
    client.start();
    std::optional<PeerId> peer;
    while (auto e = server->poll()) {
        if (e->type == TransportEvent::Type::kConnected) peer = e->peer;
    }
    REQUIRE(peer);
    // No-wait: one fixed delay, no keyframe decision to wait for.
    const Welcome welcome = test_welcome(1, 2, clock.now_us(), SessionMode::kNoWait);
    welcome_sealed(*server, *peer, client, welcome);
    Start start;
    start.start_time_us = clock.now_us() - 3'600'000'000;  // 216,000 frames ago
    start.frame_time_ns = 16'666'667;
    start.delay = 2;
    start.players = 2;
    server->send(*peer, Channel::kControl, encode(start));
    client.tick(0);
    REQUIRE(client.state() == Client::State::kRunning);
    for (int i = 0; i < 10; ++i) {
        clock.advance(16'000);
        client.tick(0x0101);
    }
    // Nothing was confirmed beyond the delay's two neutral frames: it samples at most 600
    // frames further, and sends accordingly.
    CHECK(client.next_sample_frame() == 602);
    std::uint64_t datagrams = 0, inputs_carried = 0;
    while (auto e = server->poll()) {
        if (e->type != TransportEvent::Type::kMessage) continue;
        ++datagrams;
        if (auto input = decode_client_input(e->data)) inputs_carried += input->inputs.size();
    }
    CHECK(datagrams < 400);
    CHECK(inputs_carried > 0);
    CHECK(client.next_frame() <= 2);  // nothing beyond the delay's neutral frames ran
}

TEST_CASE("A session started at the far end of the clock's range runs without overflow",
          "[netplay][client][robustness]") {
    // Found by fuzz_client (UBSan): frame 0 ~2^61 us before the server's now overflowed
    // the frame arithmetic (since * 1000), then the sum of the frames' lateness. The
    // sanitizer build checks the arithmetic here.
    ManualClock clock(1'000'000);
    SimNetwork net(6, clock);
    auto raw_server = net.create_endpoint("server");
    SealedTransport sealed_server(*raw_server);
    auto* server = &sealed_server;
    auto endpoint = net.create_endpoint("client1");
    HashingEmulator emulator;
    ClientConfig config;
    config.server_address = "server";
    config.identity = {"sim", "1", 1, 2, 60000, 0};
    Client client(*endpoint, clock, emulator, config);
    client.start();
    std::optional<PeerId> peer;
    while (auto e = server->poll()) {
        if (e->type == TransportEvent::Type::kConnected) peer = e->peer;
    }
    REQUIRE(peer);
    Welcome far = test_welcome(1, 2, kMaxClockUs, SessionMode::kRollback);
    far.prediction_window = 8;
    welcome_sealed(*server, *peer, client, far);
    server->send(*peer, Channel::kControl, encode(Start{-kMaxClockUs, 16'666'667, 1, 2}));
    for (int i = 0; i < 5; ++i) {
        client.tick(0);
        clock.advance(16'000);
    }
    REQUIRE(client.state() == Client::State::kRunning);
    CHECK(client.next_sample_frame() <= 1 + 600);  // the sampling cap holds here too
    // Each frame ran ~2^61 us late; it counts as a minute late, and the sum stays exact.
    const auto stats = client.stats();
    REQUIRE(stats.frames_run >= 1);
    CHECK(stats.lateness_total_us == static_cast<Micros>(stats.frames_run) * 60'000'000);
}

TEST_CASE("A client whose join failed stays ended when the rest of the state arrives",
          "[netplay][client][robustness]") {
    // Found by fuzz_client: a chunk of another transfer ended the join ("joining failed"),
    // the next tick read on, and the original transfer's chunk completed the join: the
    // ended client was running again.
    ManualClock clock(1'000'000);
    SimNetwork net(7, clock);
    auto raw_server = net.create_endpoint("server");
    SealedTransport sealed_server(*raw_server);
    auto* server = &sealed_server;
    auto endpoint = net.create_endpoint("joiner");
    HashingEmulator emulator, session;
    ClientConfig config;
    config.server_address = "server";
    config.identity = {"sim", "1", 1, 2, 60000, 0};
    Client client(*endpoint, clock, emulator, config);
    client.start();
    std::optional<PeerId> peer;
    while (auto e = server->poll()) {
        if (e->type == TransportEvent::Type::kConnected) peer = e->peer;
    }
    REQUIRE(peer);
    Welcome welcome = test_welcome(3, 3, clock.now_us());
    welcome.late = true;
    welcome_sealed(*server, *peer, client, welcome);
    server->send(*peer, Channel::kControl,
                 encode(Start{clock.now_us() - 2'000'000, 16'666'667, 2, 3}));
    client.tick(0);
    REQUIRE(client.state() == Client::State::kJoining);
    std::vector<std::uint8_t> state;
    REQUIRE(session.save_state(state));
    StateSender sender(2, StatePurpose::kJoin, pack_state(state, 90));
    const auto messages = sender.take_messages();
    REQUIRE(messages.size() == 2);  // the header and one chunk
    server->send(*peer, Channel::kBulk, messages[0]);
    StateChunk stray = decode_state_chunk(messages[1]).value();
    stray.transfer_id = 99;
    server->send(*peer, Channel::kBulk, encode(stray));
    client.tick(0);
    REQUIRE(client.state() == Client::State::kEnded);
    CHECK(client.end_reason().find("joining failed") != std::string::npos);
    server->send(*peer, Channel::kBulk, messages[1]);
    for (int i = 0; i < 3; ++i) {
        clock.advance(16'000);
        client.tick(0);
    }
    CHECK(client.state() == Client::State::kEnded);
    CHECK(client.next_frame() == 90);  // the header's frame; nothing ran
}
