// One start state for every player, on the simulated network: before frame 0 the first
// player's power-on state goes to every player (that one included) and each loads it, so a
// core whose state keeps something of its own process (a clock read at load) starts
// identical everywhere instead of raising a desync alarm at frame 0.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "netplay/client/client.h"
#include "netplay/server/server.h"
#include "netplay/sim/sim_network.h"
#include "netplay/sim/sim_session.h"
#include "unit/sim_events.h"

using namespace framelock::netplay;

namespace {

int client_events(const SimClientResult& c, ClientEvent::Type type) {
    int n = 0;
    for (const auto& e : c.events) n += e.type == type ? 1 : 0;
    return n;
}

// A core without savestates: the start goes on without a common state.
class NoStateEmulator final : public Emulator {
  public:
    void run_frame(const InputFrame& inputs, bool present) override {
        m_inner.run_frame(inputs, present);
    }
    std::uint64_t frame_count() const override { return m_inner.frame_count(); }
    bool save_state(std::vector<std::uint8_t>&) override { return false; }
    bool load_state(std::span<const std::uint8_t>) override { return false; }
    std::uint64_t state_hash() override { return 0; }
    std::vector<MemoryRegion> memory_regions() override { return m_inner.memory_regions(); }
    double frames_per_second() const override { return 60.0; }

  private:
    HashingEmulator m_inner;
};

SimScenario stamped(int players, std::uint64_t seed) {
    SimScenario sc;
    sc.players = players;
    sc.frames = 1200;
    sc.seed = seed;
    sc.link = LinkParams{20'000, 2'000, 0.0, 0.0, 0};
    sc.load_stamps = true;
    sc.server.hash_interval = 1;  // every frame compared, from frame 0
    return sc;
}

}  // namespace

TEST_CASE(
    "Start state: players whose states differ at power-on by a load stamp start from the "
    "first player's bytes: no desync, the same state hash everywhere from frame 0",
    "[netplay][start]") {
    for (int players : {2, 4}) {
        INFO(players << " players");
        SimScenario sc = stamped(players, 30 + static_cast<std::uint64_t>(players));
        const SimResult r = run_scenario(sc);
        REQUIRE(static_cast<int>(r.clients.size()) == players);
        CHECK(r.hashes_identical);
        CHECK(count_events(r, ServerEvent::Type::kDesync) == 0);
        CHECK(count_events(r, ServerEvent::Type::kResynced) == 0);
        // Every frame's hashes were compared and all agreed (frames 0..1199, one a frame).
        CHECK(r.hash_frames_matched >= 1150);
        for (const auto& c : r.clients) {
            // Each loaded the first player's stamp and ends on the same state.
            CHECK(c.load_stamp == r.clients[0].load_stamp);
            CHECK(c.final_state_hash == r.clients[0].final_state_hash);
            CHECK(client_events(c, ClientEvent::Type::kStartLoaded) == 1);
            CHECK(client_events(c, ClientEvent::Type::kDesync) == 0);
        }
        // From the first player in (the host, in `framelock host`), to everyone.
        CHECK(find_event(r, ServerEvent::Type::kStateSent, "to every player") != nullptr);
    }
}

TEST_CASE(
    "Start state: without it (common_start off), the same load stamps raise a desync at "
    "frame 0 although the games agree",
    "[netplay][start]") {
    SimScenario sc = stamped(2, 41);
    sc.server.common_start = false;
    sc.server.repair_desyncs = false;
    const SimResult r = run_scenario(sc);
    REQUIRE(r.clients.size() == 2);
    CHECK(r.hashes_identical);  // the games agree ...
    const ServerEvent* desync = find_event(r, ServerEvent::Type::kDesync, "desync at frame 0");
    CHECK(desync != nullptr);  // ... and the state hashes do not
    CHECK(r.clients[0].load_stamp != r.clients[1].load_stamp);
    CHECK(r.hash_frames_matched == 0);
}

TEST_CASE(
    "Start state: a core without savestates starts each player from its own power-on, with "
    "an event that says why",
    "[netplay][start]") {
    SimScenario sc;
    sc.players = 2;
    sc.frames = 600;
    sc.seed = 43;
    sc.link = LinkParams{20'000, 0, 0.0, 0.0, 0};
    sc.make_emulator = [](int) { return std::make_unique<NoStateEmulator>(); };
    const SimResult r = run_scenario(sc);
    REQUIRE(r.clients.size() == 2);
    const ServerEvent* why =
        find_event(r, ServerEvent::Type::kRefused, "client1's core cannot save its state");
    REQUIRE(why != nullptr);
    CHECK_THAT(why->message, Catch::Contains("own power-on state"));
    for (const auto& c : r.clients) {
        CHECK(client_events(c, ClientEvent::Type::kStartLoaded) == 0);
        CHECK(c.stats.frames_run >= 600);
    }
}

TEST_CASE(
    "Start state: a 1 MiB incompressible state at 100 ms RTT: under 1 s from the last "
    "player's join to frame 0",
    "[netplay][start]") {
    for (const Micros gap : {Micros{0}, Micros{3'000'000}}) {
        SimScenario sc;
        sc.players = 2;
        sc.frames = 300;
        sc.seed = 47;
        sc.link = LinkParams{50'000, 3'000, 0.0, 0.0, 50'000'000};  // 100 ms RTT, 50 Mbit/s
        sc.state_padding = 1 << 20;
        sc.load_stamps = true;
        sc.last_player_after_us = gap;
        const SimResult r = run_scenario(sc);
        REQUIRE(r.clients.size() == 2);
        CHECK(r.hashes_identical);
        CHECK(count_events(r, ServerEvent::Type::kDesync) == 0);
        CHECK(r.clients[1].load_stamp == r.clients[0].load_stamp);
        const Micros joined = gap > 0 ? r.clients[1].connected_at_us : 0;
        const double seconds = (r.start_offset_us - joined) / 1e6;
        std::printf(
            "[figure] start state: 1 MiB (incompressible) at 100 ms RTT, 50 Mbit/s, last "
            "player %.0f s after the first: its join to frame 0 in %.3f s\n",
            gap / 1e6, seconds);
        CHECK(seconds > 0.2);
        CHECK(seconds < 1.0);
    }
}

TEST_CASE(
    "Start: a player that stalls in the lobby right after its Welcome (a process frozen for "
    "3 s) is waited for: the session starts once it speaks again, and it plays every frame",
    "[netplay][start]") {
    // Found in CI (the NAT lab's hole punch, on a loaded machine): the joiner's process
    // stood still after its Welcome; the server started anyway once the round-trip wait
    // (2 s) was over, took the silent player for away at frame 0, and the host played its
    // 120 frames alone, on neutral input for the joiner, which ran none of them.
    ManualClock clock(1'000'000);
    SimNetwork net(7, clock);
    net.set_default_link({10'000, 500, 0.0, 0.0, 0});
    auto server_endpoint = net.create_endpoint("server");
    Server server(*server_endpoint, clock, ServerConfig{});
    std::vector<std::unique_ptr<Transport>> endpoints;
    std::vector<std::unique_ptr<HashingEmulator>> emulators;
    std::vector<std::unique_ptr<Client>> clients;
    for (int c = 1; c <= 2; ++c) {
        endpoints.push_back(net.create_endpoint("client" + std::to_string(c)));
        emulators.push_back(std::make_unique<HashingEmulator>());
        ClientConfig config;
        config.server_address = "server";
        config.requested_slot = static_cast<std::uint8_t>(c);
        config.player_name = "client" + std::to_string(c);
        config.identity = {"sim", "1", 1, 2, 60000, 0};
        clients.push_back(
            std::make_unique<Client>(*endpoints.back(), clock, *emulators.back(), config));
        clients.back()->start();
    }
    constexpr Micros kFreezeUs = 3'000'000;
    constexpr std::uint32_t kFrames = 300;
    Micros frozen_at = -1;
    std::uint32_t frames_while_frozen = 0;
    std::vector<ServerEvent> events;
    // Every pad pressed: a neutral word in a slot's lane is a frame it did not play.
    const auto pad = [](int c, std::uint32_t frame) {
        return static_cast<InputWord>(0x100u * c | (frame % 255 + 1));
    };
    for (Micros t = 0; t < 20'000'000; t += 1000) {
        server.update();
        for (int c = 1; c <= 2; ++c) {
            Client& client = *clients[c - 1];
            const bool frozen = c == 2 && frozen_at >= 0 && clock.now_us() < frozen_at + kFreezeUs;
            if (frozen) continue;
            client.tick(pad(c, client.next_sample_frame()));
            // The process stands still right after the Welcome, before anything of the start.
            if (c == 2 && frozen_at < 0 && client.state() == Client::State::kLobby)
                frozen_at = clock.now_us();
        }
        if (frozen_at >= 0 && clock.now_us() < frozen_at + kFreezeUs)
            frames_while_frozen = clients[0]->next_frame();
        server.update();
        while (auto e = server.poll_event()) events.push_back(*e);
        for (auto& client : clients) {
            while (client->poll_event()) {
            }
        }
        if (clients[0]->next_frame() >= kFrames && clients[1]->next_frame() >= kFrames) break;
        clock.advance(1000);
    }
    REQUIRE(frozen_at >= 0);
    INFO([&] {
        std::string all;
        for (const ServerEvent& e : events) all += "\n  " + e.message;
        return "server events:" + all;
    }());
    // Nobody played while a player stood still in the lobby, and nobody was taken for away.
    CHECK(frames_while_frozen == 0);
    for (const ServerEvent& e : events) CHECK(e.type != ServerEvent::Type::kPlayerAway);
    const auto& host = emulators[0]->hash_log();
    const auto& joiner = emulators[1]->hash_log();
    REQUIRE(host.size() >= kFrames);
    REQUIRE(joiner.size() >= kFrames);
    CHECK(std::equal(host.begin(), host.begin() + kFrames, joiner.begin()));
    // Both players' pads in every frame after the first delay's neutral ones.
    const int delay = clients[0]->delay_at(0);
    int neutral = 0;
    for (std::uint32_t f = static_cast<std::uint32_t>(delay); f < kFrames; ++f) {
        const InputFrame& inputs = emulators[0]->input_log()[f];
        neutral += (inputs.pads[0] == 0) + (inputs.pads[1] == 0);
    }
    CHECK(neutral == 0);
}
