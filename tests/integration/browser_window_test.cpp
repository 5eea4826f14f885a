// `framelock browse` under a private Xvfb: a real lobby with two rooms, the browser's
// window listing them, Down + Enter pressed through X (xdotool), and the browser asking the
// lobby to join the second room and playing its session in the same window.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.h"
#include "integration/cores.h"
#include "support/build_paths.h"
#include "support/process.h"
#include "support/test_server_keys.h"
#include "support/xvfb.h"

using namespace framelock::test;
using framelock::ChildProcess;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

// The codes of the last "rooms: A B" line the browser logged, in the order shown.
std::vector<std::string> logged_rooms(const std::string& log) {
    const auto at = log.rfind("rooms:");
    if (at == std::string::npos) return {};
    const auto end = log.find('\n', at);
    if (end == std::string::npos) return {};
    std::istringstream words(log.substr(at + 6, end - at - 6));
    std::vector<std::string> codes;
    for (std::string code; words >> code;) codes.push_back(code);
    return codes;
}

// `framelock lobby serve` on a free port; the port from its "listening PORT" line.
int start_lobby(const TempDir& dir, std::optional<ChildProcess>& lobby) {
    auto child =
        ChildProcess::spawn({build_paths::framelock_exe, "lobby", "serve", "--listen",
                             "127.0.0.1:0", "--db", "sqlite:" + dir.file("lobby.db"), "--quiet"},
                            dir.file("lobby.out"), dir.file("lobby.err"));
    REQUIRE(child.ok());
    lobby.emplace(std::move(child).value());
    int port = 0;
    REQUIRE(poll_until(
        [&] {
            const std::string out = read_text(dir.file("lobby.out"));
            const auto at = out.find("listening ");
            if (at == std::string::npos || out.find('\n', at) == std::string::npos) return false;
            port = std::stoi(out.substr(at + 10));
            return true;
        },
        kReadyLimit));
    return port;
}

}  // namespace

TEST_CASE("Browse: the lobby's rooms in the window, Down + Enter joins the second",
          "[integration][window][browser]") {
    FRAMELOCK_SKIP_UNLESS_XVFB();
    FRAMELOCK_SKIP_UNLESS_XDOTOOL();
    const CoreCase c = core_case("arcade");
    require_core_case(c);
    Xvfb xvfb;
    TempDir dir("browse");
    write_text(dir.file("framelock.toml"), "");

    std::optional<ChildProcess> lobby;
    const int port = start_lobby(dir, lobby);

    // Two rooms, each with a real one-player session server behind it: whichever the
    // browser lists second is played, in the browser's window, to the end.
    std::vector<ChildProcess> servers;
    std::vector<std::string> server_addresses;
    std::map<std::string, std::string> key_of;  // address -> the server's key
    for (int i = 0; i < 2; ++i) {
        const std::string port_file = dir.file("server" + std::to_string(i) + ".port");
        auto server =
            ChildProcess::spawn({build_paths::framelock_exe, "server", "--port", "0", "--port-file",
                                 port_file, "--players", "1", "--mode", "framelock"},
                                dir.file("server" + std::to_string(i) + ".log"),
                                dir.file("server" + std::to_string(i) + ".log"));
        REQUIRE(server.ok());
        auto bound = framelock::wait_for_port_file(port_file, server.value(), ready_deadline());
        REQUIRE(bound.ok());
        server_addresses.push_back("127.0.0.1:" + std::to_string(bound.value()));
        key_of[server_addresses.back()] =
            server_key_in_log(dir.file("server" + std::to_string(i) + ".log"));
        REQUIRE(!key_of[server_addresses.back()].empty());
        servers.push_back(std::move(server).value());
    }
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(5, 0);
    std::map<std::string, std::string> address_of;
    for (const auto& [game, server] : {std::pair{std::string("Arcade One"), server_addresses[0]},
                                       std::pair{std::string("Arcade Two"), server_addresses[1]}}) {
        const json body{{"host_name", "alice"},
                        {"game_name", game},
                        {"content_hash", "0123456789abcdef"},
                        {"core_name", "framelock arcade"},
                        {"core_version", "1"},
                        {"mode", "framelock"},
                        {"slots", 2},
                        {"players", 1},
                        {"server_address", server},
                        {"server_key", key_of[server]}};
        auto created = client.Post("/api/rooms", body.dump(), "application/json");
        REQUIRE(created);
        INFO(created->body);
        REQUIRE(created->status == 201);
        address_of[json::parse(created->body)["room"]["code"].get<std::string>()] = server;
    }

    const std::string log = dir.file("browse.log");
    auto browse = ChildProcess::spawn(
        {build_paths::framelock_exe, "browse", "--lobby",
         "http://127.0.0.1:" + std::to_string(port), "--core", c.core, "--video", "sdl", "--audio",
         "none", "--config", dir.file("framelock.toml"), "--frames", "120", "--random", "5"},
        log, log);
    REQUIRE(browse.ok());
    ChildProcess& framelock = browse.value();

    // Both rooms listed (the browser logs what it shows whenever the list changes).
    std::vector<std::string> shown;
    const bool listed = poll_until(
        [&] {
            shown = logged_rooms(read_text(log));
            return shown.size() == 2 || !framelock.running();
        },
        kReadyLimit);
    INFO(read_text(log));
    REQUIRE(listed);
    REQUIRE(framelock.running());
    REQUIRE(shown.size() == 2);
    CHECK(address_of.count(shown[0]) == 1);
    CHECK(address_of.count(shown[1]) == 1);

    const std::string id = xdotool({"search", "--name", "^framelock - rooms"});
    REQUIRE_FALSE(id.empty());
    xdotool({"windowfocus", "--sync", id.substr(0, id.find('\n'))});
    xdotool({"key", "Down"});
    xdotool({"key", "Return"});

    // The second room chosen, the lobby asked, its server's address taken.
    const std::string expected = "joining " + shown[1] + " at " + address_of[shown[1]];
    const bool joined =
        poll_until([&] { return read_text(log).find(expected) != std::string::npos; }, kReadyLimit);
    INFO(read_text(log));
    CHECK(joined);
    CHECK(read_text(log).find("joining " + shown[0]) == std::string::npos);
    // ... and the session played in the same window to its end.
    const auto ended = framelock.wait_until(std::chrono::steady_clock::now() + 60s);
    INFO(read_text(log));
    REQUIRE(ended);
    CHECK(ended->success());
    CHECK_THAT(read_text(log), Catch::Contains("frames     120"));
    // The ChildProcess destructors stop the lobby and the servers.
}

TEST_CASE("Browse: a locked room asks for its password, typed through X",
          "[integration][window][browser]") {
    FRAMELOCK_SKIP_UNLESS_XVFB();
    FRAMELOCK_SKIP_UNLESS_XDOTOOL();
    const CoreCase c = core_case("arcade");
    require_core_case(c);
    Xvfb xvfb;
    TempDir dir("browse-password");
    write_text(dir.file("framelock.toml"), "");
    std::optional<ChildProcess> lobby;
    const int port = start_lobby(dir, lobby);
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(5, 0);
    const json body{{"host_name", "carol"},
                    {"game_name", "Locked"},
                    {"content_hash", "0123456789abcdef"},
                    {"core_name", "framelock arcade"},
                    {"core_version", "1"},
                    {"mode", "framelock"},
                    {"slots", 2},
                    {"players", 1},
                    {"server_address", "127.0.0.1:7199"},
                    {"server_key", kHostServerKey},
                    {"password", "secret"}};
    auto created = client.Post("/api/rooms", body.dump(), "application/json");
    REQUIRE(created);
    REQUIRE(created->status == 201);
    const std::string code = json::parse(created->body)["room"]["code"];

    const std::string log = dir.file("browse.log");
    auto browse = ChildProcess::spawn(
        {build_paths::framelock_exe, "browse", "--lobby",
         "http://127.0.0.1:" + std::to_string(port), "--core", c.core, "--video", "sdl", "--audio",
         "none", "--config", dir.file("framelock.toml")},
        log, log);
    REQUIRE(browse.ok());
    REQUIRE(poll_until([&] { return read_text(log).find("rooms: " + code) != std::string::npos; },
                       kReadyLimit));
    const std::string id = xdotool({"search", "--name", "^framelock - rooms"});
    REQUIRE_FALSE(id.empty());
    xdotool({"windowfocus", "--sync", id.substr(0, id.find('\n'))});

    // Opens the password prompt (Return), waits until the browser has turned its text input
    // on (it logs so; typed keys then go into the password, not the list's commands), types
    // with `type` and submits; then waits for the browser to log `answer`, or that its
    // request failed. The lobby checks passwords on a nice-10 thread: on a busy machine a
    // check outlasts the browser's 2 s request, the browser says so and stays, and the
    // password is given again, as a player would, up to three times. True once `answer` came.
    const std::string asking = "room " + code + ": asking for its password";
    const auto submit = [&](const std::function<void()>& type, const std::string& answer) {
        for (int attempt = 1; attempt <= 3; ++attempt) {
            const std::size_t from = read_text(log).size();
            xdotool({"key", "Return"});
            REQUIRE(
                poll_until([&] { return read_text(log).find(asking, from) != std::string::npos; },
                           kReadyLimit));
            type();
            xdotool({"key", "Return"});
            bool answered = false;
            REQUIRE(poll_until(
                [&] {
                    const std::string text = read_text(log);
                    answered = text.find(answer, from) != std::string::npos;
                    return answered ||
                           text.find("cannot reach the lobby", from) != std::string::npos;
                },
                kReadyLimit));
            if (answered) return true;
            std::printf(
                "Browse: the lobby did not answer the password within the browser's "
                "request (attempt %d)\n",
                attempt);
        }
        return false;
    };
    // A wrong password: the lobby refuses, the browser says so and stays.
    CHECK(submit([] { xdotool({"type", "--delay", "30", "wrong"}); }, "wrong password"));
    CHECK(browse.value().running());
    // The right one (Backspace fixes a typo on the way): the browser joins.
    const bool joined = submit(
        [] {
            xdotool({"type", "--delay", "30", "secrex"});
            xdotool({"key", "BackSpace"});
            xdotool({"type", "--delay", "30", "t"});
        },
        "joining " + code + " at 127.0.0.1:7199");
    INFO(read_text(log));
    CHECK(joined);
}

TEST_CASE("Browse: a lobby that never answers, Esc still quits, cleanly and soon",
          "[integration][window][browser]") {
    FRAMELOCK_SKIP_UNLESS_XVFB();
    FRAMELOCK_SKIP_UNLESS_XDOTOOL();
    const CoreCase c = core_case("arcade");
    require_core_case(c);
    Xvfb xvfb;
    TempDir dir("browse-silent");
    write_text(dir.file("framelock.toml"), "");
    // A socket that listens but never accepts: connections complete (the kernel's backlog),
    // requests go unanswered until the browser's timeout.
    const int silent = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(silent >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(silent, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(silent, 16) == 0);
    socklen_t len = sizeof addr;
    REQUIRE(::getsockname(silent, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    const int port = ntohs(addr.sin_port);

    const std::string log = dir.file("browse.log");
    auto browse = ChildProcess::spawn(
        {build_paths::framelock_exe, "browse", "--lobby",
         "http://127.0.0.1:" + std::to_string(port), "--core", c.core, "--video", "sdl", "--audio",
         "none", "--config", dir.file("framelock.toml")},
        log, log);
    REQUIRE(browse.ok());
    std::string id;
    REQUIRE(poll_until(
        [&] {
            id = xdotool({"search", "--name", "^framelock - rooms"});
            return !id.empty();
        },
        kReadyLimit));
    xdotool({"windowfocus", "--sync", id.substr(0, id.find('\n'))});
    const auto esc = std::chrono::steady_clock::now();
    xdotool({"key", "Escape"});
    // The fetch under way is cut short (its request stopped), not waited out: before, the
    // quit waited for the relay list's 3 s timeout, then the room list's 2 s, and a loaded
    // sanitizer run once took longer than these 6 s.
    const auto ended = browse.value().wait_until(esc + 6s);
    const auto quit_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - esc);
    ::close(silent);
    INFO(read_text(log));
    REQUIRE(ended);
    std::printf("[figure] browse: Esc to exit with a silent lobby: %lld ms\n",
                static_cast<long long>(quit_ms.count()));
    CHECK(ended->success());
    CHECK(read_text(log).find("rooms:") == std::string::npos);
}
