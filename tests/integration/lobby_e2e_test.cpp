// The lobby end to end with real netplay: `framelock lobby serve`, two `framelock server
// --lobby` relays, a `host --lobby --public` that gets one of them assigned, and a player
// who joins by the room's code. Then the room's way out: deleted on a clean exit, expired
// after the TTL when its host is killed.
#include <catch2/catch.hpp>

#include <signal.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "integration/lobby_session.h"

using namespace framelock::test;
using json = nlohmann::json;

TEST_CASE("lobby: a host gets a relay server assigned and a player joins it by code",
          "[integration][lobby][netplay]") {
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    constexpr int kFrames = 3000;
    const auto limit = session_time(kFrames);
    const Deadline deadline = after(limit);
    Session session("lobby-e2e");
    const LobbyProcess lobby(session, "lobby");
    const std::set<std::string> relays = {
        "127.0.0.1:" + std::to_string(start_relay(session, "relay1", lobby, limit)),
        "127.0.0.1:" + std::to_string(start_relay(session, "relay2", lobby, limit))};
    wait_for_servers(lobby, 2);

    // No --port: the lobby assigns one of the relays, and the host plays there as player 1.
    ChildProcess& host =
        session.start("host", player_args(session, "host", core, 91, kFrames,
                                          {"host", "--lobby", lobby.url, "--public", "--players",
                                           "2", "--game", "lobby e2e"}));
    const std::string code = wait_for_code(session, "host", host);
    REQUIRE(code.size() == 6);
    const auto joining_at = SteadyTime::now();
    ChildProcess& joiner = session.start(
        "joiner",
        player_args(session, "joiner", core, 92, kFrames, {"join", "--lobby", lobby.url, code}));

    // While they play, the lobby shows the room full: 2/2 from the host's heartbeats.
    std::optional<double> full_after_ms;
    json room;
    while (!full_after_ms) {
        const auto [status, body] = lobby.get("/api/rooms/" + code);
        INFO(session.log_of("host") << session.log_of("joiner"));
        REQUIRE(status == 200);
        if (body["players"] == 2 && body["slots"] == 2) {
            full_after_ms =
                std::chrono::duration<double, std::milli>(SteadyTime::now() - joining_at).count();
            room = body;
        }
        REQUIRE(joiner.running());
        REQUIRE(SteadyTime::now() < joining_at + kReadyLimit);
        std::this_thread::sleep_for(50ms);
    }
    CHECK(room["game_name"] == "lobby e2e");
    CHECK(room["host_name"] == "host");
    const std::string assigned = room["server_address"];
    CHECK(relays.count(assigned) == 1);
    // The assigned relay's session is busy now: a second room would get the other one.
    {
        const auto [status, body] = lobby.get("/api/servers");
        REQUIRE(status == 200);
        for (const auto& server : body["servers"])
            CHECK(server["load"] == (server["address"] == assigned ? 1 : 0));
    }

    session.require_success(host, "host", deadline);
    const auto host_done = SteadyTime::now();
    session.require_success(joiner, "joiner", deadline);
    require_identical_logs(session, "host", "joiner", kFrames);

    // The host's clean exit deleted its room (its log says so; the room's TTL would have
    // taken it too, so the wait for the lobby to say it is gone can be generous).
    while (lobby.room_listed(code)) {
        REQUIRE(SteadyTime::now() < host_done + kReadyLimit);
        std::this_thread::sleep_for(20ms);
    }
    const double gone_ms =
        std::chrono::duration<double, std::milli>(SteadyTime::now() - host_done).count();
    CHECK_THAT(session.log_of("host"), Catch::Contains("room " + code + " deleted"));
    std::printf(
        "[figure] lobby e2e: room %s on relay %s, 2/2 in the lobby %.0f ms after the joiner "
        "started; %d frames identical; room gone %.0f ms after the host exited (TTL %d s)\n",
        code.c_str(), assigned.c_str(), *full_after_ms, kFrames, gone_ms, room_ttl_s());
}

TEST_CASE("lobby: the room of a killed host expires, and joining errors name the code",
          "[integration][lobby][netplay]") {
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    Session session("lobby-expiry");
    const LobbyProcess lobby(session, "lobby");
    start_relay(session, "relay", lobby, 60s);
    wait_for_servers(lobby, 1);

    ChildProcess& host =
        session.start("host", player_args(session, "host", core, 93, 0,
                                          {"host", "--lobby", lobby.url, "--public", "--players",
                                           "2", "--password", "secret"}));
    const std::string code = wait_for_code(session, "host", host);
    REQUIRE(lobby.room_listed(code));

    const auto join_error = [&](const std::string& name, std::vector<std::string> lobby_args) {
        const auto result =
            run_process(player_args(session, name, core, 94, 10, std::move(lobby_args)), 30s);
        CHECK(result.exit_code != 0);
        return result.err;
    };
    CHECK_THAT(join_error("wrong", {"join", "--lobby", lobby.url, code, "--password", "nope"}),
               Catch::Contains("wrong password for room " + code));
    CHECK_THAT(join_error("unknown", {"join", "--lobby", lobby.url, "ZZZZZZ"}),
               Catch::Contains("has no room ZZZZZZ"));
    CHECK_THAT(join_error("down", {"join", "--lobby", "http://127.0.0.1:1", code}),
               Catch::Contains("cannot reach the lobby at http://127.0.0.1:1"));

    // No goodbye: the room stays listed until its TTL runs out without heartbeats.
    host.send_signal(SIGKILL);
    REQUIRE(host.wait_until(ready_deadline()));
    const auto killed_at = SteadyTime::now();
    REQUIRE(lobby.room_listed(code));
    // Its expiry by the lobby's clock: the TTL after the last heartbeat it got. The wait for
    // the lobby to drop it is generous (an answer, not a time); when it does, that moment
    // has passed by the same wall clock: not gone before its TTL ran out.
    const auto [status, room] = lobby.get("/api/rooms/" + code);
    REQUIRE(status == 200);
    const auto expires_ms = room["expires_ms"].get<std::int64_t>();
    CHECK(expires_ms - room["updated_ms"].get<std::int64_t>() == room_ttl_s() * 1000);
    while (lobby.room_listed(code)) {
        REQUIRE(SteadyTime::now() < killed_at + std::chrono::seconds(room_ttl_s()) + kReadyLimit);
        std::this_thread::sleep_for(50ms);
    }
    const auto gone_wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
    CHECK(gone_wall_ms >= expires_ms);
    const double expired_ms =
        std::chrono::duration<double, std::milli>(SteadyTime::now() - killed_at).count();
    std::printf(
        "[figure] lobby expiry: a SIGKILLed host's room gone %.0f ms after the kill "
        "(TTL %d s, heartbeat every %d ms)\n",
        expired_ms, room_ttl_s(), room_ttl_s() * 1000 / 3);
}

TEST_CASE("lobby: relays and rooms warn while the lobby is down and come back after its restart",
          "[integration][lobby]") {
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    Session session("lobby-restart");
    const LobbyProcess first(session, "lobby");
    ChildProcess* relay = nullptr;
    const int relay_port = start_relay(session, "relay", first, 60s, &relay);
    wait_for_servers(first, 1);
    ChildProcess& host = session.start(
        "host", player_args(session, "host", core, 95, 0,
                            {"host", "--lobby", first.url, "--public", "--players", "2"}));
    const std::string code = wait_for_code(session, "host", host);

    // Down for several heartbeats (three and a half): one warning, not one per beat. What
    // the relay and the host log from here on is read on its own (a busy machine's relay may
    // have missed a beat and been reachable again before).
    const std::size_t relay_log_at_stop = session.log_size("relay");
    const std::size_t host_log_at_stop = session.log_size("host");
    first.process->send_signal(SIGTERM);
    REQUIRE(first.process->wait_until(ready_deadline()));
    const auto downtime = std::chrono::milliseconds(room_ttl_s() * 1000 * 7 / 6);
    std::this_thread::sleep_for(downtime);

    // A new lobby on the same port with an empty store: the relay's heartbeat gets a 404
    // and registers again, at the address it had.
    const auto restarted_at = SteadyTime::now();
    const LobbyProcess second(session, "lobby2", "127.0.0.1:" + std::to_string(first.port));
    REQUIRE(second.port == first.port);
    wait_for_servers(second, 1);
    const double back_ms =
        std::chrono::duration<double, std::milli>(SteadyTime::now() - restarted_at).count();
    const auto [status, body] = second.get("/api/servers");
    REQUIRE(status == 200);
    CHECK(body["servers"][0]["address"] == "127.0.0.1:" + std::to_string(relay_port));
    // The lobby lists the relay as soon as it registers; the relay says so once it has the
    // answer, a moment later.
    session.wait_for_log("relay", "reachable again", *relay, ready_deadline(), relay_log_at_stop);
    const std::string log = read_text(session.dir().file("relay.log"));
    INFO(log);
    CHECK(log.find("expired there; registering again", relay_log_at_stop) != std::string::npos);
    std::size_t warnings = 0;
    for (std::size_t at = log.find("[warn] lobby:", relay_log_at_stop); at != std::string::npos;
         at = log.find("[warn] lobby:", at + 1))
        ++warnings;
    CHECK(warnings == 1);

    // The host's room had gone with the old store: listed again under a new code, on the
    // same relay its player is on.
    session.wait_for_log("host", "listed again as ", host, ready_deadline(), host_log_at_stop);
    const std::string host_log = read_text(session.dir().file("host.log"));
    const auto last = host_log.rfind("room code ") + 10;
    const std::string new_code = host_log.substr(last, host_log.find('\n', last) - last);
    CHECK(new_code != code);
    const double relisted_ms =
        std::chrono::duration<double, std::milli>(SteadyTime::now() - restarted_at).count();
    const auto [room_status, room] = second.get("/api/rooms/" + new_code);
    REQUIRE(room_status == 200);
    CHECK(room["server_address"] == "127.0.0.1:" + std::to_string(relay_port));
    CHECK(room["players"] == 1);
    std::printf(
        "[figure] lobby restart: relay registered again %.0f ms and the room listed "
        "again (%s -> %s) %.0f ms after the new lobby started; %zu relay warning "
        "line(s) for %.1f s of downtime\n",
        back_ms, code.c_str(), new_code.c_str(), relisted_ms, warnings,
        std::chrono::duration<double>(downtime).count());
}
