// The server against bad input: malformed and hostile messages are dropped (and
// counted) without disturbing the session; refused joins say why, naming both sides.
#include <catch2/catch.hpp>

#include <memory>

#include "netplay/client.h"
#include "netplay/server.h"
#include "netplay/sim_network.h"
#include "netplay/sim_session.h"

using namespace framelock::netplay;

namespace {

SessionIdentity identity() {
    return {"framelock-arcade", "1.0", 0xaaaa, 0xbbbb, 60000};
}

// A server and two well-behaved clients on a clean 20 ms link, plus whatever else a test adds.
struct Rig {
    ManualClock clock{1'000'000};
    SimNetwork net{9, clock};
    std::unique_ptr<Transport> server_transport = net.create_endpoint("server");
    ServerConfig config = [] {
        ServerConfig c;
        c.players = 2;
        return c;
    }();
    Server server{*server_transport, clock, config};
    std::unique_ptr<Transport> t1 = net.create_endpoint("c1"), t2 = net.create_endpoint("c2");
    HashingEmulator e1, e2;
    ClientConfig cc1 = make_config(1), cc2 = make_config(2);
    Client c1{*t1, clock, e1, cc1}, c2{*t2, clock, e2, cc2};

    Rig() { net.set_default_link({10'000, 500, 0.0, 0.0, 0}); }
    static ClientConfig make_config(int slot) {
        ClientConfig c;
        c.server_address = "server";
        c.requested_slot = static_cast<std::uint8_t>(slot);
        c.player_name = "p" + std::to_string(slot);
        c.content_name = "game.flarc";
        c.identity = identity();
        return c;
    }
    // Runs until both clients reached `frames` (or 60 s passed), calling `each` every ms.
    template <class F>
    void run(std::uint32_t frames, F each) {
        const Micros limit = clock.now_us() + 60'000'000;
        std::uint32_t step = 0;
        while ((c1.next_frame() < frames || c2.next_frame() < frames) && clock.now_us() < limit) {
            server.update();
            c1.tick(static_cast<InputWord>(step * 7));
            c2.tick(static_cast<InputWord>(step * 13));
            each(step++);
            server.update();
            clock.advance(1000);
        }
    }
};

std::vector<ServerEvent> events_of(Server& server) {
    std::vector<ServerEvent> out;
    while (auto e = server.poll_event()) out.push_back(*e);
    return out;
}

}  // namespace

TEST_CASE(
    "Malformed, truncated, unknown and out-of-range messages are dropped, the session goes on",
    "[netplay][server][robustness]") {
    Rig rig;
    auto attacker = rig.net.create_endpoint("attacker");
    const PeerId to_server = attacker->connect("server").value();
    rig.c1.start();
    rig.c2.start();
    ClientInput far_ahead;
    far_ahead.first_frame = 30'000;  // expands to a frame far beyond the session
    far_ahead.inputs.assign(10, 0xffff);
    Hello hello;
    hello.identity = identity();
    const std::vector<std::vector<std::uint8_t>> garbage = {
        {},                                                              // empty
        {0x7f, 1, 2, 3},                                                 // unknown id
        {static_cast<std::uint8_t>(MsgId::kClientInput), 1, 2},          // truncated input
        {static_cast<std::uint8_t>(MsgId::kHashReport), 0, 0, 0, 0, 1},  // truncated hash
        encode(far_ahead),  // a well-formed input from a peer without a slot
        {static_cast<std::uint8_t>(MsgId::kServerUpdate), 0, 0},  // a server-only message
    };
    int sent = 0;
    rig.run(1200, [&](std::uint32_t step) {
        while (attacker->poll()) {
        }
        if (step % 50 == 0 && step > 0) {
            for (const auto& bytes : garbage) attacker->send(to_server, Channel::kInput, bytes);
            sent += static_cast<int>(garbage.size());
        }
    });
    REQUIRE(rig.e1.hash_log().size() >= 1200);
    CHECK(rig.e1.hash_log().size() == rig.e2.hash_log().size());
    CHECK(rig.e1.hash_log() == rig.e2.hash_log());
    int malformed = 0;
    for (const auto& e : events_of(rig.server))
        malformed += e.type == ServerEvent::Type::kMalformed;
    CHECK(sent > 100);
    CHECK(malformed == sent);  // every bad datagram was seen and dropped, none crashed anything
    CHECK(rig.c1.stats().stall_frames < 5);
}

TEST_CASE("A joined client sending garbage and inputs far in the future loses those packets only",
          "[netplay][server][robustness]") {
    Rig rig;
    rig.c1.start();
    rig.c2.start();
    // Slot 2's transport also carries hostile datagrams: the server must drop them, keep
    // the client's real inputs, and never let frames far ahead in.
    int sent = 0;
    ClientInput far_ahead;
    far_ahead.first_frame = 20'000;
    far_ahead.inputs.assign(5, 0x0f0f);
    rig.run(900, [&](std::uint32_t step) {
        if (step % 40 == 0 && rig.c2.state() == Client::State::kRunning) {
            rig.t2->send(1, Channel::kInput,
                         std::vector<std::uint8_t>{static_cast<std::uint8_t>(MsgId::kClientInput)});
            rig.t2->send(1, Channel::kInput, encode(far_ahead));
            sent += 2;
        }
    });
    CHECK(rig.e1.hash_log() == rig.e2.hash_log());
    CHECK(rig.e1.hash_log().size() >= 900);
    const auto stats = rig.server.slot_stats();
    REQUIRE(stats.size() == 2);
    CHECK(stats[1].malformed >= static_cast<std::uint64_t>(sent / 2));
    // The far-ahead words (0x0f0f) never became anyone's input.
    for (const auto& frame : rig.e1.input_log()) CHECK(frame.pads[1] != 0x0f0f);
}

TEST_CASE("Refused joins name both sides' values", "[netplay][server][robustness]") {
    Rig rig;
    rig.c1.start();
    // The first player to join defines the session's game; let it be p1.
    for (int i = 0; i < 200; ++i) {
        rig.server.update();
        rig.c1.tick(0);
        rig.clock.advance(1000);
    }
    REQUIRE(rig.c1.state() == Client::State::kLobby);
    auto t3 = rig.net.create_endpoint("c3");
    HashingEmulator e3;
    ClientConfig other = Rig::make_config(2);
    other.identity.content_hash = 0xcccc;
    other.identity.options_hash = 0xdddd;
    other.content_name = "other.flarc";
    Client c3(*t3, rig.clock, e3, other);
    c3.start();
    for (int i = 0; i < 500; ++i) {
        rig.server.update();
        rig.c1.tick(0);
        c3.tick(0);
        rig.clock.advance(1000);
    }
    REQUIRE(c3.state() == Client::State::kEnded);
    const std::string why = c3.end_reason();
    CHECK_THAT(why, Catch::Contains("game.flarc") && Catch::Contains("other.flarc"));
    CHECK_THAT(why, Catch::Contains("000000000000aaaa") && Catch::Contains("000000000000cccc"));
    CHECK_THAT(why, Catch::Contains("000000000000bbbb") && Catch::Contains("000000000000dddd"));

    // Slot taken, and a session that is full.
    auto t4 = rig.net.create_endpoint("c4");
    HashingEmulator e4;
    Client c4(*t4, rig.clock, e4, Rig::make_config(1));
    c4.start();
    for (int i = 0; i < 300; ++i) {
        rig.server.update();
        rig.c1.tick(0);
        c4.tick(0);
        rig.clock.advance(1000);
    }
    CHECK_THAT(c4.end_reason(), Catch::Contains("slot 1 is taken by 'p1'"));
}

TEST_CASE("A foreign protocol version is refused with both versions",
          "[netplay][server][robustness]") {
    Rig rig;
    auto raw = rig.net.create_endpoint("old");
    const PeerId peer = raw->connect("server").value();
    Hello hello;
    hello.version = kProtocolVersion + 7;
    hello.identity = identity();
    std::optional<Reject> reject;
    bool sent = false;
    for (int i = 0; i < 300 && !reject; ++i) {
        rig.server.update();
        while (auto e = raw->poll()) {
            if (e->type == TransportEvent::Type::kConnected && !sent) {
                raw->send(peer, Channel::kControl, encode(hello));
                sent = true;
            }
            if (e->type == TransportEvent::Type::kMessage) reject = decode_reject(e->data);
        }
        rig.clock.advance(1000);
    }
    REQUIRE(reject.has_value());
    CHECK(reject->reason == RejectReason::kVersion);
    CHECK_THAT(reject->message, Catch::Contains(std::to_string(kProtocolVersion + 7)) &&
                                    Catch::Contains(std::to_string(kProtocolVersion)));
}
