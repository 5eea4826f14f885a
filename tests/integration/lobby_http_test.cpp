// `framelock lobby serve` as a real process on 127.0.0.1: the API over HTTP, the web page,
// /health and /metrics, JSON errors from the HTTP layer itself, a graceful stop on SIGTERM,
// and two lobby processes on one PostgreSQL behaving as one service.
#include <catch2/catch.hpp>

#include <httplib.h>
#include <signal.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "frontend/child_process.h"
#include "support/pg_cluster.h"
#include "support/temp_dir.h"

using namespace framelock;
using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// A lobby process; its port is read from the "listening PORT" line it prints.
struct Lobby {
    frontend::ChildProcess process;
    std::string log;
    int port = 0;

    static Lobby start(const test::TempDir& dir, const std::string& name, const std::string& db,
                       std::vector<std::string> extra = {}) {
        std::vector<std::string> args = {FRAMELOCK_EXE, "lobby", "serve", "--listen",
                                         "127.0.0.1:0", "--db",  db};
        args.insert(args.end(), extra.begin(), extra.end());
        const std::string out = dir.file(name + ".out"), log = dir.file(name + ".log");
        auto child = frontend::ChildProcess::spawn(args, out, log);
        REQUIRE(child);
        Lobby lobby{std::move(child).value(), log, 0};
        const auto deadline = std::chrono::steady_clock::now() + 20s;
        while (lobby.port == 0) {
            const std::string text = read_text(out);
            if (auto at = text.find("listening ");
                at != std::string::npos && text.find('\n', at) != std::string::npos)
                lobby.port = std::stoi(text.substr(at + 10));
            INFO(read_text(log));
            REQUIRE(lobby.process.running());
            REQUIRE(std::chrono::steady_clock::now() < deadline);
            std::this_thread::sleep_for(10ms);
        }
        return lobby;
    }
    httplib::Client client() const {
        httplib::Client c("127.0.0.1", port);
        c.set_connection_timeout(5, 0);
        c.set_read_timeout(5, 0);
        return c;
    }
};

json room_body(const std::string& game) {
    return json{{"host_name", "alice"},
                {"game_name", game},
                {"content_hash", "0123456789abcdef"},
                {"core_name", "fbneo"},
                {"core_version", "1.0"},
                {"mode", "nowait"},
                {"slots", 2},
                {"server_address", "127.0.0.1:7845"}};
}

}  // namespace

TEST_CASE("lobby serve: the API, the page, health and metrics over HTTP; SIGTERM stops it cleanly",
          "[lobby][http]") {
    test::TempDir dir("lobby-http");
    Lobby lobby = Lobby::start(dir, "lobby", "sqlite:" + dir.file("lobby.db"));
    auto c = lobby.client();

    auto created = c.Post("/api/rooms", room_body("Blazing Star").dump(), "application/json");
    REQUIRE(created);
    REQUIRE(created->status == 201);
    const json room = json::parse(created->body);
    const std::string token = room["token"];
    auto list = c.Get("/api/rooms?game=Blazing%20Star");
    REQUIRE(list);
    CHECK(json::parse(list->body)["rooms"].size() == 1);
    httplib::Headers auth = {{"Authorization", "Bearer " + token}};
    auto beat =
        c.Post(("/api/rooms/" + room["room"]["id"].get<std::string>() + "/heartbeat").c_str(), auth,
               json{{"players", 2}}.dump(), "application/json");
    REQUIRE(beat);
    CHECK(beat->status == 200);

    auto page = c.Get("/");
    REQUIRE(page);
    CHECK(page->status == 200);
    CHECK_THAT(page->get_header_value("Content-Type"), Catch::Contains("text/html"));
    CHECK_THAT(page->body, Catch::Contains("framelock lobby"));
    CHECK(page->body.find("http://") == std::string::npos);  // no external assets
    CHECK(page->body.find("https://") == std::string::npos);

    auto health = c.Get("/health");
    REQUIRE(health);
    CHECK(json::parse(health->body)["status"] == "ok");
    CHECK(json::parse(health->body)["rooms"] == 1);

    // Larger than the HTTP layer takes at all: still a JSON error.
    auto huge = c.Post("/api/rooms", std::string(100 * 1024, 'x'), "application/json");
    REQUIRE(huge);
    CHECK(huge->status == 413);
    CHECK(json::parse(huge->body, nullptr, false).contains("error"));
    auto wrong_type = c.Post("/api/rooms", json{{"slots", "2"}}.dump(), "application/json");
    REQUIRE(wrong_type);
    CHECK(wrong_type->status == 400);

    auto metrics = c.Get("/metrics");
    REQUIRE(metrics);
    CHECK_THAT(metrics->body,
               Catch::Contains("framelock_lobby_rooms 1") &&
                   Catch::Contains("framelock_lobby_request_seconds_bucket") &&
                   Catch::Contains(
                       "framelock_lobby_requests_total{route=\"create_room\",status=\"201\"} 1"));

    lobby.process.send_signal(SIGTERM);
    const auto ended = lobby.process.wait_until(std::chrono::steady_clock::now() + 10s);
    REQUIRE(ended);
    CHECK(ended->success());
    const std::string log = read_text(lobby.log);
    CHECK_THAT(log, Catch::Contains("lobby request method=POST path=/api/rooms status=201"));
    CHECK_THAT(log, Catch::Contains("lobby stopped"));
}

TEST_CASE("lobby serve: two lobby processes on one PostgreSQL are one service", "[lobby][http]") {
    test::TempDir dir("lobby-pg");
    test::PgCluster cluster;
    const std::string url = cluster.create_database();
    Lobby a = Lobby::start(dir, "a", url);
    Lobby b = Lobby::start(dir, "b", url);
    auto ca = a.client();
    auto cb = b.client();
    auto created = ca.Post("/api/rooms", room_body("Garou").dump(), "application/json");
    REQUIRE(created);
    REQUIRE(created->status == 201);
    const json room = json::parse(created->body);
    const std::string code = room["room"]["code"];
    auto seen = cb.Get(("/api/rooms/" + code).c_str());
    REQUIRE(seen);
    CHECK(seen->status == 200);
    CHECK(json::parse(seen->body)["game_name"] == "Garou");
    // The token a gave works on b.
    auto gone = cb.Delete(
        ("/api/rooms/" + room["room"]["id"].get<std::string>()).c_str(),
        httplib::Headers{{"Authorization", "Bearer " + room["token"].get<std::string>()}});
    REQUIRE(gone);
    CHECK(gone->status == 204);
    auto list = ca.Get("/api/rooms");
    REQUIRE(list);
    CHECK(json::parse(list->body)["rooms"].empty());
}
