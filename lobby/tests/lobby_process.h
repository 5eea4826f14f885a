// `framelock lobby serve` (or framelock-lobby) as a real process on 127.0.0.1 for the
// lobby's HTTP tests: started with a store and options, its port read from the "listening
// PORT" line it prints, clients that wait for its answers, and a room created through them.
#pragma once

#include <catch2/catch.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.h"
#include "support/build_paths.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace framelock::test {

struct ServedLobby {
    ChildProcess process;
    std::string log;
    int port = 0;

    static ServedLobby start(const TempDir& dir, const std::string& name, const std::string& db,
                             std::vector<std::string> extra = {}) {
        return start_command({build_paths::framelock_exe, "lobby", "serve"}, dir, name, db,
                             std::move(extra));
    }
    // `command`: `framelock lobby serve`, or `framelock-lobby`.
    static ServedLobby start_command(std::vector<std::string> args, const TempDir& dir,
                                     const std::string& name, const std::string& db,
                                     std::vector<std::string> extra = {}) {
        args.insert(args.end(), {"--listen", "127.0.0.1:0", "--db", db});
        args.insert(args.end(), extra.begin(), extra.end());
        const std::string out = dir.file(name + ".out"), log = dir.file(name + ".log");
        auto child = ChildProcess::spawn(args, out, log);
        REQUIRE(child);
        ServedLobby lobby{std::move(child).value(), log, 0};
        const auto deadline = ready_deadline();
        while (lobby.port == 0) {
            const std::string text = read_text(out);
            if (auto at = text.find("listening ");
                at != std::string::npos && text.find('\n', at) != std::string::npos)
                lobby.port = std::stoi(text.substr(at + 10));
            INFO(read_text(log));
            REQUIRE(lobby.process.running());
            REQUIRE(std::chrono::steady_clock::now() < deadline);
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return lobby;
    }
    // A client that waits up to kReadyLimit for an answer: a sanitized lobby on a busy
    // machine, checking a password, may take seconds.
    httplib::Client client() const {
        httplib::Client c("127.0.0.1", port);
        c.set_connection_timeout(kReadyLimit);
        c.set_read_timeout(kReadyLimit);
        return c;
    }
};

// A room created over HTTP: its id, join code and host token.
struct CreatedRoom {
    std::string id, code, token;
};

// POST /api/rooms with `body`, which must be answered 201.
inline CreatedRoom create_room(httplib::Client& c, const nlohmann::json& body) {
    auto res = c.Post("/api/rooms", body.dump(), "application/json");
    REQUIRE(res);
    INFO(res->body);
    REQUIRE(res->status == 201);
    const nlohmann::json j = nlohmann::json::parse(res->body);
    return {j["room"]["id"], j["room"]["code"], j["token"]};
}

}  // namespace framelock::test
