#include "frontend/app/lobby_adapter.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>

#include "frontend/session/session_identity.h"
#include "netplay/base/safe_text.h"

namespace framelock::frontend {
namespace {

// Text for the lobby's fields: safe text (netplay/base/safe_text.h, what the lobby takes),
// cut to the API's limits; with `keep`, only letters, digits and those characters.
std::string lobby_text(std::string text, std::size_t max, const char* keep = "") {
    if (*keep) {
        for (char& c : text) {
            const bool alnum =
                (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            if (!alnum && !std::strchr(keep, c)) c = '-';
        }
    }
    return safe_text(text, max);
}

}  // namespace

nlohmann::json room_body(const JoinArgs& args, const ServerArgs& server_args,
                         const RetroEmulator& emulator, const std::string& server_address,
                         const std::string& server_key) {
    const netplay::SessionIdentity id = session_identity(emulator);
    const std::string game = !server_args.game.empty() ? server_args.game
                             : !args.host.content.empty()
                                 ? std::filesystem::path(args.host.content).filename().string()
                                 : id.core_name;
    nlohmann::json body{
        {"host_name",
         lobby_text(args.name.empty() ? JoinArgs::default_player_name() : args.name, 64)},
        {"game_name", lobby_text(game, 128)},
        {"content_hash", fmt::format("{:016x}", id.content_hash)},
        {"core_name", lobby_text(id.core_name, 64, "_.- ")},
        {"core_version", lobby_text(id.core_version, 32)},
        {"mode", server_args.mode},
        {"slots", server_args.slot_count()},
        {"region", server_args.region}};
    if (!server_args.password.empty()) body["password"] = server_args.password;
    if (!server_address.empty()) {
        body["server_address"] = server_address;
        body["server_key"] = server_key;
    }
    return body;
}

// A player's session, with the session's server in this process when `server_args` is given

bool LobbyFeed::before_step() {
    const bool quit = m_inner && m_inner->before_step();
    return quit || !m_moved_to.empty();
}

std::string LobbyFeed::stop_reason() const {
    if (m_moved_to.empty()) return RealtimeObserver::stop_reason();
    return "the lobby moved the room to the relay " + m_moved_to;
}

void LobbyFeed::after_step() {
    if (m_inner) m_inner->after_step();
    const netplay::Micros now = m_clock.now_us();
    if (upnp && keeper && !m_upnp_announced && upnp->done()) {
        m_upnp_announced = true;
        if (const std::string mapped = upnp->external_address(); !mapped.empty())
            keeper->set_address(mapped);
    }
    if (rendezvous && rendezvous_server) {
        rendezvous_server->with_socket(
            0, [&](netplay::EnetTransport& socket) { rendezvous->step(socket, now); });
    } else if (rendezvous && rendezvous_socket) {
        rendezvous->step(*rendezvous_socket, now);
    }
    if (now >= m_next_move_check && (rendezvous || keeper)) {
        m_next_move_check = now + 50'000;
        std::string move = rendezvous ? rendezvous->move_to() : std::string();
        if (move.empty() && keeper) move = keeper->moved_to();
        if (!move.empty() && move != playing_on && m_moved_to.empty() && client) {
            // Only before the start: a running session is not moved under its players.
            const auto state = client->client().state();
            const bool waiting = (state == netplay::Client::State::kIdle ||
                                  state == netplay::Client::State::kConnecting ||
                                  state == netplay::Client::State::kLobby) &&
                                 !client->client().receiving_start_state();
            if (waiting) m_moved_to = move;
        }
    }
    if (now < m_next) return;
    m_next = now + 200'000;
    if (keeper && client) keeper->set_players(std::popcount(client->client().present_slots()));
    if (announcer && server) {
        const auto busy = server->sessions_busy();
        for (std::size_t i = 0; i < busy.size(); ++i) announcer->set_load(i, busy[i] ? 1 : 0);
    }
}

netplay::Micros LobbyFeed::next_wakeup(netplay::Micros now) const {
    const netplay::Micros inner = m_inner ? m_inner->next_wakeup(now) : now + 1'000'000;
    const netplay::Micros punch = rendezvous ? rendezvous->next_due() : inner;
    return std::min({inner, m_next, punch});
}

}  // namespace framelock::frontend
