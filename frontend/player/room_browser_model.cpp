#include "frontend/player/room_browser_model.h"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "netplay/base/safe_text.h"

namespace framelock::frontend {
namespace {

// Cuts to `width` bytes on a character's boundary (netplay/base/safe_text.h), so a long game
// name cannot push the columns after it out of line or leave half a character for the font.
std::string clip(const std::string& text, std::size_t width) {
    return cut_text(text, width);
}

void pop_utf8(std::string& text) {
    while (!text.empty()) {
        const auto byte = static_cast<unsigned char>(text.back());
        text.pop_back();
        if ((byte & 0xC0) != 0x80) break;
    }
}

}  // namespace

std::optional<std::vector<BrowserRoom>> parse_rooms_json(const std::string& body) {
    const auto json = nlohmann::json::parse(body, nullptr, false);
    if (json.is_discarded() || !json.is_object() || !json.contains("rooms") ||
        !json["rooms"].is_array())
        return std::nullopt;
    std::vector<BrowserRoom> rooms;
    for (const auto& r : json["rooms"]) {
        if (!r.is_object()) return std::nullopt;
        BrowserRoom room;
        // Defaults for what is missing or of another type: a lobby newer or older than this
        // client may add or drop fields, a hostile one send anything; only the code is needed
        // to join. What the window shows is safe text, whatever the lobby sent (safe_text.h).
        const auto text = [&r](const char* key) {
            const auto it = r.find(key);
            return it != r.end() && it->is_string() ? it->get<std::string>() : std::string();
        };
        const auto integer = [&r](const char* key) {
            const auto it = r.find(key);
            return it != r.end() && it->is_number_integer() ? it->get<int>() : 0;
        };
        room.code = text("code");
        room.game_name = safe_text(text("game_name"));
        room.host_name = safe_text(text("host_name"));
        room.core_name = safe_text(text("core_name"));
        room.mode = safe_text(text("mode"));
        room.players = integer("players");
        room.slots = integer("slots");
        room.spectators = integer("spectators");
        room.has_password = r.contains("has_password") && r["has_password"].is_boolean() &&
                            r["has_password"].get<bool>();
        room.server_address = text("server_address");
        room.core_verdict = safe_text(text("core_verdict"));
        room.core_verdict_reason = safe_text(text("core_verdict_reason"));
        if (r.contains("expected_delay") && r["expected_delay"].is_number_integer()) {
            room.expected_delay = r["expected_delay"].get<int>();
            const auto rtt = r.find("expected_rtt_ms");
            room.expected_rtt_ms = rtt != r.end() && rtt->is_number() ? rtt->get<double>() : 0.0;
        }
        if (room.code.empty()) continue;
        rooms.push_back(std::move(room));
    }
    return rooms;
}

std::string format_room_row(const BrowserRoom& room) {
    const std::string delay =
        room.expected_delay < 0
            ? "-"
            : fmt::format("{}f {:.0f}ms", room.expected_delay, room.expected_rtt_ms);
    std::string row =
        fmt::format("{:<6}  {:<20}  {:>5}  {:<9}  {:<10}  {}", safe_text(room.code),
                    clip(room.game_name, 20), fmt::format("{}/{}", room.players, room.slots),
                    clip(room.mode, 9), clip(delay, 10), clip(room.host_name, 16));
    if (room.full()) row += "  full";
    if (room.has_password) row += "  password";
    if (room.unsafe()) row += "  UNSAFE";
    return row;
}

void RoomBrowserModel::set_rooms(std::vector<BrowserRoom> rooms) {
    std::optional<std::string> was;
    if (const BrowserRoom* room = selected_room()) was = room->code;
    m_rooms = std::move(rooms);
    if (was) {
        const auto it = std::find_if(m_rooms.begin(), m_rooms.end(),
                                     [&](const BrowserRoom& r) { return r.code == *was; });
        if (it != m_rooms.end()) m_selected = static_cast<std::size_t>(it - m_rooms.begin());
    }
    // The room under the cursor left: the next one moves up into its place (or the last
    // one, when it was at the end), rather than jumping back to the top.
    if (!m_rooms.empty())
        m_selected = std::min(m_selected, m_rooms.size() - 1);
    else
        m_selected = 0;
    // A prompt for a room that is gone would join something else: close it.
    if (m_prompt && (!was || !selected_room() || selected_room()->code != *was)) m_prompt.reset();
    keep_visible();
}

void RoomBrowserModel::move(int delta) {
    if (m_rooms.empty()) return;
    const auto n = static_cast<long>(m_rooms.size());
    long next = (static_cast<long>(m_selected) + delta) % n;
    if (next < 0) next += n;
    m_selected = static_cast<std::size_t>(next);
    keep_visible();
}

std::optional<std::size_t> RoomBrowserModel::selected() const {
    if (m_rooms.empty()) return std::nullopt;
    return m_selected;
}

const BrowserRoom* RoomBrowserModel::selected_room() const {
    return m_rooms.empty() ? nullptr : &m_rooms[m_selected];
}

void RoomBrowserModel::keep_visible() {
    const std::size_t rows = std::max<std::size_t>(m_visible_rows, 1);
    if (m_selected < m_first) m_first = m_selected;
    if (m_selected >= m_first + rows) m_first = m_selected + 1 - rows;
    // A shorter list: show as many rows as fit rather than blank space under the end.
    const std::size_t max_first = m_rooms.size() > rows ? m_rooms.size() - rows : 0;
    m_first = std::min(m_first, max_first);
}

BrowserAction RoomBrowserModel::handle(BrowserKey key, const std::string& text) {
    using Kind = BrowserAction::Kind;
    if (m_prompt) {
        switch (key) {
            case BrowserKey::kText:
                *m_prompt += text;
                break;
            case BrowserKey::kBackspace:
                pop_utf8(*m_prompt);
                break;
            case BrowserKey::kBack:
                m_prompt.reset();
                break;
            case BrowserKey::kAccept: {
                BrowserAction join{Kind::kJoin, selected_room() ? selected_room()->code : "",
                                   *m_prompt};
                m_prompt.reset();
                if (join.code.empty()) return {};
                return join;
            }
            default:
                // Up/Down/R are letters or noise while typing a password.
                break;
        }
        return {};
    }
    switch (key) {
        case BrowserKey::kUp:
            move(-1);
            return {};
        case BrowserKey::kDown:
            move(1);
            return {};
        case BrowserKey::kRefresh:
            return {Kind::kRefresh, {}, {}};
        case BrowserKey::kBack:
            return {Kind::kQuit, {}, {}};
        case BrowserKey::kAccept: {
            const BrowserRoom* room = selected_room();
            if (!room) return {};
            if (room->has_password) {
                m_prompt = std::string();
                return {};
            }
            return {Kind::kJoin, room->code, {}};
        }
        case BrowserKey::kBackspace:
        case BrowserKey::kText:
            return {};
    }
    return {};
}

namespace {
// lines(): title, header, "more above", then the rows.
constexpr int kFirstRowLine = 3;
}  // namespace

std::vector<OverlayLine> RoomBrowserModel::lines(const std::string& lobby_url) const {
    std::vector<OverlayLine> out;
    out.push_back({fmt::format("framelock - rooms at {}", lobby_url), Tone::kGood});
    out.push_back({fmt::format("  {:<6}  {:<20}  {:>5}  {:<9}  {:<10}  {}", "CODE", "GAME", "PLAY",
                               "MODE", "DELAY", "HOST"),
                   Tone::kDim});
    out.push_back({m_first > 0 ? fmt::format("  ^ {} more", m_first) : std::string(), Tone::kDim});
    const std::size_t rows = std::max<std::size_t>(m_visible_rows, 1);
    const std::size_t end = std::min(m_rooms.size(), m_first + rows);
    for (std::size_t i = m_first; i < end; ++i) {
        const BrowserRoom& room = m_rooms[i];
        const bool on = i == m_selected;
        const Tone tone = on ? Tone::kGood : room.full() ? Tone::kDim : Tone::kNormal;
        out.push_back({(on ? "> " : "  ") + format_room_row(room), tone});
    }
    if (m_rooms.empty()) out.push_back({"  no rooms yet", Tone::kDim});
    out.push_back(
        {end < m_rooms.size() ? fmt::format("  v {} more", m_rooms.size() - end) : std::string(),
         Tone::kDim});
    // The selected room's core is unsafe in its mode: why, before the player joins.
    if (const BrowserRoom* room = selected_room(); room && room->unsafe())
        out.push_back({"  ! " + clip(room->core_verdict_reason, 150), Tone::kWarning});
    if (m_prompt) {
        out.push_back(
            {fmt::format("password for {}: {}_", selected_room() ? selected_room()->code : "?",
                         std::string(m_prompt->size(), '*')),
             Tone::kWarning});
        out.push_back({"Enter: join   Esc: cancel", Tone::kDim});
    } else {
        out.push_back({m_status, m_status_tone});
        out.push_back({"Up/Down: select   Enter/A: join   R: refresh   Esc: quit", Tone::kDim});
    }
    return out;
}

int RoomBrowserModel::selected_line() const {
    if (m_rooms.empty()) return -1;
    return kFirstRowLine + static_cast<int>(m_selected - m_first);
}

}  // namespace framelock::frontend
