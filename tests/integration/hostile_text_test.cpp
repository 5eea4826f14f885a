// Text from a hostile peer, end to end: a real `framelock server` process on 127.0.0.1 and two
// players in this process (netplay::Client over ENet, a HashingEmulator each), one of which is
// modified the way an attacker would: a name and a Bye reason full of new lines, terminal
// escapes and bidi overrides, which the player's own --name check would have refused. The
// server's log and what the other player is told must show them escaped, byte for byte
// (netplay/base/safe_text.h), and never start a line of their own.
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "integration/netplay_session.h"
#include "netplay/client/client.h"
#include "netplay/io/enet_transport.h"
#include "netplay/io/real_clock.h"
#include "netplay/sim/sim_session.h"

using namespace framelock::test;
using framelock::netplay::Client;
using framelock::netplay::ClientConfig;
using framelock::netplay::ClientEvent;
using framelock::netplay::EnetTransport;
using framelock::netplay::HashingEmulator;
using framelock::netplay::InputWord;
using framelock::netplay::SteadyClock;

namespace {

// The name the issue measured: a forged log line after a new line, and an OSC sequence that
// retitles the terminal (37 bytes: within the wire's 40).
const std::string kHostileName = "x\n[warn] forged: admin kicked\x1b]0;PWN\a";
// A Bye reason that clears the screen and reverses what follows it, then runs on for 900
// bytes (the wire takes 1 KiB; the other players are told it too).
const std::string kHostileReason =
    "bye\r\n[error] forged\x1b[2J\xe2\x80\xae"
    "evil" +
    std::string(900, 'A');

struct Player {
    std::unique_ptr<EnetTransport> transport;
    HashingEmulator emulator;
    std::unique_ptr<Client> client;
    std::vector<ClientEvent> events;
};

void join(Player& player, const SteadyClock& clock, const std::string& address, int slot,
          const std::string& name) {
    auto transport = EnetTransport::client();
    REQUIRE(transport);
    player.transport = std::move(transport).value();
    ClientConfig config;
    config.server_address = address;
    config.requested_slot = static_cast<std::uint8_t>(slot);
    config.player_name = name;
    config.identity = {"hashing", "1", 1, 1, 60'000, 2};
    player.client = std::make_unique<Client>(*player.transport, clock, player.emulator, config);
    player.client->start();
}

// Ticks both players until `done` holds (or fails the test after `limit`).
template <class Done>
void play_until(Player (&players)[2], Done done, std::chrono::seconds limit) {
    const auto deadline = SteadyTime::now() + limit;
    while (!done()) {
        REQUIRE(SteadyTime::now() < deadline);
        for (Player& player : players) {
            Client& client = *player.client;
            if (client.state() == Client::State::kEnded) continue;
            client.tick(static_cast<InputWord>(client.next_sample_frame() & 0x0ff3));
            while (auto event = client.poll_event()) player.events.push_back(*event);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

bool has_raw_controls(const std::string& text) {
    for (char c : text) {
        const auto b = static_cast<unsigned char>(c);
        if ((b < 0x20 && b != '\n') || b == 0x7f) return true;
    }
    return text.find("\xe2\x80\xae") != std::string::npos;
}

}  // namespace

TEST_CASE(
    "hostile text: a peer's name and Bye reason reach the server's log and the other player "
    "escaped, byte for byte",
    "[integration][netplay][hostile]") {
    Session session("hostile-text");
    session.start_server(2, std::chrono::seconds(60));
    const auto port = framelock::parse_port_file(read_text(session.dir().file("server.port")));
    REQUIRE(port);
    const std::string address = "127.0.0.1:" + std::to_string(*port);
    SteadyClock clock;
    Player players[2];
    join(players[0], clock, address, 1, kHostileName);
    join(players[1], clock, address, 2, "bob");
    // Both play a few frames: the hostile name was taken, the session runs.
    play_until(
        players,
        [&] {
            return players[0].client->next_frame() >= 30 && players[1].client->next_frame() >= 30;
        },
        std::chrono::seconds(30));
    players[0].client->leave(kHostileReason);
    const auto told = [&]() -> const ClientEvent* {
        for (const ClientEvent& event : players[1].events)
            if (event.type == ClientEvent::Type::kPlayerLeft) return &event;
        return nullptr;
    };
    play_until(
        players, [&] { return told() != nullptr; }, std::chrono::seconds(30));
    const std::string relayed = told()->message;
    players[1].client->leave("done");
    session.require_server_success(after(std::chrono::seconds(30)));
    const std::string log = read_text(session.dir().file("server.log"));
    INFO(log);

    // The name as the server keeps it: every control written out, cut to the wire's 40 bytes
    // on an escape's boundary (the title's "WN" and the bell do not fit).
    const std::string name = "x\\x0a[warn] forged: admin kicked\\x1b]0;P";
    // The reason: escaped, cut to 120 bytes.
    const std::string escaped =
        "bye\\x0d\\x0a[error] forged\\x1b[2J\\u202e"
        "evil";
    const std::string reason = escaped + std::string(120 - escaped.size(), 'A');
    CHECK_THAT(log, Catch::Contains(name + " joined"));
    CHECK_THAT(log, Catch::Contains(name + " left: " + reason + " (neutral input from frame"));
    // No line of the log is the forged one, and no control or override reached it raw.
    CHECK_THAT(log, !Catch::Contains("\n[warn] forged") && !Catch::Contains("\n[error] forged"));
    CHECK_FALSE(has_raw_controls(log));
    // The other player is told the same, escaped: "NAME: REASON".
    CHECK(relayed == name + ": " + reason);
    CHECK_FALSE(has_raw_controls(relayed));
}

TEST_CASE("hostile text: the player's own --name with a control or bidi character is refused",
          "[integration][netplay][hostile]") {
    struct Case {
        std::string name, named;
    };
    const Case cases[] = {
        {kHostileName, "--name holds U+000A (a control character) at byte 1"},
        {"\xe2\x80\xae"
         "nimda",
         "--name holds U+202E (a bidi control: it reorders the text after "
         "it) at byte 0"},
        {"ok\xc0\xafname", "--name holds the byte 0xc0 (not well-formed UTF-8) at byte 2"},
    };
    for (const Case& c : cases) {
        // Refused before anything else happens: no core is loaded, nothing is reached.
        const ProcessResult run =
            run_process({framelock::test::build_paths::framelock_exe, "join", "127.0.0.1:9",
                         "--name", c.name, "--rejoin-file", "-"},
                        std::chrono::seconds(30));
        INFO(run.err);
        CHECK(run.exit_code == 2);
        CHECK_THAT(run.err, Catch::Contains(c.named));
        CHECK_FALSE(has_raw_controls(run.err));
    }
}
