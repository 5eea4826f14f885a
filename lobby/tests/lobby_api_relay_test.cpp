// The relay a room plays on, through the lobby's API: the one that minimises the worst
// player's round trip, chosen from the players' probes at create and at join (a room still
// waiting for its second player moves there), and the probes' and flags' validation.
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lobby/tests/api_test_support.h"

using namespace lobby_api_test;

namespace {

// A relay session registered with the lobby (capacity 1, as `framelock server` registers
// each session port): its id.
std::string register_relay(Client& c, const std::string& address, int load = 0) {
    const json made = c.ok("POST", "/api/servers",
                           json{{"address", address},
                                {"server_key", test::kRelayServerKey},
                                {"capacity", 1},
                                {"load", load}},
                           kRelayKey);
    return made["server"]["id"];
}

json probes_json(const std::vector<std::pair<std::string, double>>& probes) {
    json out = json::object();
    for (const auto& [id, ms] : probes) out[id] = ms;
    return out;
}

json relay_room_body(const json& probes) {
    json body = room_body("Blazing Star");
    body.erase("server_address");
    body["players"] = 0;
    body["probes"] = probes;
    return body;
}

struct Moves {
    std::mutex mutex;
    std::vector<std::pair<std::string, std::string>> seen;  // room id, new address
};

}  // namespace

TEST_CASE(
    "Lobby API: the relay that minimises the worst player's round trip, and a join moves a room "
    "still waiting for its second player there",
    "[lobby][api][relay]") {
    ApiConfig config = with_relay_key();
    config.burst = 1000;
    auto moves = std::make_shared<Moves>();
    config.on_room_moved = [moves](const std::string& room, const std::string& address) {
        std::lock_guard lock(moves->mutex);
        moves->seen.emplace_back(room, address);
    };
    for_each_store(config, [&](Client& c) {
        moves->seen.clear();
        const std::string r20 = register_relay(c, "198.51.100.20:7000");
        const std::string r60 = register_relay(c, "198.51.100.60:7000");
        const std::string r120 = register_relay(c, "198.51.100.120:7000");

        SECTION("both players near the same relay: it is chosen, and the room stays there") {
            const json host = probes_json({{r20, 20}, {r60, 60}, {r120, 120}});
            const json created = c.ok("POST", "/api/rooms", relay_room_body(host));
            CHECK(created["room"]["server_address"] == "198.51.100.20:7000");
            CHECK(created["room"]["fps"] == 60.0);
            const std::string code = created["room"]["code"];

            Client joiner{c.api, "10.0.0.2", c.now};
            CHECK(joiner.ok("POST", "/api/probes",
                            json{{"probes",
                                  probes_json({{r20, 21.5}, {r60, 59}, {r120, 118}})}})["stored"] ==
                  3);
            const json listed = joiner.ok("GET", "/api/rooms");
            REQUIRE(listed["rooms"].size() == 1);
            // 21.5 ms (the worse of 20 and 21.5) + 1 ms margin: 2 frames at 60 fps.
            CHECK(listed["rooms"][0]["expected_delay"] == 2);
            CHECK(listed["rooms"][0]["expected_rtt_ms"] == 21.5);
            // The host's own list, without probes of its own: no estimate.
            CHECK(!c.ok("GET", "/api/rooms")["rooms"][0].contains("expected_delay"));

            const json joined =
                joiner.ok("POST", "/api/rooms/" + code + "/join",
                          json{{"probes", probes_json({{r20, 21.5}, {r60, 59}, {r120, 118}})}});
            CHECK(joined["server_address"] == "198.51.100.20:7000");
            CHECK(joined["expected_delay"] == 2);
            CHECK(moves->seen.empty());
        }
        SECTION("crossed latencies: the middle relay, the room moves, the host hears of it") {
            const json host = probes_json({{r20, 20}, {r60, 60}, {r120, 120}});
            json body = relay_room_body(host);
            body["fps"] = 30;
            const json created = c.ok("POST", "/api/rooms", body);
            const std::string id = created["room"]["id"], code = created["room"]["code"];
            const std::string token = created["token"];
            CHECK(created["room"]["server_address"] == "198.51.100.20:7000");
            CHECK(created["room"]["fps"] == 30.0);
            // The host connected to its relay session: that relay now reports itself full.
            c.ok("POST", "/api/rooms/" + id + "/heartbeat", json{{"players", 1}}, token);

            Client joiner{c.api, "10.0.0.2", c.now};
            const json mine = probes_json({{r20, 120}, {r60, 60}, {r120, 20}});
            // The estimate before joining: the relay the join would pick (60 ms for both;
            // 61 ms at 30 fps: 2 frames), from probes in the query.
            const json listed =
                joiner.ok("GET", "/api/rooms", {}, "",
                          {{"probes", r20 + ":120," + r60 + ":60," + r120 + ":20"}});
            REQUIRE(listed["rooms"].size() == 1);
            CHECK(listed["rooms"][0]["expected_delay"] == 2);
            CHECK(listed["rooms"][0]["expected_rtt_ms"] == 60.0);
            const json one = joiner.ok("GET", "/api/rooms/" + code, {}, "",
                                       {{"probes", r20 + ":120," + r60 + ":60"}});
            CHECK(one["expected_rtt_ms"] == 60.0);

            const json joined =
                joiner.ok("POST", "/api/rooms/" + code + "/join", json{{"probes", mine}});
            CHECK(joined["server_address"] == "198.51.100.60:7000");
            CHECK(joined["room"]["server_address"] == "198.51.100.60:7000");
            CHECK(joined["expected_delay"] == 2);
            {
                std::lock_guard lock(moves->mutex);
                REQUIRE(moves->seen.size() == 1);
                CHECK(moves->seen[0].first == id);
                CHECK(moves->seen[0].second == "198.51.100.60:7000");
            }
            // The host's next heartbeat answer carries the new address, and keeps it.
            const json beat =
                c.ok("POST", "/api/rooms/" + id + "/heartbeat", json{{"players", 1}}, token);
            CHECK(beat["server_address"] == "198.51.100.60:7000");
            CHECK(c.ok("GET", "/api/rooms/" + code)["server_address"] == "198.51.100.60:7000");

            // Once two play, a third player's probes move nothing.
            c.ok("POST", "/api/rooms/" + id + "/heartbeat", json{{"players", 2}}, token);
            Client late{c.api, "10.0.0.3", c.now};
            const json stays = late.ok("POST", "/api/rooms/" + code + "/join",
                                       json{{"probes", probes_json({{r20, 5}, {r60, 90}})}});
            CHECK(stays["full"] == true);  // 2 of 2
            CHECK(stays["server_address"] == "198.51.100.60:7000");
            std::lock_guard lock(moves->mutex);
            CHECK(moves->seen.size() == 1);
        }
        SECTION("a room whose host runs its own server: no estimate, unless relay: true") {
            json body = room_body("Garou");  // server_address given: the host's own
            body["probes"] = probes_json({{r20, 20}, {r60, 60}, {r120, 120}});
            const json created = c.ok("POST", "/api/rooms", body);
            const std::string code = created["room"]["code"];
            Client joiner{c.api, "10.0.0.2", c.now};
            joiner.ok("POST", "/api/probes",
                      json{{"probes", probes_json({{r20, 150}, {r60, 70}, {r120, 30}})}});
            CHECK(!joiner.ok("GET", "/api/rooms")["rooms"][0].contains("expected_delay"));
            const json direct = joiner.ok("POST", "/api/rooms/" + code + "/join",
                                          json{{"probes", probes_json({{r20, 150}})}});
            CHECK(direct["server_address"] == "203.0.113.7:7845");
            CHECK(!direct.contains("expected_delay"));
            CHECK(moves->seen.empty());
            // "I cannot reach the host": onto the relay best for both (max 70 on r60).
            const json relayed =
                joiner.ok("POST", "/api/rooms/" + code + "/join",
                          json{{"probes", probes_json({{r20, 150}, {r60, 70}, {r120, 30}})},
                               {"relay", true}});
            CHECK(relayed["server_address"] == "198.51.100.60:7000");
            CHECK(relayed["expected_rtt_ms"] == 70.0);
            CHECK(relayed["expected_delay"] == 5);  // 71 ms at 60 fps
            std::lock_guard lock(moves->mutex);
            REQUIRE(moves->seen.size() == 1);
            CHECK(moves->seen[0].second == "198.51.100.60:7000");
        }
    });
}

TEST_CASE("Lobby API: relay probes and flags are validated, and relay: true with every relay busy",
          "[lobby][api][relay][robustness]") {
    ApiConfig config = with_relay_key();
    config.burst = 1000;
    for_each_store(config, [](Client& c) {
        const std::string busy = register_relay(c, "198.51.100.9:7000", 1);
        const json created = c.ok("POST", "/api/rooms", room_body("Garou"));
        const std::string code = created["room"]["code"];
        const auto refused = [&](const std::string& method, const std::string& path,
                                 const json& body, int status, const char* words,
                                 std::map<std::string, std::string> query = {}) {
            const ApiResponse res = c.call(method, path, body, "", std::move(query));
            INFO(method << " " << path << " " << body.dump().substr(0, 120) << " -> " << res.status
                        << " " << res.body);
            CHECK(res.status == status);
            const json j = json::parse(res.body, nullptr, false);
            REQUIRE(j.is_object());
            CHECK_THAT(j.value("error", std::string()), Catch::Contains(words));
        };
        const std::string id32(32, 'a');
        json many = json::object();
        for (int i = 0; i < 65; ++i) {
            char id[33];
            std::snprintf(id, sizeof id, "%032x", i);
            many[id] = 10;
        }
        const json bad_probes[] = {json::array({1, 2}),
                                   json{{"short", 10}},
                                   json{{std::string(32, 'G'), 10}},
                                   json{{id32, -1}},
                                   json{{id32, 10'001}},
                                   json{{id32, "ten"}},
                                   many};
        const char* bad_words[] = {"must be an object", "32-digit id",   "32-digit id",
                                   "0 to 10000 ms",     "0 to 10000 ms", "must be a number",
                                   "at most 64"};
        for (std::size_t i = 0; i < std::size(bad_probes); ++i) {
            json room = room_body("Garou");
            room["probes"] = bad_probes[i];
            refused("POST", "/api/rooms", room, 400, bad_words[i]);
            refused("POST", "/api/rooms/" + code + "/join", json{{"probes", bad_probes[i]}}, 400,
                    bad_words[i]);
            refused("POST", "/api/probes", json{{"probes", bad_probes[i]}}, 400, bad_words[i]);
        }
        refused("POST", "/api/probes", json{{"other", 1}}, 400, "\"probes\" is required");
        for (const json& fps : {json(0), json(1001), json("60")}) {
            json room = room_body("Garou");
            room["fps"] = fps;
            refused("POST", "/api/rooms", room, 400, "\"fps\" must be a number from 1 to 1000");
        }
        refused("POST", "/api/rooms/" + code + "/join", json{{"relay", "yes"}}, 400,
                "\"relay\" must be true or false");
        for (const std::string& q : std::vector<std::string>{
                 "abc", id32 + ":", id32 + ":-3", id32 + ":1e9", "x:5", id32 + ":20000"}) {
            refused("GET", "/api/rooms", {}, 400, "probes", {{"probes", q}});
        }
        // A joiner that cannot reach the host, with every relay busy: said so, nothing moves.
        refused("POST", "/api/rooms/" + code + "/join",
                json{{"relay", true}, {"probes", json{{busy, 10}}}}, 409,
                "no relay server has room");
        CHECK(c.ok("GET", "/api/rooms/" + code)["server_address"] == "203.0.113.7:7845");
        CHECK(c.ok("GET", "/api/rooms")["rooms"].size() == 1);
    });
}

TEST_CASE(
    "Lobby API: every room names the key of the server it plays on, and the key moves "
    "with the room",
    "[lobby][api][relay][server_key]") {
    ApiConfig config = with_relay_key();
    config.burst = 1000;
    for_each_store(config, [&](Client& c) {
        constexpr const char* kNearKey = "ZJzvZSnPuYatIPcJax4ik42kQxI6mQYpn9umXe6PyJ4";
        constexpr const char* kFarKey = "IjrpnxErLcmE4wZFYomvJpPF8O_4kTcmb4HCPt9q8JA";
        const auto relay = [&](const std::string& address, const json& key) {
            json body{{"address", address}, {"capacity", 1}};
            if (!key.is_null()) body["server_key"] = key;
            return c.call("POST", "/api/servers", body, kRelayKey);
        };
        // A relay names its key: without one, or with something else, it cannot register.
        for (const json& bad : {json(), json("not-a-key"), json(std::string(kNearKey) + "A"),
                                json(std::string(kNearKey).substr(0, 42) + "+"), json(7)}) {
            const ApiResponse refused = relay("198.51.100.9:7000", bad);
            INFO(bad.dump() << " -> " << refused.body);
            CHECK(refused.status == 400);
            CHECK_THAT(refused.body, Catch::Contains("server_key"));
        }
        CHECK(c.ok("GET", "/api/servers")["servers"].empty());
        const std::string near =
            json::parse(relay("198.51.100.20:7000", kNearKey).body)["server"]["id"];
        const std::string far =
            json::parse(relay("198.51.100.60:7000", kFarKey).body)["server"]["id"];
        const json servers = c.ok("GET", "/api/servers")["servers"];
        REQUIRE(servers.size() == 2);
        for (const auto& s : servers)
            CHECK(s["server_key"] == (s["id"] == near ? kNearKey : kFarKey));

        // A host's own room names its server's key: required, and checked.
        json own = room_body("Own Room");
        own.erase("server_key");
        CHECK(c.call("POST", "/api/rooms", own).status == 400);
        own["server_key"] = "AAAA";
        CHECK(c.call("POST", "/api/rooms", own).status == 400);
        own["server_key"] = test::kHostServerKey;
        const json made = c.ok("POST", "/api/rooms", own);
        CHECK(made["room"]["server_key"] == test::kHostServerKey);
        const json joined =
            c.ok("POST", "/api/rooms/" + made["room"]["code"].get<std::string>() + "/join", {});
        CHECK(joined["server_key"] == test::kHostServerKey);
        CHECK(joined["room"]["server_key"] == test::kHostServerKey);
        // Moved to a relay (its joiner cannot reach the host): the relay's key with it.
        const json moved =
            c.ok("POST", "/api/rooms/" + made["room"]["code"].get<std::string>() + "/join",
                 json{{"relay", true}});
        CHECK(moved["server_address"] != "203.0.113.7:7845");
        CHECK(moved["server_key"] ==
              (moved["server_address"] == "198.51.100.20:7000" ? kNearKey : kFarKey));

        // A relay room: the key of the relay it is placed on, and of the one it moves to.
        json waiting = relay_room_body(probes_json({{near, 30}, {far, 40}}));
        const json placed = c.ok("POST", "/api/rooms", waiting);
        CHECK(placed["room"]["server_address"] == "198.51.100.20:7000");
        CHECK(placed["room"]["server_key"] == kNearKey);
        const std::string code = placed["room"]["code"];
        // A joiner near the far relay and far from the near one: the room moves, key and all.
        const json there = c.ok("POST", "/api/rooms/" + code + "/join",
                                json{{"probes", probes_json({{near, 200}, {far, 10}})}});
        CHECK(there["server_address"] == "198.51.100.60:7000");
        CHECK(there["server_key"] == kFarKey);
        CHECK(c.ok("GET", "/api/rooms/" + code)["server_key"] == kFarKey);
    });
}
