// The lobby's API: the same suite against SQLite and a real PostgreSQL (a throwaway server
// this process starts; skipped with exit 77 without the PostgreSQL server). Requests go
// straight to LobbyApi::handle with the time passed in; lobby_http_test.cpp covers the
// HTTP layer with real processes. Here: rooms and relay servers through their life, tokens
// and passwords, and bad input. What bounds a client (rate limits, password budgets, the password
// workers): lobby_api_limits_test.cpp; the relay a room plays on: lobby_api_relay_test.cpp.
#include <string>

#include "lobby/tests/api_test_support.h"

using namespace lobby_api_test;

TEST_CASE(
    "Lobby API: rooms are created, listed with filters, found by code, joined, kept "
    "alive by heartbeats, and expire",
    "[lobby][api]") {
    for_each_store(ApiConfig{}, [](Client& c) {
        const json created = c.ok("POST", "/api/rooms", room_body("Blazing Star"));
        const std::string id = created["room"]["id"], code = created["room"]["code"];
        const std::string token = created["token"];
        CHECK(id.size() == 32);
        CHECK(code.size() == 6);
        CHECK(token.size() == 64);
        CHECK(created["room"]["has_password"] == false);
        CHECK(created["room"]["expires_ms"] == kT0 + 30'000);
        c.ok("POST", "/api/rooms", [] {
            json b = room_body("Metal Slug", 4);
            b["mode"] = "rollback";
            b["password"] = "hunter2";
            b["core_name"] = "mame";
            return b;
        }());
        json full = room_body("Blazing Star");
        full["players"] = 2;
        c.ok("POST", "/api/rooms", full);

        CHECK(c.ok("GET", "/api/rooms")["rooms"].size() == 3);
        CHECK(c.ok("GET", "/api/rooms", {}, "", {{"game", "Blazing Star"}})["rooms"].size() == 2);
        CHECK(c.ok("GET", "/api/rooms", {}, "", {{"core", "mame"}})["rooms"].size() == 1);
        CHECK(c.ok("GET", "/api/rooms", {}, "", {{"mode", "rollback"}})["rooms"].size() == 1);
        CHECK(c.ok("GET", "/api/rooms", {}, "",
                   {{"game", "Blazing Star"}, {"has_slots", "1"}})["rooms"]
                  .size() == 1);
        CHECK(c.ok("GET", "/api/rooms", {}, "", {{"limit", "1"}})["rooms"].size() == 1);
        // The password never leaves the lobby, not even hashed.
        const json listed = c.ok("GET", "/api/rooms");
        for (const auto& r : listed["rooms"]) {
            CHECK_FALSE(r.contains("password"));
            CHECK_FALSE(r.contains("password_hash"));
            CHECK_FALSE(r.contains("token_hash"));
        }

        const json by_code = c.ok("GET", "/api/rooms/" + code);
        CHECK(by_code["id"] == id);
        const json joined = c.ok("POST", "/api/rooms/" + code + "/join", json::object());
        CHECK(joined["server_address"] == "203.0.113.7:7845");
        CHECK(joined["full"] == false);

        // Heartbeats keep a room; without them it is gone after the TTL.
        c.now = kT0 + 25'000;
        const json beat =
            c.ok("POST", "/api/rooms/" + id + "/heartbeat", json{{"players", 2}}, token);
        CHECK(beat["players"] == 2);
        c.now = kT0 + 40'000;
        CHECK(c.ok("GET", "/api/rooms")["rooms"].size() == 1);  // only the heartbeated one
        CHECK(c.call("GET", "/api/rooms/" + code).status == 200);
        c.now = kT0 + 56'000;
        CHECK(c.ok("GET", "/api/rooms")["rooms"].empty());
        const ApiResponse gone = c.call("GET", "/api/rooms/" + code);
        CHECK(gone.status == 404);
        CHECK(json::parse(gone.body)["error"].get<std::string>().find(code) != std::string::npos);
    });
}

TEST_CASE("Lobby API: only the host's token updates or deletes a room, and passwords are checked",
          "[lobby][api]") {
    for_each_store(ApiConfig{}, [](Client& c) {
        json body = room_body("KOF 98");
        body["password"] = "s3cret";
        const json created = c.ok("POST", "/api/rooms", body);
        const std::string id = created["room"]["id"], code = created["room"]["code"];
        const std::string token = created["token"];
        CHECK(created["room"]["has_password"] == true);

        CHECK(c.call("PATCH", "/api/rooms/" + id, json{{"players", 2}}).status == 401);
        CHECK(c.call("PATCH", "/api/rooms/" + id, json{{"players", 2}}, std::string(64, 'a'))
                  .status == 403);
        CHECK(c.call("DELETE", "/api/rooms/" + id, {}, "wrong").status == 403);
        CHECK(c.ok("PATCH", "/api/rooms/" + id, json{{"players", 2}, {"game_name", "KOF 98 UM"}},
                   token)["game_name"] == "KOF 98 UM");

        const ApiResponse no_pw = c.call("POST", "/api/rooms/" + code + "/join", json::object());
        CHECK(no_pw.status == 403);
        CHECK_THAT(no_pw.body, Catch::Contains("needs a password"));
        const ApiResponse bad_pw =
            c.call("POST", "/api/rooms/" + code + "/join", json{{"password", "guess"}});
        CHECK(bad_pw.status == 403);
        CHECK_THAT(bad_pw.body, Catch::Contains("wrong password"));
        const json in = c.ok("POST", "/api/rooms/" + code + "/join", json{{"password", "s3cret"}});
        CHECK(in["server_address"] == "203.0.113.7:7845");
        CHECK(in["full"] == true);

        CHECK(c.call("DELETE", "/api/rooms/" + id, {}, token).status == 204);
        CHECK(c.call("GET", "/api/rooms/" + id).status == 404);
    });
}

TEST_CASE(
    "Lobby API: relay servers register with the operator's key and heartbeat, and a room "
    "without an address goes to the least-loaded live server",
    "[lobby][api]") {
    for_each_store(with_relay_key(), [](Client& c) {
        json body = room_body("1941");
        body.erase("server_address");
        const ApiResponse none = c.call("POST", "/api/rooms", body);
        CHECK(none.status == 409);
        CHECK_THAT(none.body, Catch::Contains("no relay server"));

        // Without the relay key, or with another: 401, and no relay.
        const json fake{{"address", "10.6.6.6:7845"},
                        {"server_key", test::kRelayServerKey},
                        {"capacity", 100'000}};
        const ApiResponse keyless = c.call("POST", "/api/servers", fake);
        CHECK(keyless.status == 401);
        CHECK_THAT(keyless.body, Catch::Contains("needs the lobby operator's relay key"));
        const ApiResponse wrong = c.call("POST", "/api/servers", fake, "guessed-relay-key");
        CHECK(wrong.status == 401);
        CHECK_THAT(wrong.body, Catch::Contains("wrong relay key"));
        CHECK(wrong.body.find(kRelayKey) == std::string::npos);
        CHECK(c.ok("GET", "/api/servers")["servers"].empty());

        const json a = c.ok("POST", "/api/servers",
                            json{{"address", "10.1.0.1:7845"},
                                 {"server_key", test::kRelayServerKey},
                                 {"capacity", 10},
                                 {"load", 8}},
                            kRelayKey);
        const json b = c.ok("POST", "/api/servers",
                            json{{"address", "10.1.0.2:7845"},
                                 {"server_key", test::kRelayServerKey},
                                 {"capacity", 10},
                                 {"load", 3}},
                            kRelayKey);
        CHECK(c.ok("POST", "/api/rooms", body)["room"]["server_address"] == "10.1.0.2:7845");
        // b fills up: a is the least loaded now.
        c.ok("POST", "/api/servers/" + b["server"]["id"].get<std::string>() + "/heartbeat",
             json{{"load", 10}}, b["token"]);
        CHECK(c.ok("POST", "/api/rooms", body)["room"]["server_address"] == "10.1.0.1:7845");
        CHECK(c.call("POST", "/api/servers/" + a["server"]["id"].get<std::string>() + "/heartbeat",
                     json{{"load", 1}}, b["token"])
                  .status == 403);
        CHECK(c.ok("GET", "/api/servers")["servers"].size() == 2);
        // Servers that stop heartbeating are gone.
        c.now = kT0 + 31'000;
        CHECK(c.ok("GET", "/api/servers")["servers"].empty());
        CHECK(c.call("POST", "/api/rooms", body).status == 409);
    });
}

TEST_CASE("Lobby API: a lobby without a relay key takes no relay servers", "[lobby][api]") {
    SqliteLobby lobby;
    LobbyApi api(*lobby.store, ApiConfig{});
    Client c{api};
    for (const char* key : {"", "any-key-at-all-0123"}) {
        const ApiResponse refused = c.call("POST", "/api/servers",
                                           json{{"address", "10.1.0.1:7845"},
                                                {"server_key", test::kRelayServerKey},
                                                {"capacity", 1}},
                                           key);
        CHECK(refused.status == 403);
        CHECK_THAT(refused.body, Catch::Contains("its operator set no relay key"));
    }
    CHECK(c.ok("GET", "/api/servers")["servers"].empty());
}

TEST_CASE("Lobby API: bad input gets a 4xx with a JSON error, never a 5xx, and changes nothing",
          "[lobby][api][robustness]") {
    ApiConfig config;
    config.burst = 1000;
    for_each_store(config, [](Client& c) {
        const json created = c.ok("POST", "/api/rooms", room_body("Garou"));
        const std::string id = created["room"]["id"];
        const auto refused = [&](const std::string& method, const std::string& path,
                                 const std::string& raw_body, int status, const char* words) {
            ApiRequest r;
            r.method = method;
            r.path = path;
            r.body = raw_body;
            r.client = c.ip;
            r.now_ms = c.now;
            const ApiResponse res = c.api.handle(r);
            INFO(method << " " << path << " " << raw_body.substr(0, 80) << " -> " << res.status
                        << " " << res.body);
            CHECK(res.status == status);
            const json j = json::parse(res.body, nullptr, false);
            REQUIRE(j.is_object());
            CHECK_THAT(j.value("error", std::string()), Catch::Contains(words));
        };
        refused("POST", "/api/rooms", std::string(9000, 'x'), 413, "limit is 8192");
        refused("POST", "/api/rooms", "{not json", 400, "not valid JSON");
        refused("POST", "/api/rooms", "[1,2]", 400, "JSON object");
        // A good room body with one field made bad, and what the refusal says.
        struct BadField {
            const char* field;
            json value;
            const char* words;
        };
        const BadField bad_fields[] = {
            {"slots", "two", "\"slots\" must be an integer"},
            {"slots", 99, "between 1 and 8"},
            {"game_name", std::string(200, 'g'), "\"game_name\" must be 1 to 128"},
            {"host_name", "bell\x07", "printable"},
            {"content_hash", "'; DROP TABLE--", "content_hash"},
            {"server_address", "evil host:99999", "host:port"},
            {"mode", "turbo", "framelock, nowait, rollback or hybrid"},
        };
        for (const BadField& bad : bad_fields) {
            json wrong = room_body("Garou");
            wrong[bad.field] = bad.value;
            refused("POST", "/api/rooms", wrong.dump(), 400, bad.words);
        }
        refused("GET", "/api/rooms/ZZZZZZ", "", 404, "no live room ZZZZZZ");
        refused("GET", "/api/rooms/'%20OR%201=1", "", 400, "id or its 6-character code");
        refused("POST", "/api/rooms/" + id + "/heartbeat", "", 401, "token");
        refused("DELETE", "/api/nothing", "", 404, "no such endpoint");
        // Bytes that are not UTF-8, echoed in the error, still make a 4xx with valid JSON.
        refused("GET\xff", "/api/\xc3", "", 404, "no such endpoint");
        refused("GET", "/nothing/" + std::string(90, 'a') + "\xe2\x82\xac", "", 404,
                "no such endpoint");  // the echo cuts the path at 100 bytes, inside the euro sign
        const ApiResponse bad_limit = c.call("GET", "/api/rooms", {}, "", {{"limit", "abc"}});
        CHECK(bad_limit.status == 400);
        CHECK_THAT(json::parse(bad_limit.body)["error"].get<std::string>(),
                   Catch::Contains("\"limit\" must be a number"));

        // SQL metacharacters in text are data, stored and returned as they are.
        json sly = room_body("Robert'); DROP TABLE rooms;--");
        sly["host_name"] = "\"quoted\" \\ back\\slash ünïcödé";
        const json made = c.ok("POST", "/api/rooms", sly);
        const json got = c.ok("GET", "/api/rooms/" + made["room"]["code"].get<std::string>());
        CHECK(got["game_name"] == "Robert'); DROP TABLE rooms;--");
        CHECK(got["host_name"] == "\"quoted\" \\ back\\slash ünïcödé");
        CHECK(c.ok("GET", "/api/rooms", {}, "", {{"game", "x' OR '1'='1"}})["rooms"].empty());
        CHECK(c.ok("GET", "/api/rooms")["rooms"].size() == 2);  // nothing else changed
    });
}
