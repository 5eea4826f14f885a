// The lobby's request handling (LobbyApi::handle, lobby/api.h) on an in-memory
// SQLite store. An input is text: requests separated by lines of "---", each
//     METHOD PATH[?k=v&k=v]
//     BEARER TOKEN (may be empty)
//     BODY (the rest)
// "{id}", "{code}" and "{token}" in the path, query and token are replaced by the newest
// room's or server's, and "{relay_key}" by the lobby's relay key, so a mutated request can
// still reach the routes behind a token or the key.
//
// Invariants: the answer is never a 5xx (the store works, so every failure is the
// request's: the bug where a 404 echoing non-UTF-8 bytes became a 500), a JSON answer is
// valid JSON, and an error says why in {"error": "..."}.
//
// A create request with a "password" is skipped: its Argon2id hash (64 MiB, tens of ms)
// would make the fuzzer crawl; tests/integration/lobby_api_test.cpp covers passwords.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lobby/api.h"
#include "lobby/secrets.h"
#include "lobby/sqlite_store.h"
#include "tests/fuzz/fuzz_targets.h"

namespace framelock::fuzz {
namespace {

using json = nlohmann::json;
using namespace lobby;

constexpr const char* kRelayKey = "fuzzing-relay-key";

struct Lobby {
    std::unique_ptr<LobbyStore> store;
    std::unique_ptr<LobbyApi> api;
    std::int64_t now_ms = 1'800'000'000'000;
};

// One store for the process (opening and migrating one per input would cost more than the
// requests); each input starts past every earlier input's rooms' and servers' expiry.
Lobby& lobby() {
    static Lobby* instance = [] {
        auto* l = new Lobby;
        auto store = open_sqlite_store(":memory:", "sqlite::memory:");
        if (!store || !store.value()->migrate()) std::abort();
        l->store = std::move(store.value());
        ApiConfig config;
        config.rate_per_s = 1e9;  // the limiter is not what is fuzzed here
        config.burst = 1e9;
        config.relay_key_hash = hash_token(kRelayKey);
        l->api = std::make_unique<LobbyApi>(*l->store, config);
        return l;
    }();
    return *instance;
}

std::vector<std::string_view> split(std::string_view text, std::string_view separator) {
    std::vector<std::string_view> parts;
    for (;;) {
        const auto at = text.find(separator);
        parts.push_back(text.substr(0, at));
        if (at == std::string_view::npos) return parts;
        text.remove_prefix(at + separator.size());
    }
}

std::string substitute(std::string_view text, const std::map<std::string, std::string>& values) {
    std::string out(text);
    for (const auto& [key, value] : values) {
        for (auto at = out.find(key); at != std::string::npos;
             at = out.find(key, at + value.size()))
            out.replace(at, key.size(), value);
    }
    return out;
}

ApiRequest parse_request(std::string_view text, const std::map<std::string, std::string>& values,
                         std::int64_t now_ms) {
    ApiRequest r;
    r.client = "10.0.0.1";
    r.now_ms = now_ms;
    const auto lines = split(text, "\n");
    const std::string_view first = lines[0];
    const auto space = first.find(' ');
    r.method = std::string(first.substr(0, space));
    std::string target =
        space == std::string_view::npos ? "" : std::string(first.substr(space + 1));
    target = substitute(target, values);
    const auto question = target.find('?');
    r.path = target.substr(0, question);
    if (question != std::string::npos) {
        for (const auto pair : split(std::string_view(target).substr(question + 1), "&")) {
            const auto eq = pair.find('=');
            r.query[std::string(pair.substr(0, eq))] =
                eq == std::string_view::npos ? "" : std::string(pair.substr(eq + 1));
        }
    }
    if (lines.size() > 1) r.bearer = substitute(lines[1], values);
    const auto body_at = lines.size() > 2 ? first.size() + lines[1].size() + 2 : text.size();
    r.body = std::string(text.substr(std::min(body_at, text.size())));
    return r;
}

bool sets_password(const ApiRequest& r) {
    const json body = json::parse(r.body, nullptr, false);
    return body.is_object() && body.contains("password");
}

}  // namespace

int fuzz_lobby(const std::uint8_t* data, std::size_t size) {
    Lobby& l = lobby();
    l.now_ms += 3'600'000;  // an hour on: every earlier room and server has expired
    std::map<std::string, std::string> values = {{"{id}", "0123456789abcdef0123456789abcdef"},
                                                 {"{code}", "ABCDEF"},
                                                 {"{token}", "x"},
                                                 {"{relay_key}", kRelayKey}};
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    int n = 0;
    for (const auto part : split(text, "\n---\n")) {
        if (++n > 16) break;
        const ApiRequest request = parse_request(part, values, l.now_ms + n * 100);
        if (sets_password(request)) continue;
        const ApiResponse response = l.api->handle(request);
        FUZZ_CHECK(response.status >= 200 && response.status < 500);
        if (response.content_type != "application/json") continue;
        if (response.status == 204) {
            FUZZ_CHECK(response.body.empty());
            continue;
        }
        const json body = json::parse(response.body, nullptr, false);
        FUZZ_CHECK(!body.is_discarded());
        if (response.status >= 400) {
            FUZZ_CHECK(body.is_object() && body.contains("error") && body["error"].is_string());
            continue;
        }
        // Remember what a create or register handed out, for the requests that follow.
        if (body.is_object() && body.contains("token") && body["token"].is_string())
            values["{token}"] = body["token"].get<std::string>();
        const char* key = body.is_object() && body.contains("server") ? "server" : "room";
        const json& room = body.is_object() && body.contains(key) ? body[key] : body;
        if (room.is_object() && room.contains("id") && room["id"].is_string())
            values["{id}"] = room["id"].get<std::string>();
        if (room.is_object() && room.contains("code") && room["code"].is_string())
            values["{code}"] = room["code"].get<std::string>();
    }
    return 0;
}

}  // namespace framelock::fuzz
