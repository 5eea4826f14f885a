// Admission against strangers on the simulated network: connections that never say Hello
// (a flood from many addresses) cost the players nothing and are counted by address, and a
// stranger without the password learns nothing of a private session's game.
#include <catch2/catch.hpp>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "netplay/client/client.h"
#include "netplay/server/server.h"
#include "netplay/sim/sim_network.h"
#include "netplay/sim/sim_session.h"
#include "unit/three_slot_server.h"

using namespace framelock::netplay;

namespace {

ClientConfig player(int slot, const std::string& name) {
    return ThreeSlotServer::player(slot, name, "secret-game.flarc");
}

// Endpoints "a1".."aN" that keep `per_address` connections each open to the server, never
// say anything, and open another the moment one is closed.
struct Flood {
    struct Source {
        std::unique_ptr<Transport> transport;
        std::set<PeerId> live;
    };
    std::vector<Source> sources;
    int per_address;

    Flood(SimNetwork& net, int addresses, int per) : per_address(per) {
        for (int a = 1; a <= addresses; ++a)
            sources.push_back({net.create_endpoint("a" + std::to_string(a)), {}});
    }
    void step() {
        for (Source& s : sources) {
            while (auto e = s.transport->poll()) {
                if (e->type == TransportEvent::Type::kDisconnected) s.live.erase(e->peer);
            }
            while (static_cast<int>(s.live.size()) < per_address)
                s.live.insert(s.transport->connect("server").value());
        }
    }
};

}  // namespace

TEST_CASE("Half-open connections from 20 addresses cost the players nothing",
          "[netplay][server][admission][floods]") {
    ThreeSlotServer s{31};
    auto t1 = s.net.create_endpoint("c1"), t2 = s.net.create_endpoint("c2");
    HashingEmulator e1, e2;
    Client c1{*t1, s.clock, e1, player(1, "p1")}, c2{*t2, s.clock, e2, player(2, "p2")};
    c1.start();
    c2.start();
    Flood flood(s.net, 20, 10);
    std::unique_ptr<Transport> t3;
    HashingEmulator e3;
    std::unique_ptr<Client> c3;
    Micros newcomer_at = 0, newcomer_joined = 0;
    for (std::uint32_t step = 0; step < 16'000; ++step) {  // 16 s
        s.step([&] {
            c1.tick(static_cast<InputWord>(step * 7));
            c2.tick(static_cast<InputWord>(step * 13));
            if (step >= 2000) flood.step();  // from 2 s on
            if (step == 6000) {              // a newcomer after 4 s of flood
                t3 = s.net.create_endpoint("c3");
                c3 = std::make_unique<Client>(*t3, s.clock, e3, player(3, "p3"));
                c3->start();
                newcomer_at = s.clock.now_us();
            }
            if (c3) {
                c3->tick(0);
                if (!newcomer_joined && c3->state() == Client::State::kRunning)
                    newcomer_joined = s.clock.now_us();
            }
        });
    }
    REQUIRE(c1.state() == Client::State::kRunning);
    REQUIRE(c2.state() == Client::State::kRunning);
    CHECK(e1.hash_log() == e2.hash_log());
    CHECK(c1.stats().stall_frames < 5);
    INFO("newcomer: " << (c3 ? c3->end_reason() : ""));
    REQUIRE(newcomer_joined > 0);
    CHECK(newcomer_joined - newcomer_at < 2'000'000);
    // Closed and counted: 6 of each address's 10 at once, again and again; and since 20 x 4
    // joining is more than 64, the oldest of the others to make room, each well before its
    // 2 s were up (a lone silent connection expires: "Malformed, truncated, ...").
    const Admission::HalfOpen counts = s.server.half_open();
    INFO(counts.too_many << " over the cap, " << counts.evicted << " closed for room, "
                         << counts.expired << " expired");
    CHECK(counts.too_many > 1000);
    CHECK(counts.evicted > 100);
    // Reported by address, once every 10 s at most: at the first, and 10 s later.
    std::vector<std::string> reports;
    for (const ServerEvent& e : s.events) {
        if (e.type == ServerEvent::Type::kHalfOpen) reports.push_back(e.message);
    }
    REQUIRE(reports.size() == 2);
    CHECK_THAT(reports[0], Catch::Contains("1 from a"));
    CHECK_THAT(reports[1], Catch::Contains(" from a") && Catch::Contains("and 15 more addresses"));
}

TEST_CASE("A stranger without the password learns nothing of a private session's game",
          "[netplay][server][admission][trust]") {
    ManualClock clock{1'000'000};
    SimNetwork net{32, clock};
    net.set_default_link({5'000, 0, 0.0, 0.0, 0});
    auto server_transport = net.create_endpoint("server");
    ServerConfig config;
    config.players = 2;
    config.password = "sesame";
    Server server{*server_transport, clock, config};
    auto t1 = net.create_endpoint("host");
    HashingEmulator e1;
    ClientConfig host = player(1, "host");
    host.password = "sesame";
    Client c1{*t1, clock, e1, host};
    c1.start();
    for (int i = 0; i < 300; ++i) {
        server.update();
        c1.tick(0);
        clock.advance(1000);
    }
    REQUIRE(c1.state() == Client::State::kLobby);  // the session's game is the host's now

    const auto try_join = [&](const std::string& name, const std::string& password) {
        auto t = net.create_endpoint(name);
        HashingEmulator e;
        ClientConfig c = player(0, name);
        c.content_name = "guess.flarc";
        c.identity.content_hash = 0xcccc;
        c.password = password;
        Client client(*t, clock, e, c);
        client.start();
        for (int i = 0; i < 500 && client.state() != Client::State::kEnded; ++i) {
            server.update();
            c1.tick(0);
            client.tick(0);
            clock.advance(1000);
        }
        REQUIRE(client.state() == Client::State::kEnded);
        return client.end_reason();
    };
    const auto tells_nothing = [](const std::string& why) {
        INFO(why);
        CHECK_THAT(why, !Catch::Contains("secret-game") && !Catch::Contains("aaaa") &&
                            !Catch::Contains("bbbb") && !Catch::Contains("framelock-arcade"));
    };
    const std::string without = try_join("no-password", "");
    CHECK_THAT(without, Catch::Contains("needs a password"));
    tells_nothing(without);
    const std::string wrong = try_join("wrong-password", "open");
    CHECK_THAT(wrong, Catch::Contains("wrong password"));
    tells_nothing(wrong);
    // With the password, the mismatch is told in full, as before.
    const std::string right = try_join("other-game", "sesame");
    CHECK_THAT(right, Catch::Contains("secret-game.flarc") && Catch::Contains("guess.flarc"));
}
