// Text in the lobby is safe text (netplay/base/safe_text.h): the API refuses a room whose
// names hold controls, bidi overrides or invisible format characters, naming the character; a
// room that got into the store anyway (JSON itself carries well-formed UTF-8 only) (an older lobby
// took C1 controls and bidi overrides) comes out of the API escaped; and `framelock lobby list`, a
// real process, prints a room's text escaped byte for byte, from this lobby or from a hostile one
// that sends raw controls.
#include <catch2/catch.hpp>

#include <fmt/core.h>
#include <httplib.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "common/child_process.h"
#include "lobby/tests/api_test_support.h"
#include "support/build_paths.h"
#include "support/process.h"
#include "support/temp_dir.h"

using namespace lobby_api_test;
using namespace std::chrono_literals;

namespace {

// The hostile room: a game name that clears the screen and reverses what follows, a host name
// with a C1 CSI (a terminal's ESC [), a core version with a new line.
constexpr const char* kGame =
    "Evil\x1b[2J\xe2\x80\xae"
    "game";
constexpr const char* kHost =
    "\xc2\x9b"
    "31mroot";
constexpr const char* kCoreVersion = "1.0\n2";
// The same, as safe text.
constexpr const char* kGameShown = "Evil\\x1b[2J\\u202egame";
constexpr const char* kHostShown = "\\u009b31mroot";
constexpr const char* kCoreShown = "fbneo 1.0\\x0a2";

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// `framelock lobby list` as the table prints a room with these fields and no expected delay.
// `check`: the core atlas's word the lobby gave ("unknown" for fbneo, which it did not
// measure; "-" from a lobby that gave none).
std::string list_row(const std::string& code, const std::string& game, const std::string& host,
                     const std::string& core, const std::string& address,
                     const std::string& check = "unknown") {
    return fmt::format(
        "{:<6}  {:<24}  {:<16}  {:>3}/{:<3}  {:>5}  {:<9}  {:<20}  {:<7}  {:<16}  {}\n", code, game,
        host, 1, 2, 0, "framelock", core, check, "-", address);
}

// Nothing a terminal acts on: no control but the new line, no byte past ASCII.
bool plain_ascii(const std::string& text) {
    for (char c : text) {
        const auto b = static_cast<unsigned char>(c);
        if ((b < 0x20 && b != '\n') || b >= 0x7f) return false;
    }
    return true;
}

framelock::test::ProcessResult lobby_list(int port, bool json = false) {
    std::vector<std::string> args = {
        framelock::test::build_paths::framelock_exe, "lobby",     "list", "--lobby",
        "http://127.0.0.1:" + std::to_string(port),  "--no-probe"};
    if (json) args.push_back("--json");
    return framelock::test::run_process(args, 60s);
}

}  // namespace

TEST_CASE(
    "lobby text: a room whose names hold controls, bidi overrides or invisible characters "
    "is refused, naming the character",
    "[lobby][api][hostile]") {
    SqliteLobby lobby;
    LobbyApi api(*lobby.store, ApiConfig{});
    Client c{api};
    struct Case {
        const char* field;
        std::string value;
        const char* named;
    };
    const Case cases[] = {
        {"host_name",
         "\xe2\x80\xae"
         "nimda",
         "\"host_name\" holds U+202E (a bidi control"},
        {"host_name", kHost, "\"host_name\" holds U+009B (a control character) at byte 0"},
        {"game_name", kGame, "\"game_name\" holds U+001B (a control character) at byte 4"},
        {"game_name", "in\xe2\x81\xa6visible", "\"game_name\" holds U+2066 (a bidi control"},
        {"game_name", "zero\xe2\x80\x8bwidth", "\"game_name\" holds U+200B (an invisible format"},
    };
    for (const Case& bad : cases) {
        json body = room_body("Star Lanes");
        body[bad.field] = bad.value;
        const ApiResponse res = c.call("POST", "/api/rooms", body);
        INFO(bad.field << ": " << res.status << " " << res.body);
        CHECK(res.status == 400);
        CHECK_THAT(json::parse(res.body).value("error", ""), Catch::Contains(bad.named));
    }
    // Honest names in any script pass as they are.
    json body = room_body("ストリートファイター");
    body["host_name"] = "Zoë 👩‍👧 مرحبا";
    const json made = c.ok("POST", "/api/rooms", body);
    CHECK(made["room"]["game_name"] == "ストリートファイター");
    CHECK(made["room"]["host_name"] == "Zoë 👩‍👧 مرحبا");
}

TEST_CASE(
    "lobby text: a stored room's controls and bidi overrides reach `framelock lobby list` "
    "escaped, byte for byte",
    "[lobby][hostile]") {
    framelock::test::TempDir dir("lobby-text");
    const std::string db = "sqlite:" + dir.file("lobby.db");
    {
        // A row an older lobby let in.
        auto store = migrated_store(db);
        const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
        StoredRoom stored;
        Room& room = stored.room;
        room.id = std::string(32, 'a');
        room.code = "HST1LE";
        room.host_name = kHost;
        room.game_name = kGame;
        room.content_hash = "0123456789abcdef";
        room.core_name = "fbneo";
        room.core_version = kCoreVersion;
        room.mode = "framelock";
        room.players = 1;
        room.server_address = "203.0.113.7:7845";
        room.created_ms = room.updated_ms = now;
        room.expires_ms = now + 3'600'000;
        stored.token_hash = std::string(64, 'b');
        REQUIRE(store->create_room(stored));
    }
    auto child =
        framelock::ChildProcess::spawn({framelock::test::build_paths::framelock_exe, "lobby",
                                        "serve", "--listen", "127.0.0.1:0", "--db", db},
                                       dir.file("lobby.out"), dir.file("lobby.log"));
    REQUIRE(child);
    int port = 0;
    const auto deadline = framelock::test::ready_deadline();
    while (port == 0) {
        const std::string text = slurp(dir.file("lobby.out"));
        if (auto at = text.find("listening ");
            at != std::string::npos && text.find('\n', at) != std::string::npos)
            port = std::stoi(text.substr(at + 10));
        INFO(slurp(dir.file("lobby.log")));
        REQUIRE(child.value().running());
        REQUIRE(std::chrono::steady_clock::now() < deadline);
        std::this_thread::sleep_for(10ms);
    }
    const auto list = lobby_list(port);
    INFO(list.err);
    REQUIRE(list.exit_code == 0);
    CHECK(list.out.find(list_row("HST1LE", kGameShown, kHostShown, kCoreShown,
                                 "203.0.113.7:7845")) != std::string::npos);
    CHECK(plain_ascii(list.out));
    const auto as_json = lobby_list(port, true);
    REQUIRE(as_json.exit_code == 0);
    CHECK(plain_ascii(as_json.out));
    const json rooms = json::parse(as_json.out)["rooms"];
    REQUIRE(rooms.size() == 1);
    CHECK(rooms[0]["game_name"] == kGameShown);
    CHECK(rooms[0]["host_name"] == kHostShown);
}

TEST_CASE("lobby text: a hostile lobby's raw controls reach `framelock lobby list` escaped",
          "[lobby][hostile]") {
    // A lobby anyone can run: it answers with whatever bytes it likes.
    httplib::Server hostile;
    const json room = {{"code", "EV1L\x1b]0;PWN\x07"},
                       {"game_name", kGame},
                       {"host_name", kHost},
                       {"core_name", "fbneo"},
                       {"core_version", kCoreVersion},
                       {"mode", "framelock"},
                       {"players", 1},
                       {"slots", 2},
                       {"spectators", 0},
                       {"server_address", "203.0.113.7:7845\r\n"}};
    const std::string body = json{{"rooms", json::array({room})}}.dump();
    hostile.Get("/api/rooms", [&](const httplib::Request&, httplib::Response& res) {
        res.set_content(body, "application/json");
    });
    const int port = hostile.bind_to_any_port("127.0.0.1");
    REQUIRE(port > 0);
    std::thread serving([&] { hostile.listen_after_bind(); });
    const auto list = lobby_list(port);
    const auto as_json = lobby_list(port, true);
    hostile.stop();
    serving.join();
    INFO(list.err);
    REQUIRE(list.exit_code == 0);
    CHECK(list.out.find(list_row("EV1L\\x1b]0;PWN\\x07", kGameShown, kHostShown, kCoreShown,
                                 "203.0.113.7:7845\\x0d\\x0a", "-")) != std::string::npos);
    CHECK(plain_ascii(list.out));
    // --json: the lobby's strings as they are, every character past ASCII as its escape.
    REQUIRE(as_json.exit_code == 0);
    CHECK(plain_ascii(as_json.out));
    CHECK(json::parse(as_json.out)["rooms"][0] == room);
}
