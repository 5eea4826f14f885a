// Lobby pieces for end-to-end tests with real processes: a `framelock lobby serve` with a
// SQLite store, `framelock server --lobby` relays, and the command lines of players who
// host or join through it. Used by the lobby end-to-end tests and the fault tests.
#pragma once

#include <catch2/catch.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "integration/netplay_session.h"
#include "support/build_paths.h"
#include "support/lobby_pace.h"

namespace framelock::test {

// The rooms' TTL the lobbies here run with, in seconds: a room without a heartbeat for this
// long expires, and hosts and relays beat every third of it. Short, so that expiry tests are
// quick: 3 s. But a room with a password is stored only once the lobby's nice-10 password
// thread has hashed it, with its TTL counted from the request, and on a busy machine that
// took 1.3-1.9 s: the room had expired before its host's first heartbeat. So it is at least
// six times the lobby's password work as this machine measures it now (support/lobby_pace.h;
// measured once per test process).
inline int room_ttl_s() {
    static const int ttl = std::max(3, static_cast<int>(std::ceil(6 * lobby_password_work_s())));
    return ttl;
}

// The operator's relay key of a session's lobbies and relays, in a file of the session's
// directory (the same for every lobby of the session: a relay registers again with a lobby
// restarted on its port). Its path.
inline std::string relay_key_file(Session& session) {
    const std::string path = session.dir().file("relay.key");
    std::ofstream(path) << "end-to-end-relay-key\n";
    return path;
}

// A lobby with a short TTL, its port read from the "listening PORT" it prints.
struct LobbyProcess {
    int port = 0;
    std::string url;
    std::string db;        // the SQLite file
    std::string key_file;  // the relay key (relay_key_file())
    ChildProcess* process = nullptr;

    // `listen`: HOST:PORT, port 0 for any free one. `db_name`: the store's file in the
    // session's directory (NAME.db when empty); the same name again reopens that store.
    LobbyProcess(Session& session, const std::string& name,
                 const std::string& listen = "127.0.0.1:0", const std::string& db_name = {}) {
        db = session.dir().file(db_name.empty() ? name + ".db" : db_name);
        key_file = relay_key_file(session);
        ChildProcess& lobby =
            session.start(name,
                          {build_paths::framelock_exe, "lobby", "serve", "--listen", listen, "--db",
                           "sqlite:" + db, "--room-ttl", std::to_string(room_ttl_s()), "--quiet",
                           "--relay-key-file", key_file},
                          true);
        const Deadline deadline = ready_deadline();
        while (port == 0) {
            const std::string text = read_text(session.dir().file(name + ".log"));
            if (auto at = text.find("listening ");
                at != std::string::npos && text.find('\n', at) != std::string::npos)
                port = std::stoi(text.substr(at + 10));
            INFO(read_text(session.dir().file(name + ".err")));
            REQUIRE(lobby.running());
            REQUIRE(SteadyTime::now() < deadline);
            std::this_thread::sleep_for(10ms);
        }
        url = "http://127.0.0.1:" + std::to_string(port);
        process = &lobby;
    }

    // GET PATH: the JSON body and the status (0: no answer within kReadyLimit; a sanitized
    // lobby on a busy machine may take seconds).
    std::pair<int, nlohmann::json> get(const std::string& path) const {
        httplib::Client client("127.0.0.1", port);
        client.set_connection_timeout(kReadyLimit);
        client.set_read_timeout(kReadyLimit);
        auto res = client.Get(path);
        if (!res) return {0, nlohmann::json()};
        return {res->status, nlohmann::json::parse(res->body, nullptr, false)};
    }

    bool room_listed(const std::string& code) const {
        const auto [status, body] = get("/api/rooms");
        REQUIRE(status == 200);
        for (const auto& room : body["rooms"]) {
            if (room["code"] == code) return true;
        }
        return false;
    }
};

// `framelock server --lobby` with one session; its port (and its process in `process`).
inline int start_relay(Session& session, const std::string& name, const LobbyProcess& lobby,
                       std::chrono::milliseconds limit, ChildProcess** process = nullptr) {
    const std::string port_file = session.dir().file(name + ".port");
    ChildProcess& server =
        session.start(name, {build_paths::framelock_exe, "server", "--bind", "127.0.0.1", "--port",
                             "0", "--players", "2", "--port-file", port_file, "--lobby", lobby.url,
                             "--relay-key-file", lobby.key_file, "--region", "test", "--duration",
                             std::to_string(limit.count() / 1000)});
    auto port = framelock::wait_for_port_file(port_file, server, ready_deadline());
    if (!port) FAIL(port.error().message << session.log_of(name));
    if (process != nullptr) *process = &server;
    return port.value();
}

// A player's command line: `verb` ("host" or "join") and its lobby arguments first, then
// `extra` (any other flags).
inline std::vector<std::string> player_args(const Session& session, const std::string& name,
                                            const CoreCase& core, std::uint64_t seed, int frames,
                                            std::vector<std::string> lobby_args,
                                            const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {build_paths::framelock_exe};
    args.insert(args.end(), lobby_args.begin(), lobby_args.end());
    for (const std::string& a :
         {std::string("--core"), core.core, std::string("--ports"), std::string("2"),
          std::string("--video"), std::string("none"), std::string("--audio"), std::string("none"),
          std::string("--name"), name, std::string("--random"), std::to_string(seed),
          std::string("--hash-log"), session.hashes(name)})
        args.push_back(a);
    if (frames > 0) {
        args.push_back("--frames");
        args.push_back(std::to_string(frames));
    }
    if (!core.content.empty()) {
        args.push_back("--content");
        args.push_back(core.content);
    }
    args.insert(args.end(), core.extra.begin(), core.extra.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

// The code from the host's "room code CODE" line.
inline std::string wait_for_code(Session& session, const std::string& name, ChildProcess& host) {
    session.wait_for_log(name, "room code ", host, ready_deadline());
    const std::string log = read_text(session.dir().file(name + ".log"));
    const auto at = log.find("room code ") + 10;
    return log.substr(at, log.find('\n', at) - at);
}

inline void wait_for_servers(const LobbyProcess& lobby, std::size_t count) {
    const Deadline deadline = ready_deadline();
    for (;;) {
        const auto [status, body] = lobby.get("/api/servers");
        if (status == 200 && body["servers"].size() == count) return;
        REQUIRE(SteadyTime::now() < deadline);
        std::this_thread::sleep_for(50ms);
    }
}

}  // namespace framelock::test
