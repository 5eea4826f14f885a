// Chat in a session (netplay/server/chat_room.h): a member's line reaches every player and
// spectator under the name the server gave it, as safe text; each member's rate is held; a
// server with chat off relays nothing. A server, two players and a spectator on a simulated
// network and a virtual clock.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "netplay/client/client.h"
#include "netplay/server/server.h"
#include "netplay/sim/sim_network.h"
#include "netplay/sim/sim_session.h"

using namespace framelock::netplay;

namespace {

ClientConfig config_for(const std::string& name, Role role = Role::kPlayer) {
    ClientConfig c;
    c.server_address = "server";
    c.player_name = name;
    c.identity = {"framelock-arcade", "1.0", 0xaaaa, 0xbbbb, 60000};
    c.role = role;
    return c;
}

// Two players ("ann", and a name with a terminal escape) and a spectator ("sam") on 5 ms
// links, run until the session plays.
struct ChatBench {
    ManualClock clock{1'000'000};
    SimNetwork net{34, clock};
    std::unique_ptr<Transport> server_transport = net.create_endpoint("server");
    std::unique_ptr<Server> server;
    struct Member {
        std::unique_ptr<Transport> transport;
        std::unique_ptr<HashingEmulator> emulator;
        std::unique_ptr<Client> client;
        std::vector<ChatLine> heard;
    };
    std::vector<Member> members;

    explicit ChatBench(bool chat = true) {
        net.set_default_link({5'000, 0, 0.0, 0.0, 0});
        ServerConfig config;
        config.chat = chat;
        server = std::make_unique<Server>(*server_transport, clock, config);
        add("p1", config_for("ann"));
        add("p2", config_for("bob\x1b]0;PWN\a"));
        run_ms(1500);
        add("s1", config_for("sam", Role::kSpectator));
        run_ms(1500);
    }
    void add(const std::string& endpoint, ClientConfig config) {
        Member m;
        m.transport = net.create_endpoint(endpoint);
        m.emulator = std::make_unique<HashingEmulator>();
        m.client = std::make_unique<Client>(*m.transport, clock, *m.emulator, std::move(config));
        m.client->start();
        members.push_back(std::move(m));
    }
    Client& ann() { return *members[0].client; }
    Client& bob() { return *members[1].client; }
    Client& sam() { return *members[2].client; }
    void run_ms(int ms) {
        for (int i = 0; i < ms; ++i) {
            server->update();
            for (auto& m : members) {
                m.client->tick(static_cast<InputWord>(i & 3));
                while (auto line = m.client->poll_chat()) m.heard.push_back(std::move(*line));
            }
            clock.advance(1000);
        }
    }
    const std::vector<ChatLine>& heard(int member) const { return members[member].heard; }
    // The lines `member` heard from slot `from` (kChatFromServer: the server's notices).
    int lines_from(int member, int from) const {
        int n = 0;
        for (const auto& line : heard(member)) n += line.from_slot == from;
        return n;
    }
};

}  // namespace

TEST_CASE(
    "Chat: a player's line reaches every player and spectator, itself included, under the name "
    "the server gave it and as safe text, and a spectator's line too",
    "[netplay][chat]") {
    ChatBench bench;
    REQUIRE(bench.ann().state() == Client::State::kRunning);
    REQUIRE(bench.sam().spectator());
    REQUIRE(bench.bob().say("gg \x1b[31mred\x1b[0m\nforged line").ok());
    bench.run_ms(200);
    for (int m = 0; m < 3; ++m) {
        INFO("member " << m);
        REQUIRE(bench.heard(m).size() == 1);
        const ChatLine& line = bench.heard(m).front();
        CHECK(line.from_slot == 2);
        CHECK(line.from == "bob\\x1b]0;PWN\\x07");
        CHECK(line.text == "gg \\x1b[31mred\\x1b[0m\\x0aforged line");
        CHECK(line.frame > 0);
        CHECK(line.frame <= bench.server->confirmed_frames());
    }
    REQUIRE(bench.sam().say("nice").ok());
    bench.run_ms(200);
    for (int m = 0; m < 3; ++m) {
        REQUIRE(bench.heard(m).size() == 2);
        CHECK(bench.heard(m)[1].from_slot == 0);
        CHECK(bench.heard(m)[1].from == "sam");
        CHECK(bench.heard(m)[1].text == "nice");
    }
    CHECK(bench.server->chat_lines() == 2);
    std::vector<std::string> logged;
    while (auto event = bench.server->poll_event())
        if (event->type == ServerEvent::Type::kChat) logged.push_back(event->message);
    CHECK(logged == std::vector<std::string>{
                        "P2 bob\\x1b]0;PWN\\x07: gg \\x1b[31mred\\x1b[0m\\x0aforged line",
                        "spectator sam: nice"});
}

TEST_CASE(
    "Chat: a line is cut to 160 bytes on a character's boundary, and nothing but spaces is not "
    "said",
    "[netplay][chat]") {
    ChatBench bench;
    std::string long_text;
    while (long_text.size() < 300) long_text += "\xc3\xa9";  // é, two bytes each
    REQUIRE(bench.ann().say(long_text).ok());
    CHECK_FALSE(bench.ann().say("   ").ok());
    bench.run_ms(200);
    REQUIRE(bench.heard(1).size() == 1);
    CHECK(bench.heard(1)[0].text.size() == kMaxChatBytes);
    CHECK(bench.heard(1)[0].text == long_text.substr(0, kMaxChatBytes));
    // A modified client's spaces only, sent past its own check, are dropped by the server.
    bench.ann().own_transport().send(1, Channel::kControl, encode(ChatSay{"    "}));
    bench.run_ms(200);
    CHECK(bench.heard(1).size() == 1);
}

TEST_CASE(
    "Chat: a member says 5 lines at once and one more every 2 s, what it says beyond is "
    "dropped, and it alone hears why, once in 2 s",
    "[netplay][chat]") {
    ChatBench bench;
    for (int i = 0; i < 8; ++i) REQUIRE(bench.bob().say("spam " + std::to_string(i)).ok());
    bench.run_ms(300);
    CHECK(bench.lines_from(0, 2) == 5);
    CHECK(bench.lines_from(2, 2) == 5);
    CHECK(bench.lines_from(1, 2) == 5);
    CHECK(bench.lines_from(1, kChatFromServer) == 1);
    CHECK(bench.lines_from(0, kChatFromServer) == 0);
    CHECK(bench.lines_from(2, kChatFromServer) == 0);
    CHECK(bench.heard(1).back().text.find("5 messages at once at most") != std::string::npos);
    // Another member's rate is its own.
    REQUIRE(bench.ann().say("still here").ok());
    bench.run_ms(100);
    CHECK(bench.lines_from(2, 1) == 1);
    // Two seconds on: one more of bob's.
    bench.run_ms(2000);
    REQUIRE(bench.bob().say("again").ok());
    REQUIRE(bench.bob().say("and again").ok());
    bench.run_ms(300);
    CHECK(bench.lines_from(0, 2) == 6);
    CHECK(bench.heard(0).back().text == "again");
}

TEST_CASE(
    "Chat off (--no-chat): the Welcome says so, the client says nothing, and a modified "
    "client's line is dropped with a notice to it alone",
    "[netplay][chat]") {
    ChatBench bench(false);
    CHECK_FALSE(bench.ann().chat_on());
    const framelock::Status said = bench.ann().say("hello");
    REQUIRE_FALSE(said.ok());
    CHECK(said.error().message.find("chat is off") != std::string::npos);
    bench.ann().own_transport().send(1, Channel::kControl, encode(ChatSay{"hello anyway"}));
    bench.run_ms(300);
    CHECK(bench.heard(1).empty());
    CHECK(bench.heard(2).empty());
    REQUIRE(bench.heard(0).size() == 1);
    CHECK(bench.heard(0)[0].from_slot == kChatFromServer);
    CHECK(bench.heard(0)[0].text.find("chat is off") != std::string::npos);
    CHECK(bench.server->chat_lines() == 0);
}

TEST_CASE("Chat: a member quiet for a while still says 5 lines at once, not more",
          "[netplay][chat]") {
    ChatBench bench;
    REQUIRE(bench.bob().say("one").ok());
    bench.run_ms(3900);  // the bucket full again, and most of a refill's time on top
    for (int i = 0; i < 6; ++i) REQUIRE(bench.bob().say("burst " + std::to_string(i)).ok());
    bench.run_ms(300);
    CHECK(bench.lines_from(0, 2) == 1 + 5);
    CHECK(bench.lines_from(1, kChatFromServer) == 1);
}
