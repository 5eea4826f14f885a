// Trust: nobody takes another player's slot, learns a password from the wire, or runs its
// clock fast unnoticed (netplay/crypto/join_proof.h, netplay/timing/clock_check.h).
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>

#include "netplay/client/client.h"
#include "netplay/crypto/join_proof.h"
#include "netplay/server/server.h"
#include "netplay/sim/sim_network.h"
#include "netplay/sim/sim_session.h"
#include "netplay/timing/clock_check.h"
#include "sim_events.h"

using namespace framelock::netplay;

namespace {

SessionIdentity session_identity() {
    return {"framelock-arcade", "1.0", 0xaaaa, 0xbbbb, 60000};
}

ClientConfig config_for(const std::string& name) {
    ClientConfig c;
    c.server_address = "server";
    c.player_name = name;
    c.identity = session_identity();
    return c;
}

// A server on a clean 10 ms link, and clients added one by one.
struct Bench {
    ManualClock clock{1'000'000};
    SimNetwork net{21, clock};
    std::unique_ptr<Transport> server_transport = net.create_endpoint("server");
    std::unique_ptr<Server> server;
    struct Player {
        std::unique_ptr<Transport> transport;
        std::unique_ptr<HashingEmulator> emulator;
        std::unique_ptr<Client> client;
    };
    std::vector<Player> players;

    explicit Bench(ServerConfig config) {
        net.set_default_link({5'000, 0, 0.0, 0.0, 0});
        server = std::make_unique<Server>(*server_transport, clock, config);
    }
    Client& add(const std::string& endpoint, ClientConfig config) {
        Player p;
        p.transport = net.create_endpoint(endpoint);
        p.emulator = std::make_unique<HashingEmulator>();
        p.client = std::make_unique<Client>(*p.transport, clock, *p.emulator, config);
        p.client->start();
        players.push_back(std::move(p));
        return *players.back().client;
    }
    void run_ms(int ms) {
        for (int i = 0; i < ms; ++i) {
            server->update();
            for (auto& p : players) p.client->tick(static_cast<InputWord>(i));
            clock.advance(1000);
        }
    }
};

}  // namespace

TEST_CASE("Proofs answer one nonce, under one key, for one role", "[netplay][trust]") {
    const Salt salt = random_array<kSaltBytes>();
    const auto key = derive_password_key("sesame", salt);
    REQUIRE(key);
    CHECK(derive_password_key("sesame", salt) == key);
    CHECK(derive_password_key("sesame", random_array<kSaltBytes>()) != key);
    CHECK(derive_password_key("Sesame", salt) != key);
    const Nonce a = random_array<kNonceBytes>(), b = random_array<kNonceBytes>();
    CHECK(
        same_proof(password_proof(*key, a, Role::kPlayer), password_proof(*key, a, Role::kPlayer)));
    CHECK_FALSE(
        same_proof(password_proof(*key, a, Role::kPlayer), password_proof(*key, b, Role::kPlayer)));
    CHECK_FALSE(same_proof(password_proof(*key, a, Role::kPlayer),
                           password_proof(*key, a, Role::kSpectator)));
    const RejoinToken token = random_array<kRejoinTokenBytes>();
    CHECK_FALSE(same_proof(rejoin_proof(token, a), rejoin_proof(token, b)));
    // Sealed to one connection's keys, opened by those only.
    const BoxKeys mine = new_box_keys(), theirs = new_box_keys();
    const SealedToken sealed = seal_token(token, mine.public_key);
    CHECK(open_token(sealed, mine) == token);
    CHECK_FALSE(open_token(sealed, theirs));
    SealedToken damaged = sealed;
    damaged[40] ^= 1;
    CHECK_FALSE(open_token(damaged, mine));
    CHECK(token_from_hex(token_to_hex(token)) == token);
    CHECK(token_to_hex(token).size() == 64);
    CHECK_FALSE(token_from_hex(token_to_hex(token).substr(1)));
    CHECK_FALSE(token_from_hex(std::string(64, 'g')));
}

TEST_CASE(
    "A captured password join replayed against the server is refused, and never held the "
    "password",
    "[netplay][trust]") {
    ServerConfig config;
    config.players = 2;
    config.password = "correct horse battery staple";
    Bench bench(config);
    // Everything alice's client sends before its Welcome, as a listener on the path sees it.
    std::vector<std::vector<std::uint8_t>> captured;
    std::string all_bytes;
    bench.net.set_tap([&](Micros, const std::string& from, const std::string&, Channel,
                          std::span<const std::uint8_t> bytes) {
        all_bytes.append(bytes.begin(), bytes.end());
        if (from == "alice") captured.emplace_back(bytes.begin(), bytes.end());
    });
    ClientConfig alice = config_for("alice");
    alice.password = config.password;
    Client& client = bench.add("alice", alice);
    bench.run_ms(300);
    REQUIRE(client.state() == Client::State::kLobby);
    REQUIRE(client.slot() == 1);
    const auto hello = std::find_if(captured.begin(), captured.end(), [](const auto& bytes) {
        return peek_id(bytes) == MsgId::kHello;
    });
    REQUIRE(hello != captured.end());
    REQUIRE(decode_hello(*hello)->password_proof);
    // Not in any byte on the wire, either way: not the password, nor a piece of it, nor the
    // rejoin token the Welcome carried (sealed to alice's connection).
    CHECK(all_bytes.find(config.password) == std::string::npos);
    const auto rejoin_token = client.rejoin_token();
    REQUIRE(rejoin_token);
    const std::string token(rejoin_token->begin(), rejoin_token->end());
    CHECK(all_bytes.find(token) == std::string::npos);
    CHECK(all_bytes.find("horse") == std::string::npos);
    CHECK(all_bytes.size() > 500);

    // Mallory replays alice's Hello, byte for byte, on a connection of her own.
    auto raw = bench.net.create_endpoint("mallory");
    const PeerId to_server = raw->connect("server").value();
    std::string refusal;
    bool challenged = false;
    for (int i = 0; i < 300 && refusal.empty(); ++i) {
        bench.server->update();
        bench.players[0].client->tick(0);
        while (auto e = raw->poll()) {
            if (e->type != TransportEvent::Type::kMessage) continue;
            if (peek_id(e->data) == MsgId::kChallenge) {
                challenged = true;
                raw->send(to_server, Channel::kControl, *hello);
            }
            if (peek_id(e->data) == MsgId::kReject) refusal = decode_reject(e->data)->message;
        }
        bench.clock.advance(1000);
    }
    CHECK(challenged);
    CHECK(refusal == "wrong password");
    CHECK(bench.server->slot_stats().size() == 1);  // alice alone holds a slot
}

TEST_CASE("Two players with the same name both play, under names told apart", "[netplay][trust]") {
    ServerConfig config;
    config.players = 3;
    config.start_players = 2;
    Bench bench(config);
    Client& first = bench.add("deck-1", config_for("deck"));
    bench.run_ms(200);
    Client& second = bench.add("deck-2", config_for("deck"));
    bench.run_ms(3000);
    REQUIRE(first.state() == Client::State::kRunning);
    REQUIRE(second.state() == Client::State::kRunning);
    CHECK(first.slot() == 1);
    CHECK(second.slot() == 2);
    CHECK(first.display_name() == "deck");
    CHECK(second.display_name() == "deck (2)");
    CHECK(first.rejoin_token() != second.rejoin_token());
    const auto stats = bench.server->slot_stats();
    REQUIRE(stats.size() == 2);
    CHECK(stats[0].name == "deck");
    CHECK(stats[1].name == "deck (2)");
    // A third "deck" joins the running session: a third name, a third slot, nobody evicted.
    Client& third = bench.add("deck-3", config_for("deck"));
    bench.run_ms(3000);
    CHECK(third.slot() == 3);
    CHECK(third.display_name() == "deck (3)");
    CHECK(first.state() == Client::State::kRunning);
    CHECK(second.state() == Client::State::kRunning);
}

TEST_CASE("A live player's slot goes to nobody: not by name, not by --slot, not by a guess",
          "[netplay][trust]") {
    ServerConfig config;
    config.players = 2;
    Bench bench(config);
    Client& alice = bench.add("alice", config_for("alice"));
    Client& bob = bench.add("bob", config_for("bob"));
    bench.run_ms(2000);
    REQUIRE(bob.state() == Client::State::kRunning);
    const auto refusal = [&](ClientConfig c) {
        Client& impostor = bench.add("impostor" + std::to_string(bench.players.size()), c);
        bench.run_ms(500);
        REQUIRE(impostor.state() == Client::State::kEnded);
        return impostor.end_reason();
    };
    CHECK_THAT(refusal(config_for("bob")),
               Catch::Contains("session is full") && Catch::Contains("'bob' plays here already"));
    ClientConfig by_slot = config_for("bob");
    by_slot.requested_slot = 2;
    CHECK_THAT(refusal(by_slot), Catch::Contains("slot 2 is taken by 'bob', who is playing"));
    ClientConfig guess = config_for("bob");
    guess.rejoin_token = RejoinToken{};
    CHECK_THAT(refusal(guess), Catch::Contains("session is full"));
    // Even bob's own token takes nothing while bob's connection talks: a copy is not bob.
    ClientConfig copy = config_for("bob");
    copy.rejoin_token = bob.rejoin_token();
    REQUIRE(copy.rejoin_token);
    CHECK_THAT(refusal(copy), Catch::Contains("slot 2 is 'bob''s, who is still playing"));
    bench.run_ms(10);
    CHECK(alice.state() == Client::State::kRunning);
    CHECK(bob.state() == Client::State::kRunning);
    CHECK(bob.slot() == 2);
    CHECK(bench.server->slot_stats()[1].name == "bob");
}

TEST_CASE("A rejoin needs the slot's token", "[netplay][trust]") {
    SimScenario sc;
    sc.players = 2;
    sc.frames = 1200;
    sc.drop_client = 2;
    sc.drop_frame = 300;
    sc.rejoin_after_us = 2'000'000;
    SECTION("with it, the slot comes back") {
        const SimResult r = run_scenario(sc);
        REQUIRE(r.clients.size() == 3);
        CHECK(r.clients[2].slot == 2);
        CHECK(r.clients[2].hashes.size() >= 1200);
        CHECK(find_event(r, ServerEvent::Type::kPlayerJoined, "client2 rejoins"));
    }
    SECTION("without it, the slot stays the absent player's") {
        sc.rejoin_with_token = false;
        sc.frames = 600;
        const SimResult r = run_scenario(sc);
        REQUIRE(r.clients.size() == 3);
        CHECK(find_event(r, ServerEvent::Type::kRejected, "slot 2 belongs to 'client2'"));
        CHECK(r.clients[2].hashes.empty());
        CHECK(r.clients[0].hashes.size() >= 600);
    }
}

TEST_CASE("Clock readings that go backwards or lie minutes away are refused", "[netplay][trust]") {
    ClockCheck check;
    CHECK(check.add(1'000'000, 1'000'000 + 181'000'000) == ClockCheck::Verdict::kAbsurd);
    CHECK(check.add(1'000'000, 1'000'000 - 181'000'000) == ClockCheck::Verdict::kAbsurd);
    CHECK(check.add(1'000'000, 1'020'000) == ClockCheck::Verdict::kTaken);
    CHECK(check.add(2'000'000, 1'010'000) == ClockCheck::Verdict::kBackwards);
    CHECK(check.add(3'000'000, 3'020'000) == ClockCheck::Verdict::kTaken);
    CHECK(check.refused() == 3);
    CHECK_FALSE(check.rate_error());  // not a window's worth yet
    for (Micros t = 4'000'000; t <= 20'000'000; t += 1'000'000) check.add(t, t + 20'000);
    REQUIRE(check.rate_error());
    CHECK(*check.rate_error() == Approx(0).margin(1e-9));
    CHECK_FALSE(check.off_pace());
}

TEST_CASE("A client whose clock runs 5 % fast is named within 15 s in no-wait mode, 0.5 % never",
          "[netplay][trust]") {
    SimScenario sc;
    sc.players = 3;
    sc.seed = 77;
    sc.server.mode = SessionMode::kNoWait;
    sc.server.delay.fixed_delay = 4;
    sc.link = {20'000, 4'000, 0.01, 0.0, 0};  // 40 ms round trip, jitter, 1 % loss
    SECTION("5 % fast, and 5 % slow") {
        sc.frames = 30 * 60;
        sc.clock_rates = {1.0, 1.05, 0.95};
        const SimResult r = run_scenario(sc);
        const ServerEvent* fast = find_event(r, ServerEvent::Type::kOffPace, 2);
        const ServerEvent* slow = find_event(r, ServerEvent::Type::kOffPace, 3);
        REQUIRE(fast);
        REQUIRE(slow);
        CHECK_THAT(fast->message, Catch::Contains("client2's clock runs 5.") &&
                                      Catch::Contains("% faster than the server's (over 10 s)"));
        CHECK_THAT(slow->message, (Catch::Contains("client3's clock runs 4.") ||
                                   Catch::Contains("client3's clock runs 5.")) &&
                                      Catch::Contains("% slower"));
        std::printf("[figure] clock 5 %% fast named at %.1f s, 5 %% slow at %.1f s of play\n",
                    fast->frame / 60.0, slow->frame / 60.0);
        CHECK(fast->frame < 15 * 60);
        CHECK(slow->frame < 15 * 60);
        CHECK_FALSE(find_event(r, ServerEvent::Type::kOffPace, 1));
        REQUIRE(r.slots.size() == 3);
        CHECK(r.slots[1].off_pace);
        CHECK(*r.slots[1].clock_rate_error == Approx(0.05).margin(0.005));
        CHECK(r.slots[1].connected);  // named, not removed: that takes --kick-speed-hack
    }
    SECTION("2.5 % is named, 1.5 % is not") {
        sc.frames = 40 * 60;
        sc.clock_rates = {1.0, 1.025, 1.015};
        const SimResult r = run_scenario(sc);
        CHECK(find_event(r, ServerEvent::Type::kOffPace, 2));
        CHECK_FALSE(find_event(r, ServerEvent::Type::kOffPace, 3));
        CHECK(*r.slots[2].clock_rate_error == Approx(0.015).margin(0.004));
    }
    SECTION("a network delay that jumps by 200 ms and back names nobody") {
        // A route change, bufferbloat, a burst of retransmits: the readings arrive later for a
        // while, which one step of the window sees and the others do not.
        sc.frames = 60 * 60;
        sc.clock_rates = {1.0, 1.0, 1.004};
        const LinkParams slow{220'000, 4'000, 0.01, 0.0, 0};
        sc.changes = {{20'000'000, slow, 2},
                      {25'000'000, sc.link, 2},
                      {35'000'000, slow, 3},
                      {47'000'000, sc.link, 3}};
        const SimResult r = run_scenario(sc);
        CHECK(r.clients[0].hashes.size() >= sc.frames);
        CHECK(count_events(r, ServerEvent::Type::kOffPace) == 0);
    }
    SECTION("kicked with kick_off_pace") {
        sc.frames = 30 * 60;
        sc.clock_rates = {1.0, 1.05};
        sc.players = 2;
        sc.server.kick_off_pace = true;
        const SimResult r = run_scenario(sc);
        CHECK(find_event(r, ServerEvent::Type::kPlayerLeft, "removed (--kick-speed-hack)"));
        CHECK(r.clients[0].hashes.size() >= 30 * 60);  // the honest player plays on
    }
    SECTION("0.5 % fast and slow over a simulated hour") {
        sc.frames = 60 * 60 * 60;
        sc.clock_rates = {1.0, 1.005, 0.995};
        sc.log_stride = 600;
        sc.keep_events = false;
        const SimResult r = run_scenario(sc);
        CHECK(r.clients[0].hashes.size() * 600 >= sc.frames);
        CHECK(r.server_events_of(ServerEvent::Type::kOffPace) == 0);
        REQUIRE(r.slots.size() == 3);
        CHECK(*r.slots[1].clock_rate_error == Approx(0.005).margin(0.003));
        CHECK(*r.slots[2].clock_rate_error == Approx(-0.005).margin(0.003));
        std::printf(
            "[figure] clock 0.5 %% off for an hour: named 0 times; measured %+.2f %%, "
            "%+.2f %%\n",
            *r.slots[1].clock_rate_error * 100, *r.slots[2].clock_rate_error * 100);
    }
}
