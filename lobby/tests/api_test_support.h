// What the lobby API's tests share (lobby_api_test.cpp, lobby_api_limits_test.cpp,
// lobby_api_relay_test.cpp): a client that calls LobbyApi::handle with the time passed in, a
// room to create, and the stores to run a suite on (SQLite, and a real PostgreSQL on a
// throwaway server this process starts; skipped with exit 77 without the PostgreSQL server).
#pragma once

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "lobby/api.h"
#include "lobby/secrets.h"
#include "lobby/store.h"
#include "support/pg_cluster.h"
#include "support/temp_dir.h"
#include "support/test_server_keys.h"

namespace lobby_api_test {

using namespace framelock;
using namespace framelock::lobby;
using json = nlohmann::json;

inline constexpr std::int64_t kT0 = 1'800'000'000'000;  // a fixed "now" (2027)

// The operator's relay key of the tests' lobbies: relays register with it (as Bearer).
inline constexpr const char* kRelayKey = "test-operator-relay-key";
inline ApiConfig with_relay_key(ApiConfig config = {}) {
    config.relay_key_hash = hash_token(kRelayKey);
    return config;
}

struct Client {
    LobbyApi& api;
    std::string ip = "10.0.0.1";
    std::int64_t now = kT0;
    ApiResponse call(const std::string& method, const std::string& path, const json& body = {},
                     const std::string& token = "", std::map<std::string, std::string> query = {}) {
        ApiRequest r;
        r.method = method;
        r.path = path;
        r.body = body.is_null() ? "" : body.dump();
        r.bearer = token;
        r.client = ip;
        r.now_ms = now;
        r.query = std::move(query);
        return api.handle(r);
    }
    json ok(const std::string& method, const std::string& path, const json& body = {},
            const std::string& token = "", std::map<std::string, std::string> query = {}) {
        const ApiResponse res = call(method, path, body, token, std::move(query));
        INFO(method << " " << path << " -> " << res.status << " " << res.body);
        REQUIRE(res.status >= 200);
        REQUIRE(res.status < 300);
        return res.body.empty() ? json{} : json::parse(res.body);
    }
};

inline json room_body(const std::string& game, int slots = 2) {
    return json{{"host_name", "alice"},
                {"game_name", game},
                {"content_hash", "0123456789abcdef"},
                {"core_name", "fbneo"},
                {"core_version", "1.0.0.03"},
                {"mode", "framelock"},
                {"slots", slots},
                {"players", 1},
                {"region", "eu-west"},
                {"server_address", "203.0.113.7:7845"},
                {"server_key", test::kHostServerKey}};
}

// The store at `url`, its schema migrated.
inline std::unique_ptr<LobbyStore> migrated_store(const std::string& url) {
    auto store = open_store(url);
    REQUIRE(store);
    REQUIRE(store.value()->migrate());
    return std::move(store).value();
}

// A SQLite store for the tests that are about the API, not the backends.
struct SqliteLobby {
    test::TempDir dir{"lobby-api"};
    std::unique_ptr<LobbyStore> store = migrated_store("sqlite:" + dir.file("lobby.db"));
};

// Runs `body` with a client of a LobbyApi set up by `config`, once on every backend this
// machine can provide; what the body reports names the backend.
inline void for_each_store(const ApiConfig& config, const std::function<void(Client&)>& body) {
    const auto run = [&](LobbyStore& store, const char* backend) {
        INFO(backend);
        LobbyApi api(store, config);
        Client c{api};
        body(c);
    };
    SECTION("SQLite") {
        SqliteLobby lobby;
        run(*lobby.store, "sqlite");
    }
    SECTION("PostgreSQL") {
        static test::PgCluster cluster;  // one server for the whole test process
        run(*migrated_store(cluster.create_database()), "postgresql");
    }
}

}  // namespace lobby_api_test
