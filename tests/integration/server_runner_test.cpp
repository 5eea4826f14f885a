// ServerRunner (the dedicated server's loop) with several sessions over real ENet sockets on
// 127.0.0.1: traffic for any session, not only the first, wakes wait(), and the update()
// after it serves that session. Every wait is bounded.
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <string>

#include "frontend/session/server_runner.h"
#include "netplay/client/client.h"
#include "netplay/io/enet_transport.h"
#include "netplay/io/real_clock.h"
#include "netplay/sim/sim_session.h"

using namespace framelock;
using namespace framelock::netplay;

namespace {

std::unique_ptr<frontend::ServerRunner> open_sessions(const Clock& clock, int sessions) {
    frontend::ServerRunConfig config;
    config.bind = "127.0.0.1";
    config.sessions = sessions;
    config.server.players = 2;
    config.server.delay.adaptive = false;
    config.server.delay.fixed_delay = 2;
    auto runner = frontend::ServerRunner::open(config, clock);
    if (!runner) FAIL(runner.error().message);
    return std::move(runner).value();
}

}  // namespace

TEST_CASE("server runner: a datagram for the last of 4 sessions wakes wait() at once",
          "[server_runner]") {
    SteadyClock clock;
    auto runner = open_sessions(clock, 4);
    REQUIRE(runner->ports().size() == 4);
    runner->update();
    auto client = EnetTransport::client();
    REQUIRE(client);
    auto peer = client.value()->connect("127.0.0.1:" + std::to_string(runner->ports().back()));
    REQUIRE(peer);
    client.value()->flush();  // the connection request is on its way to session 4 only
    const Micros before = clock.now_us();
    CHECK(runner->wait(2'000'000));
    // Sleeping on the first session's socket alone would only return after the 2 s.
    CHECK(clock.now_us() - before < 500'000);
    // The update after it serves session 4: the connection completes.
    bool connected = false;
    const Micros deadline = clock.now_us() + 3'000'000;
    while (!connected && clock.now_us() < deadline) {
        runner->update();
        runner->wait(5'000);
        while (auto event = client.value()->poll())
            if (event->type == TransportEvent::Type::kConnected) connected = true;
    }
    CHECK(connected);
}

TEST_CASE("server runner: two players on the third of 3 sessions play in sync", "[server_runner]") {
    SteadyClock clock;
    auto runner = open_sessions(clock, 3);
    const std::string address = "127.0.0.1:" + std::to_string(runner->ports().back());
    struct Player {
        std::unique_ptr<EnetTransport> transport;
        HashingEmulator emulator;
        std::unique_ptr<Client> client;
    };
    Player players[2];
    for (int p = 0; p < 2; ++p) {
        auto transport = EnetTransport::client();
        REQUIRE(transport);
        players[p].transport = std::move(transport).value();
        ClientConfig config;
        config.server_address = address;
        config.requested_slot = static_cast<std::uint8_t>(p + 1);
        config.player_name = "p" + std::to_string(p + 1);
        config.identity = {"hashing", "1", 1, 1, 60'000, 2};
        players[p].client =
            std::make_unique<Client>(*players[p].transport, clock, players[p].emulator, config);
        players[p].client->start();
    }
    constexpr std::uint32_t kFrames = 120;
    const Micros deadline = clock.now_us() + 10'000'000;
    while (clock.now_us() < deadline && (players[0].client->next_frame() < kFrames ||
                                         players[1].client->next_frame() < kFrames)) {
        runner->update();
        for (int p = 0; p < 2; ++p) {
            Client& client = *players[p].client;
            client.tick(static_cast<InputWord>((client.next_sample_frame() / (3 + p)) & 0x0ff3));
        }
        runner->wait(1'000);
    }
    for (int p = 0; p < 2; ++p) {
        REQUIRE(players[p].client->next_frame() >= kFrames);
    }
    const auto& a = players[0].emulator.hash_log();
    const auto& b = players[1].emulator.hash_log();
    REQUIRE(a.size() >= kFrames);
    REQUIRE(b.size() >= kFrames);
    CHECK(std::equal(a.begin(), a.begin() + kFrames, b.begin()));
    // Both players' inputs reached each other: the runs differ from an all-neutral run.
    HashingEmulator neutral;
    for (std::uint32_t f = 0; f < kFrames; ++f) neutral.run_frame(InputFrame{}, false);
    CHECK(neutral.hash_log().back() != a[kFrames - 1]);
    const auto summary = runner->summary();
    REQUIRE(summary.size() == 3);
    CHECK_FALSE(summary[0].started);
    CHECK(summary[2].started);
    CHECK(summary[2].confirmed_frames >= kFrames);
}
