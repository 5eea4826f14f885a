// ServerThread (`framelock host`'s server on a thread of its own) over real ENet sockets on
// 127.0.0.1: two players play a session that nothing but the thread serves, while another
// thread reads the runner's summary and events the way the host's window does (ServerRunner's
// lock; the binary runs under TSan, label threaded). Every wait is bounded.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "frontend/session/server_runner.h"
#include "frontend/session/server_thread.h"
#include "netplay/client/client.h"
#include "netplay/io/enet_transport.h"
#include "netplay/io/real_clock.h"
#include "netplay/sim/sim_session.h"
#include "support/sanitized.h"

using namespace framelock;
using namespace framelock::netplay;

TEST_CASE(
    "server thread: two players play in sync on a server served by its thread alone, its "
    "summary and events read meanwhile from another thread, and it finishes once they left",
    "[server_thread]") {
    SteadyClock clock;
    frontend::ServerRunConfig config;
    config.bind = "127.0.0.1";
    config.server.players = 2;
    config.server.delay.adaptive = false;
    config.server.delay.fixed_delay = 2;
    auto opened = frontend::ServerRunner::open(config, clock);
    REQUIRE(opened);
    frontend::ServerRunner& runner = *opened.value();
    const std::string address = "127.0.0.1:" + std::to_string(runner.ports().front());

    // The host's window: the overlay's summary and the events, from a thread of its own.
    std::atomic<bool> reading{true};
    std::atomic<int> joined_events{0};
    std::atomic<std::uint32_t> confirmed_seen{0};
    auto thread = std::make_unique<frontend::ServerThread>(runner, clock);
    std::thread window([&] {
        while (reading) {
            const auto sessions = runner.summary();
            confirmed_seen =
                std::max<std::uint32_t>(confirmed_seen, sessions.front().confirmed_frames);
            while (auto event = runner.poll_view_event())
                if (event->type == ServerEvent::Type::kPlayerJoined) ++joined_events;
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    });

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
        ClientConfig client;
        client.server_address = address;
        client.requested_slot = static_cast<std::uint8_t>(p + 1);
        client.player_name = "p" + std::to_string(p + 1);
        client.identity = {"hashing", "1", 1, 1, 60'000, 2};
        players[p].client =
            std::make_unique<Client>(*players[p].transport, clock, players[p].emulator, client);
        players[p].client->start();
    }
    constexpr std::uint32_t kFrames = 120;
    const Micros deadline = clock.now_us() + test::full_or_sanitized(10'000'000, 30'000'000);
    while (clock.now_us() < deadline && (players[0].client->next_frame() < kFrames ||
                                         players[1].client->next_frame() < kFrames)) {
        for (auto& player : players) {
            Client& client = *player.client;
            client.tick(static_cast<InputWord>((client.next_sample_frame() / 3) & 0x0ff3));
        }
        players[0].transport->wait(1'000);
    }
    for (auto& player : players) REQUIRE(player.client->next_frame() >= kFrames);
    const auto& a = players[0].emulator.hash_log();
    const auto& b = players[1].emulator.hash_log();
    CHECK(std::equal(a.begin(), a.begin() + kFrames, b.begin()));

    // Both leave: the session ends, and the thread says so once the goodbyes had their time.
    for (auto& player : players) player.client->leave("done");
    bool finished = false;
    const Micros end_deadline = clock.now_us() + 10'000'000;
    while (!finished && clock.now_us() < end_deadline) {
        for (auto& player : players) {
            while (player.transport->poll()) {
            }
        }
        finished = thread->wait_finished(10'000);
    }
    CHECK(finished);
    reading = false;
    window.join();
    thread.reset();  // joined: the runner is this thread's alone again
    CHECK(joined_events == 2);
    CHECK(confirmed_seen > 0u);
    const auto summary = runner.summary();
    CHECK(summary.front().started);
    CHECK(summary.front().ended);
    CHECK(summary.front().confirmed_frames >= kFrames);
}
