#include "frontend/lobby_client/lobby_cli.h"

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "common/log.h"
#include "frontend/lobby_client/lobby_client.h"
#include "netplay/base/safe_text.h"

namespace framelock::frontend::lobby_client {

void add_lobby_command(CLI::App& app, LobbyCommand& c) {
    c.lobby = app.add_subcommand("lobby", "the matchmaking lobby: serve it, or list its rooms");
    c.lobby->require_subcommand(1);
    c.serve = c.lobby->add_subcommand("serve", "run the lobby (HTTP JSON API and web page)");
    lobby::add_serve_options(*c.serve, c.serve_options);

    c.list = c.lobby->add_subcommand("list", "print the lobby's live rooms");
    c.list->add_option("--lobby", c.url, "the lobby's URL")->capture_default_str();
    c.list->add_option("--game", c.game, "only this game");
    c.list->add_option("--core", c.core, "only this core");
    c.list->add_option("--mode", c.mode, "only this mode (framelock, nowait, rollback)");
    c.list->add_flag("--has-slots", c.has_slots, "only rooms with a free player slot");
    c.list->add_flag("--json", c.json, "print the lobby's JSON as it is");
    c.list->add_flag("--no-probe", c.no_probe,
                     "do not probe the relays first (no expected delay per room)");
}

namespace {

// A room's text field for the terminal: safe text (netplay/base/safe_text.h), whatever the
// lobby sent, cut to `max` bytes on a character's boundary.
std::string shown(const nlohmann::json& room, const char* field, std::size_t max = kNoTextLimit) {
    const auto it = room.find(field);
    return it != room.end() && it->is_string() ? safe_text(it->get<std::string>(), max) : "";
}

// "3 frames (41 ms)", or "-" without an estimate (no probes, or the host's own server).
std::string expected_delay_text(const nlohmann::json& room) {
    if (!room.contains("expected_delay") || !room["expected_delay"].is_number_integer()) return "-";
    const int frames = room["expected_delay"].get<int>();
    return fmt::format("{} frame{} ({:.0f} ms)", frames, frames == 1 ? "" : "s",
                       room.value("expected_rtt_ms", 0.0));
}

int list(const LobbyCommand& c) {
    const auto client = lobby_http_client(c.url, 5);
    httplib::Params params;
    if (!c.game.empty()) params.emplace("game", c.game);
    if (!c.core.empty()) params.emplace("core", c.core);
    if (!c.mode.empty()) params.emplace("mode", c.mode);
    if (c.has_slots) params.emplace("has_slots", "1");
    if (!c.no_probe) {
        // This network's round trips to the relays: in the query for this list, and kept by
        // the lobby for a while so that the web page opened from here shows them too.
        const nlohmann::json probes = probe_relays_json(c.url);
        std::string query;
        for (const auto& [id, ms] : probes.items())
            query += fmt::format("{}{}:{:.3f}", query.empty() ? "" : ",", id, ms.get<double>());
        if (!query.empty()) {
            params.emplace("probes", query);
            if (Status posted = post_probes(c.url, probes); !posted)
                framelock::log_warn("lobby: {}", posted.error().message);
        }
    }
    auto res = client->Get("/api/rooms", params, httplib::Headers{});
    if (!res) {
        framelock::log_error("cannot reach the lobby at {}: {}", c.url,
                             httplib::to_string(res.error()));
        return static_cast<int>(ErrorCode::kIo);
    }
    const auto body = nlohmann::json::parse(res->body, nullptr, false);
    if (res->status != 200 || body.is_discarded() || !body.contains("rooms")) {
        framelock::log_error("the lobby at {} answered {}: {}", c.url, res->status,
                             body.is_object() && body.contains("error")
                                 ? body["error"].get<std::string>()
                                 : res->body.substr(0, 200));
        return static_cast<int>(ErrorCode::kProtocol);
    }
    if (c.json) {
        // As it is, but in ASCII: every other character as its JSON escape, so that no
        // control or bidi override reaches the terminal and a program reads the same strings.
        fmt::print("{}\n", body.dump(2, ' ', true));
        return 0;
    }
    fmt::print("{:<6}  {:<24}  {:<16}  {:>7}  {:>5}  {:<9}  {:<20}  {:<7}  {:<16}  {}\n", "CODE",
               "GAME", "HOST", "PLAYERS", "WATCH", "MODE", "CORE", "CHECK", "DELAY", "SERVER");
    for (const auto& r : body["rooms"]) {
        // The core atlas's word on the room's core in its mode, as the lobby decided it: an
        // unsafe room says why on a line of its own, before anyone joins.
        const std::string check = shown(r, "core_verdict");
        fmt::print(
            "{:<6}  {:<24}  {:<16}  {:>3}/{:<3}  {:>5}  {:<9}  {:<20}  {:<7}  {:<16}  {}{}\n",
            shown(r, "code"), shown(r, "game_name", 24), shown(r, "host_name", 16),
            r.value("players", 0), r.value("slots", 0), r.value("spectators", 0), shown(r, "mode"),
            cut_text(shown(r, "core_name") + " " + shown(r, "core_version"), 20),
            check == "unsafe" ? "UNSAFE"
            : check.empty()   ? "-"
                              : check,
            expected_delay_text(r), shown(r, "server_address"),
            r.value("has_password", false) ? " (password)" : "");
        if (check == "unsafe") fmt::print("        ! {}\n", shown(r, "core_verdict_reason", 200));
    }
    fmt::print("{} room{}\n", body["rooms"].size(), body["rooms"].size() == 1 ? "" : "s");
    return 0;
}

}  // namespace

int run_lobby_command(LobbyCommand& c) {
    if (c.serve && c.serve->parsed()) return lobby::run_serve(c.serve_options);
    if (c.list && c.list->parsed()) return list(c);
    return -1;
}

}  // namespace framelock::frontend::lobby_client
