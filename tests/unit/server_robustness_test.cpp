// The server against bad input: malformed and hostile messages are dropped (and
// counted) without disturbing the session; refused joins say why, naming both sides.
#include <catch2/catch.hpp>

#include <memory>

#include "netplay/client/client.h"
#include "netplay/server/server.h"
#include "netplay/sim/sim_network.h"
#include "netplay/sim/sim_session.h"
#include "netplay/transfer/state_transfer.h"
#include "unit/three_slot_server.h"

using namespace framelock::netplay;
using framelock::Result;

namespace {

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
        return ThreeSlotServer::player(slot, "p" + std::to_string(slot), "game.flarc");
    }
    // Both clients start and play until both reached `frames`.
    void start_and_play(std::uint32_t frames) {
        c1.start();
        c2.start();
        run(frames, [](std::uint32_t) {});
        REQUIRE(c1.next_frame() >= frames);
    }
    // Only the server runs, for `ms` (its players' processes hang).
    void server_alone(int ms) {
        for (int i = 0; i < ms; ++i) {
            server.update();
            clock.advance(1000);
        }
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
    hello.identity = ThreeSlotServer::identity();
    const std::vector<std::vector<std::uint8_t>> garbage = {
        {},                                                              // empty
        {0x7f, 1, 2, 3},                                                 // unknown id
        {static_cast<std::uint8_t>(MsgId::kClientInput), 1, 2},          // truncated input
        {static_cast<std::uint8_t>(MsgId::kHashReport), 0, 0, 0, 0, 1},  // truncated hash
        encode(far_ahead),  // a well-formed input from a peer without a slot
        {static_cast<std::uint8_t>(MsgId::kServerUpdate), 0, 0},  // a server-only message
    };
    int sent = 0;
    bool closed = false;
    rig.run(1200, [&](std::uint32_t step) {
        while (auto e = attacker->poll()) closed |= e->type == TransportEvent::Type::kDisconnected;
        // Garbage for 1.5 s; a connection that never says Hello is closed after 2 s.
        if (step % 10 == 0 && step > 0 && step < 1500) {
            for (const auto& bytes : garbage) attacker->send(to_server, Channel::kInput, bytes);
            sent += static_cast<int>(garbage.size());
        }
    });
    REQUIRE(rig.e1.hash_log().size() >= 1200);
    CHECK(rig.e1.hash_log().size() == rig.e2.hash_log().size());
    CHECK(rig.e1.hash_log() == rig.e2.hash_log());
    int malformed = 0, closed_events = 0;
    for (const auto& e : events_of(rig.server)) {
        malformed += e.type == ServerEvent::Type::kMalformed;
        closed_events +=
            e.type == ServerEvent::Type::kHalfOpen &&
            e.message.find("1 from attacker (1 said no Hello within 2000 ms") != std::string::npos;
    }
    CHECK(sent > 100);
    CHECK(malformed == sent);  // every bad datagram was seen and dropped, none crashed anything
    CHECK(closed);             // and the connection that never said Hello was closed
    CHECK(closed_events == 1);
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
            rig.c2.own_transport().send(
                1, Channel::kInput,
                std::vector<std::uint8_t>{static_cast<std::uint8_t>(MsgId::kClientInput)});
            rig.c2.own_transport().send(1, Channel::kInput, encode(far_ahead));
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

TEST_CASE("Every player silent at once: the server waits instead of confirming frames forever",
          "[netplay][server][robustness]") {
    // Found by fuzz_server_handshake: with both players away, confirm_frames() had no
    // input to wait for and gave neutral frames without end until memory ran out.
    Rig rig;
    rig.start_and_play(120);
    const std::uint32_t before = rig.server.confirmed_frames();
    // Both clients stop (their processes hang): only the server runs, for three seconds.
    rig.server_alone(3000);
    int away = 0;
    for (const auto& e : events_of(rig.server)) away += e.type == ServerEvent::Type::kPlayerAway;
    CHECK(away == 2);
    // At most the frames due until both were away (link_lost_us, 0.5 s at 60 fps), plus
    // what the clients had already sent ahead.
    CHECK(rig.server.confirmed_frames() < before + 60);
}

TEST_CASE("A player back from away with input far ahead does not confirm the frames between",
          "[netplay][server][robustness]") {
    // Found by fuzz_server: with every player away, one came back with an input claiming a
    // first frame 20,000 frames ahead; activate() filled the gap with neutral input and the
    // server confirmed all of it at once.
    Rig rig;
    rig.start_and_play(120);
    rig.server_alone(1500);  // both silent: both away
    const std::uint32_t before = rig.server.confirmed_frames();
    ClientInput far_ahead;
    far_ahead.seq = 200;
    far_ahead.first_frame = static_cast<std::uint16_t>(before + 20'000);
    far_ahead.inputs.assign(4, 0x0100);
    rig.c1.own_transport().send(1, Channel::kInput, encode(far_ahead));
    for (int ms = 0; ms < 100; ++ms) {
        rig.server.update();
        rig.clock.advance(1000);
    }
    CHECK(rig.server.confirmed_frames() < before + 60);
    int malformed = 0;
    for (const auto& e : events_of(rig.server))
        malformed += e.type == ServerEvent::Type::kMalformed;
    CHECK(malformed == 1);
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
    hello.identity = ThreeSlotServer::identity();
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

namespace {

// A modified client's rewrite (SealedTransport::rewrite_sends): a state upload is replaced by
// a zlib bomb, a small stream that inflates to 64 MiB, declared as a 1 KiB state.
struct Bomber {
    int bombs = 0;
    bool swallow = false;
    void operator()(Channel channel, std::vector<std::vector<std::uint8_t>>& messages) {
        const std::vector<std::uint8_t> data = messages.front();
        if (channel == Channel::kBulk && peek_id(data) == MsgId::kStateHeader) {
            auto header = decode_state_header(data);
            if (header && header->purpose == StatePurpose::kUpload && header->available) {
                const std::vector<std::uint8_t> zeros(64u << 20, 0);
                PackedState bomb = pack_state(zeros, header->frame);
                bomb.raw_size = 1024;
                StateSender sender(header->transfer_id, StatePurpose::kUpload, bomb, 1u << 30);
                messages = sender.take_messages();
                ++bombs;
                swallow = true;
                return;
            }
        }
        if (channel == Channel::kBulk && swallow && peek_id(data) == MsgId::kStateChunk)
            messages.clear();
    }
};

}  // namespace

TEST_CASE("A zlib bomb uploaded as the session's state is refused, the joiner gets a good one",
          "[netplay][server][robustness][state]") {
    ThreeSlotServer s{11};
    // Slot 1 (the host, asked first) bombs; slot 2 is honest.
    auto t1 = s.net.create_endpoint("c1");
    auto t2 = s.net.create_endpoint("c2"), t3 = s.net.create_endpoint("c3");
    HashingEmulator e1, e2, e3;
    Client c1{*t1, s.clock, e1, Rig::make_config(1)}, c2{*t2, s.clock, e2, Rig::make_config(2)};
    auto bomber = std::make_shared<Bomber>();
    c1.own_transport().rewrite_sends(
        [bomber](Channel channel, auto& messages) { (*bomber)(channel, messages); });
    Client c3{*t3, s.clock, e3, Rig::make_config(3)};
    c1.start();
    c2.start();
    for (int i = 0; i < 30'000 && c1.next_frame() < 1500; ++i) {
        if (i == 12'000) c3.start();  // frame ~600
        s.step([&] {
            c1.tick(static_cast<InputWord>(i * 7));
            c2.tick(static_cast<InputWord>(i * 13));
            if (i >= 12'000) c3.tick(static_cast<InputWord>(i * 5));
        });
    }
    // Asked twice: for the start state before frame 0, and for the joiner's state.
    CHECK(bomber->bombs == 2);
    const ServerEvent* refused = nullptr;
    bool start_from_p2 = false;
    for (const auto& e : s.events) {
        if (e.type == ServerEvent::Type::kRefused && !refused) refused = &e;
        start_from_p2 |= e.type == ServerEvent::Type::kStateSent &&
                         e.message.find("start state from p2") != std::string::npos;
    }
    REQUIRE(refused != nullptr);
    CHECK_THAT(refused->message, Catch::Contains("p1") && Catch::Contains("1024"));
    CHECK(start_from_p2);  // the honest player's start state went to everyone
    // The joiner got slot 2's state instead and plays in step with everyone.
    REQUIRE(c3.state() == Client::State::kRunning);
    CHECK(c3.first_frame() > 0);
    CHECK(e1.hash_log() == e2.hash_log());
    REQUIRE(e3.hash_log().size() > 1000);
    for (std::size_t f = c3.first_frame(); f < e3.hash_log().size() && f < e1.hash_log().size();
         ++f)
        CHECK(e3.hash_log()[f] == e1.hash_log()[f]);
    CHECK(e1.hash_log().size() >= 1500);
}

TEST_CASE("A spectator's input, a stolen slot and a wrong password are refused with a message",
          "[netplay][server][robustness]") {
    Rig rig;
    rig.c1.start();
    rig.c2.start();
    rig.run(300, [](std::uint32_t) {});
    REQUIRE(rig.c2.state() == Client::State::kRunning);

    // A spectator (a raw peer, to send what a real spectator never would) sends pads.
    // It seals what follows its Welcome, as every client must (sealed_transport.h).
    auto unsealed = rig.net.create_endpoint("watcher");
    SealedTransport sealed(*unsealed);
    Transport* raw = &sealed;
    const PeerId to_server = raw->connect("server").value();
    Hello hello;
    hello.identity = ThreeSlotServer::identity();
    hello.role = Role::kSpectator;
    hello.player_name = "watcher";
    const KxKeys kx = new_kx_keys();
    hello.kx_key = kx.public_key;
    Nonce nonce{};
    bool welcomed = false;
    int sent = 0;
    rig.run(900, [&](std::uint32_t step) {
        while (auto e = raw->poll()) {
            if (e->type == TransportEvent::Type::kMessage &&
                peek_id(e->data) == MsgId::kChallenge) {
                nonce = decode_challenge(e->data).value().nonce;
                raw->send(to_server, Channel::kControl, encode(hello));
                sealed.hold_until_sealed(to_server);
            }
            if (e->type == TransportEvent::Type::kMessage && !sealed.sealed(to_server) &&
                peek_id(e->data) == MsgId::kWelcome) {
                const auto welcome = decode_welcome(e->data);
                welcomed = welcome.has_value();
                if (welcome)
                    sealed.seal(to_server,
                                client_seal_keys(kx, welcome->kx_key, nonce, std::nullopt).value());
            }
        }
        if (welcomed && step % 10 == 0) {
            ClientInput input;
            input.first_frame = static_cast<std::uint16_t>(rig.c1.next_frame() + 5);
            input.inputs.assign(4, 0x5a5a);
            raw->send(to_server, Channel::kInput, encode(input));
            ++sent;
        }
    });
    REQUIRE(welcomed);
    CHECK(sent > 50);
    CHECK(rig.e1.hash_log() == rig.e2.hash_log());
    for (const auto& frame : rig.e1.input_log()) {
        for (InputWord pad : frame.pads) CHECK(pad != 0x5a5a);
    }
    std::vector<ServerEvent> events = events_of(rig.server);
    int refusals = 0;
    for (const auto& e : events) {
        if (e.type != ServerEvent::Type::kRefused) continue;
        ++refusals;
        CHECK_THAT(e.message,
                   Catch::Contains("watcher") && Catch::Contains("spectators cannot play"));
    }
    CHECK(refusals == 1);  // reported once, counted always
    CHECK(rig.server.spectators() == 1);

    // p2's process dies; mallory asks for its slot and is refused; p2 comes back.
    rig.t2.reset();
    auto tm = rig.net.create_endpoint("mallory");
    HashingEmulator em;
    ClientConfig mallory = Rig::make_config(2);
    mallory.player_name = "mallory";
    Client cm(*tm, rig.clock, em, mallory);
    for (int i = 0; i < 1500; ++i) {
        if (i == 600) cm.start();
        rig.server.update();
        rig.c1.tick(static_cast<InputWord>(i));
        cm.tick(0);
        rig.clock.advance(1000);
    }
    REQUIRE(cm.state() == Client::State::kEnded);
    CHECK_THAT(cm.end_reason(), Catch::Contains("slot 2 belongs to 'p2'") &&
                                    Catch::Contains("only their framelock, with the rejoin token"));
    // p2's name without its token: the session is full, and the name takes nothing.
    // How a client that is refused ends, while c1 plays on.
    const auto refusal = [&](const std::string& endpoint, const ClientConfig& config) {
        auto transport = rig.net.create_endpoint(endpoint);
        HashingEmulator emulator;
        Client client(*transport, rig.clock, emulator, config);
        client.start();
        for (int i = 0; i < 300 && client.state() != Client::State::kEnded; ++i) {
            rig.server.update();
            rig.c1.tick(static_cast<InputWord>(i));
            client.tick(0);
            rig.clock.advance(1000);
        }
        REQUIRE(client.state() == Client::State::kEnded);
        return client.end_reason();
    };
    CHECK_THAT(refusal("name-thief", Rig::make_config(0)),
               Catch::Contains("the session is full (2/2 players)"));
    // A token made up, or another slot's: refused all the same.
    ClientConfig guesser = Rig::make_config(2);
    guesser.rejoin_token = RejoinToken{};
    guesser.rejoin_token->fill(0x42);
    CHECK_THAT(refusal("guesser", guesser), Catch::Contains("slot 2 belongs to 'p2'"));
    // p2's new process, with the token its old one was given: its slot back.
    auto t2b = rig.net.create_endpoint("c2-again");
    HashingEmulator e2b;
    ClientConfig again = Rig::make_config(0);
    REQUIRE(rig.c2.rejoin_token());
    again.rejoin_token = rig.c2.rejoin_token();
    Client c2b(*t2b, rig.clock, e2b, again);
    c2b.start();
    for (int i = 0; i < 3000; ++i) {
        rig.server.update();
        rig.c1.tick(static_cast<InputWord>(i));
        c2b.tick(static_cast<InputWord>(i * 3));
        rig.clock.advance(1000);
    }
    REQUIRE(c2b.state() == Client::State::kRunning);
    CHECK(c2b.slot() == 2);
    CHECK(c2b.display_name() == "p2");
    CHECK(c2b.rejoin_token() != rig.c2.rejoin_token());  // a new one with every Welcome
    REQUIRE(e2b.hash_log().size() > c2b.first_frame() + 100);
    for (std::size_t f = c2b.first_frame();
         f < e2b.hash_log().size() && f < rig.e1.hash_log().size(); ++f)
        CHECK(e2b.hash_log()[f] == rig.e1.hash_log()[f]);
}

TEST_CASE("A session with passwords refuses players and spectators without the right one",
          "[netplay][server][robustness]") {
    ManualClock clock{1'000'000};
    SimNetwork net{12, clock};
    net.set_default_link({5'000, 0, 0.0, 0.0, 0});
    auto st = net.create_endpoint("server");
    ServerConfig config;
    config.players = 2;
    config.password = "sesame";
    config.spectator_password = "popcorn";
    Server server{*st, clock, config};
    const auto try_join = [&](const std::string& name, Role role, const std::string& password) {
        auto t = net.create_endpoint(name);
        HashingEmulator e;
        ClientConfig c = Rig::make_config(0);
        c.player_name = name;
        c.role = role;
        c.password = password;
        Client client(*t, clock, e, c);
        client.start();
        for (int i = 0; i < 300 && client.state() != Client::State::kEnded &&
                        client.state() != Client::State::kLobby;
             ++i) {
            server.update();
            client.tick(0);
            clock.advance(1000);
        }
        return client.state() == Client::State::kEnded ? client.end_reason() : std::string("in");
    };
    CHECK_THAT(try_join("a", Role::kPlayer, ""), Catch::Contains("needs a password"));
    CHECK_THAT(try_join("b", Role::kPlayer, "open"), Catch::Contains("wrong password"));
    CHECK(try_join("c", Role::kPlayer, "sesame") == "in");
    CHECK_THAT(try_join("d", Role::kSpectator, "sesame"),
               Catch::Contains("wrong spectator password"));
    CHECK(try_join("e", Role::kSpectator, "popcorn") == "in");
}

TEST_CASE("A server echo held through an upstream outage gives the client no RTT sample",
          "[netplay][server][robustness][blackout]") {
    // Only c1's uplink goes dark for 1.5 s: the server keeps sending it updates that echo
    // the last time it heard from c1, held longer than the 16-bit hold field can say.
    Rig rig;
    rig.start_and_play(240);
    const Micros srtt_before = rig.c1.stats().srtt;
    REQUIRE(srtt_before > 0);
    REQUIRE(srtt_before < 40'000);
    const Micros dark_at = rig.clock.now_us();
    rig.net.schedule_link_change(dark_at, "c1", "server", {10'000, 500, 1.0, 0.0, 0});
    rig.net.schedule_link_change(dark_at + 1'500'000, "c1", "server", {10'000, 500, 0.0, 0.0, 0});
    Micros srtt_worst = 0;
    rig.run(240 + 360,
            [&](std::uint32_t) { srtt_worst = std::max(srtt_worst, rig.c1.stats().srtt); });
    REQUIRE(rig.c1.next_frame() >= 600);
    CHECK(srtt_worst < 40'000);
}

TEST_CASE(
    "A player cannot widen the desync evidence mask at will: only the report for a state "
    "the server sent it counts",
    "[netplay][server][robustness]") {
    Rig rig;
    rig.c1.start();
    rig.c2.start();
    int sent = 0;
    rig.run(900, [&](std::uint32_t step) {
        if (step % 40 == 0 && rig.c2.state() == Client::State::kRunning) {
            // The whole state "moved", or too much to say: either would end the comparison.
            rig.c2.own_transport().send(1, Channel::kControl,
                                        encode(MovedBytes{0, 64, false, {{0, 16}}}));
            rig.c2.own_transport().send(1, Channel::kControl,
                                        encode(MovedBytes{rig.c2.next_frame(), 64, true, {}}));
            sent += 2;
        }
    });
    CHECK(sent > 10);
    int evidence = 0;
    for (const auto& e : events_of(rig.server)) evidence += e.type == ServerEvent::Type::kEvidence;
    CHECK(evidence == 0);
    const auto stats = rig.server.slot_stats();
    REQUIRE(stats.size() == 2);
    CHECK(stats[1].malformed >= static_cast<std::uint64_t>(sent));
    CHECK(rig.server.hash_frames_matched() > 10);
    CHECK(rig.e1.hash_log() == rig.e2.hash_log());
}
