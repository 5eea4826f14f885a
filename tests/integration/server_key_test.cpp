// The server's key with real processes (netplay/crypto/server_identity.h): a player told the
// key of the server it means to join refuses any other machine that answers in its place.
// Directly (`join --server-key`, an impostor on 127.0.0.2), and through the lobby (the room's
// key), with a router on the joiner's path that sends its datagrams to an impostor (the NAT
// lab, root only).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "integration/lobby_session.h"
#include "integration/nat_lab_session.h"
#include "integration/netplay_session.h"
#include "support/nat_lab.h"
#include "support/test_server_keys.h"

using namespace framelock::test;
using namespace std::chrono_literals;

namespace {

// `framelock server` for one player on `bind`: its address, and its key from its log.
struct ServerUnderTest {
    std::string address;
    std::string key;
};

ServerUnderTest start_one_player_server(Session& session, const std::string& name,
                                        const std::string& bind, std::chrono::milliseconds limit) {
    const std::string port_file = session.dir().file(name + ".port");
    framelock::ChildProcess& server = session.start(
        name, {build_paths::framelock_exe, "server", "--bind", bind, "--port", "0", "--players",
               "1", "--port-file", port_file, "--duration", std::to_string(limit.count() / 1000)});
    auto port = framelock::wait_for_port_file(port_file, server, ready_deadline());
    if (!port) FAIL(port.error().message << session.log_of(name));
    ServerUnderTest out{bind + ":" + std::to_string(port.value()),
                        server_key_in_log(session.dir().file(name + ".log"))};
    INFO(session.log_of(name));
    REQUIRE(out.key.size() == 43);
    return out;
}

// Waits for NAME to end by `deadline`; requires that it failed (the join was refused).
void require_refused(Session& session, framelock::ChildProcess& child, const std::string& name,
                     Deadline deadline) {
    const auto status = child.wait_until(deadline);
    INFO(name << (status ? " " + status->describe() : " timed out") << session.log_of(name));
    REQUIRE(status);
    REQUIRE_FALSE(status->success());
}

}  // namespace

TEST_CASE(
    "server key: a joiner told the server's key refuses an impostor at another address, "
    "naming both keys, and without the key it would have played there",
    "[integration][netplay][server_key]") {
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    constexpr int kFrames = 120;
    const auto limit = session_time(kFrames);
    Session session("server-key");
    const ServerUnderTest real = start_one_player_server(session, "real", "127.0.0.1", limit);
    const ServerUnderTest impostor =
        start_one_player_server(session, "impostor", "127.0.0.2", limit);
    REQUIRE(real.key != impostor.key);

    // Pointed at the impostor (a wrong address, a poisoned name, a redirect), with the key
    // the host printed: refused at the Welcome.
    const auto started = SteadyTime::now();
    framelock::ChildProcess& misled =
        session.start_player("misled", {"join", impostor.address}, core, 0, 31, kFrames,
                             {"--server-key", real.key}, false);
    require_refused(session, misled, "misled", after(limit));
    const double refused_s = std::chrono::duration<double>(SteadyTime::now() - started).count();
    const std::string said = read_text(session.dir().file("misled.log"));
    INFO(said);
    CHECK(said.find(real.key) != std::string::npos);
    CHECK(said.find(impostor.key) != std::string::npos);
    CHECK(said.find("another machine answers at that address") != std::string::npos);
    CHECK(read_lines(session.hashes("misled")).empty());  // it ran no frame there

    // The real server, with its key: plays.
    framelock::ChildProcess& pinned = session.start_player(
        "pinned", {"join", real.address}, core, 0, 32, kFrames, {"--server-key", real.key}, false);
    session.require_success(pinned, "pinned", after(limit));
    CHECK(read_lines(session.hashes("pinned")).size() == kFrames);
    CHECK(read_text(session.dir().file("pinned.log")).find("the key it was expected to hold") !=
          std::string::npos);

    // Without a key nothing tells the impostor apart: the player plays in its session (and
    // its log names the key it met, unchecked). What the key above prevented.
    framelock::ChildProcess& unpinned = session.start_player("unpinned", {"join", impostor.address},
                                                             core, 0, 33, kFrames, {}, false);
    session.require_success(unpinned, "unpinned", after(limit));
    CHECK(read_lines(session.hashes("unpinned")).size() == kFrames);
    const std::string unchecked = read_text(session.dir().file("unpinned.log"));
    CHECK(unchecked.find(impostor.key) != std::string::npos);
    CHECK(unchecked.find("not checked") != std::string::npos);

    // A key that is not one is a usage error, before anything is sent.
    const ProcessResult bad =
        run_process({build_paths::framelock_exe, "join", real.address, "--core", core.core,
                     "--server-key", "not-a-key", "--video", "none", "--frames", "1"});
    CHECK(bad.exit_code != 0);
    CHECK_THAT(bad.err, Catch::Contains("--server-key") && Catch::Contains("is not a server key"));
    std::printf(
        "[figure] server key: a joiner pinned to %s refused the impostor's %s in %.2f s; "
        "pinned to the real server it ran %d frames; unpinned it ran %d frames in the "
        "impostor's session\n",
        real.key.c_str(), impostor.key.c_str(), refused_s, kFrames, kFrames);
}

TEST_CASE(
    "NAT lab: a router that sends a joiner's relay traffic to an impostor gets the join "
    "refused by the room's key, naming both keys",
    "[integration][natlab][netplay][server_key]") {
    const CoreCase core = lab_core();
    constexpr int kFrames = 300;
    const auto limit = session_time(kFrames);
    NatLab lab({Nat::kPortPreserving, Nat::kPortPreserving},
               std::chrono::duration_cast<std::chrono::seconds>(limit));
    const Internet internet(lab, 1, limit);
    const std::string relay = NatLab::relay_address(0) + ":" + std::to_string(Internet::kRelayPort);
    // The impostor: a framelock server of the attacker's own, not registered with the lobby,
    // for one player (a joiner it catches plays alone there: the attack, undetected).
    const std::string impostor =
        NatLab::relay_address(1) + ":" + std::to_string(Internet::kRelayPort);
    framelock::ChildProcess& fake = lab.spawn(
        lab.inet(), "impostor",
        {build_paths::framelock_exe, "server", "--bind", NatLab::relay_address(1), "--port",
         std::to_string(Internet::kRelayPort), "--players", "1", "--duration",
         std::to_string(std::chrono::duration_cast<std::chrono::seconds>(limit).count())});
    wait_for_lab_log(lab, "impostor", "listening on", fake, kReadyLimit);
    // Router 2 (the joiner's) sends what its home addresses to the relay to the impostor.
    lab.redirect(2, relay, impostor);

    Session session("natlab-impostor");
    framelock::ChildProcess& host = lab.spawn(
        lab.home(1), "host",
        lab_player(
            session, "host", core, 91, kFrames,
            {"host", "--lobby", internet.url, "--public", "--players", "2", "--game", "impostor"}));
    const std::string code = wait_for_room_code(lab, "host", host);
    wait_for_lab_log(lab, "relay0", "host joined", *internet.relays.at(0), kReadyLimit);
    const auto started = SteadyTime::now();
    framelock::ChildProcess& joiner = lab.spawn(
        lab.home(2), "joiner",
        lab_player(session, "joiner", core, 92, kFrames, {"join", "--lobby", internet.url, code}));
    const auto status = joiner.wait_until(after(limit));
    const double refused_s = std::chrono::duration<double>(SteadyTime::now() - started).count();
    INFO("joiner " << (status ? status->describe() : "timed out") << lab.log_of("joiner")
                   << lab.log_of("impostor"));
    REQUIRE(status);
    // The datagrams did reach the impostor (the redirect works), and the join failed there.
    CHECK(read_text(lab.file("impostor.log")).find("joiner") != std::string::npos);
    REQUIRE_FALSE(status->success());
    // Refused by the keys: the room's (the relay's, as it logged it) and the impostor's.
    const std::string relay_key = server_key_in_log(lab.file("relay0.log"));
    const std::string impostor_key = server_key_in_log(lab.file("impostor.log"));
    REQUIRE(relay_key.size() == 43);
    REQUIRE(impostor_key.size() == 43);
    const std::string said = read_text(lab.file("joiner.log"));
    CHECK(said.find(relay_key) != std::string::npos);
    CHECK(said.find(impostor_key) != std::string::npos);
    CHECK(said.find("another machine answers at that address") != std::string::npos);
    CHECK(read_lines(session.hashes("joiner")).empty());  // no frame in the impostor's session
    std::printf(
        "[figure] NAT lab impostor: router 2 sent %s to %s; the joiner refused key %s "
        "(the room's is %s) after %.2f s, 0 frames run there\n",
        relay.c_str(), impostor.c_str(), impostor_key.c_str(), relay_key.c_str(), refused_s);
}
