// The NAT lab's services and players for end-to-end tests in it (tests/support/nat_lab.h):
// a lobby and relays in its "internet", players' command lines, and waiting on the lab's
// processes. Used by the NAT lab tests and the server key test.
#pragma once

#include <catch2/catch.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "integration/lobby_session.h"
#include "support/nat_lab.h"
#include "support/skip.h"

namespace framelock::test {

inline void require_lab() {
    if (const auto why = NatLab::unavailable()) FRAMELOCK_SKIP_BECAUSE("NAT lab: " + *why);
}

// The lab and the bundled two-player arcade core, or a skip saying why not.
inline CoreCase lab_core() {
    require_lab();
    CoreCase core = two_player_arcade();
    require_core_case(core);
    return core;
}

// GET http://ADDRESS:PORT/PATH from inside `ns`: status (0: no answer within kReadyLimit)
// and JSON body.
inline std::pair<int, nlohmann::json> get_in(const NatLab& lab, const std::string& ns,
                                             const std::string& address, int port,
                                             const std::string& path) {
    std::pair<int, nlohmann::json> answer{0, nlohmann::json()};
    lab.run_in(ns, [&] {
        httplib::Client client(address, port);
        client.set_connection_timeout(kReadyLimit);
        client.set_read_timeout(kReadyLimit);
        if (auto res = client.Get(path))
            answer = {res->status, nlohmann::json::parse(res->body, nullptr, false)};
    });
    return answer;
}

// Waits until `text` is in NAME.log of the lab's process `child`; the log.
inline std::string wait_for_lab_log(NatLab& lab, const std::string& name, const std::string& text,
                                    framelock::ChildProcess& child, std::chrono::milliseconds limit,
                                    const std::string& also_show = "") {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        const std::string log = read_text(lab.file(name + ".log"));
        if (log.find(text) != std::string::npos) return log;
        INFO("waiting for '" << text << "'" << lab.log_of(name)
                             << (also_show.empty() ? std::string() : lab.log_of(also_show)));
        REQUIRE(child.running());
        REQUIRE(std::chrono::steady_clock::now() < deadline);
        std::this_thread::sleep_for(20ms);
    }
}

// Waits for the lab's process NAME to end by `deadline`; requires a clean exit.
inline void require_lab_success(NatLab& lab, framelock::ChildProcess& child,
                                const std::string& name,
                                framelock::ChildProcess::Deadline deadline) {
    const auto status = child.wait_until(deadline);
    INFO(name << (status ? " " + status->describe() : " timed out") << lab.log_of(name));
    REQUIRE(status);
    REQUIRE(status->success());
}

// The lab's services in inet: a lobby and `relay_count` relay sessions registered with it.
struct Internet {
    static constexpr int kLobbyPort = 8470;
    static constexpr int kRelayPort = 7000;
    std::string url =
        std::string("http://") + NatLab::kLobbyAddress + ":" + std::to_string(kLobbyPort);
    std::vector<framelock::ChildProcess*> relays;

    Internet(NatLab& lab, int relay_count, std::chrono::milliseconds limit) {
        const std::string key_file = lab.file("relay.key");
        std::ofstream(key_file) << "nat-lab-relay-key-0\n";
        framelock::ChildProcess& lobby =
            lab.spawn(lab.inet(), "lobby",
                      {build_paths::framelock_exe, "lobby", "serve", "--listen",
                       std::string(NatLab::kLobbyAddress) + ":" + std::to_string(kLobbyPort),
                       "--db", "sqlite:" + lab.file("lobby.db"), "--room-ttl",
                       std::to_string(room_ttl_s()), "--quiet", "--relay-key-file", key_file});
        wait_for_lab_log(lab, "lobby", "listening ", lobby, kReadyLimit);
        for (int k = 0; k < relay_count; ++k) {
            const std::string name = "relay" + std::to_string(k);
            relays.push_back(&lab.spawn(
                lab.inet(), name,
                {build_paths::framelock_exe, "server", "--bind", NatLab::relay_address(k), "--port",
                 std::to_string(kRelayPort), "--players", "2", "--lobby", url, "--relay-key-file",
                 key_file, "--public-host", NatLab::relay_address(k), "--region", "lab",
                 "--duration", std::to_string(limit.count() / 1000)}));
        }
        const auto deadline = ready_deadline();
        for (;;) {
            const auto [status, body] =
                get_in(lab, lab.inet(), NatLab::kLobbyAddress, kLobbyPort, "/api/servers");
            if (status == 200 && body["servers"].size() == static_cast<std::size_t>(relay_count))
                break;
            INFO(lab.log_of("lobby") << lab.log_of("relay0"));
            REQUIRE(std::chrono::steady_clock::now() < deadline);
            std::this_thread::sleep_for(50ms);
        }
    }
};

// A player's command line in the lab, in one place.
inline std::vector<std::string> lab_player(const Session& session, const std::string& name,
                                           const CoreCase& core, std::uint64_t seed, int frames,
                                           std::vector<std::string> verb_args) {
    return player_args(session, name, core, seed, frames, std::move(verb_args));
}

// The code from the host's "room code CODE" line, once it is there.
inline std::string wait_for_room_code(NatLab& lab, const std::string& name,
                                      framelock::ChildProcess& host) {
    const std::string log = wait_for_lab_log(lab, name, "room code ", host, kReadyLimit);
    const auto at = log.find("room code ") + 10;
    const std::string code = log.substr(at, log.find('\n', at) - at);
    REQUIRE(code.size() == 6);
    return code;
}

}  // namespace framelock::test
