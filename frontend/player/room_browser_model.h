// The room browser (`framelock browse`): the lobby's rooms as a list in the player's
// window, a selection moved with Up/Down, a password prompt for locked rooms, and what the
// keys ask for (join, refresh, quit). Pure: no SDL, no HTTP; the window glue feeds it keys
// and room lists and draws the lines it returns with the overlay's text.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "frontend/player/overlay_model.h"

namespace framelock::frontend {

// One room of GET /api/rooms, the fields the browser shows or needs to join.
struct BrowserRoom {
    std::string code;
    std::string game_name;
    std::string host_name;
    std::string core_name;
    std::string mode;
    int players = 0, slots = 0, spectators = 0;
    bool has_password = false;
    std::string server_address;
    // The input delay the lobby expects for this player there (from its relay probes), -1
    // when it has no estimate.
    int expected_delay = -1;
    double expected_rtt_ms = 0;
    // What the lobby's core atlas says of the room's core in its mode: "safe", "unsafe" or
    // "unknown" (empty from an older lobby), and why it is not safe.
    std::string core_verdict;
    std::string core_verdict_reason;

    bool unsafe() const { return core_verdict == "unsafe"; }
    bool full() const { return slots > 0 && players >= slots; }
};

// The lobby's JSON ({"rooms": [...]}) as rooms; nullopt when it is not that shape.
std::optional<std::vector<BrowserRoom>> parse_rooms_json(const std::string& body);

// "CODE  GAME  2/4  mode  delay  host" (delay "3f 41ms" or "-"), columns padded so rows line up,
// with "  full", "  password" and "  UNSAFE" (the core atlas's verdict) appended when they apply.
std::string format_room_row(const BrowserRoom& room);

// Keys as the browser understands them, from the keyboard or a pad.
enum class BrowserKey { kUp, kDown, kAccept, kBack, kRefresh, kBackspace, kText };

struct BrowserAction {
    enum class Kind { kNone, kQuit, kRefresh, kJoin };
    Kind kind = Kind::kNone;
    std::string code;      // kJoin: the room
    std::string password;  // kJoin: what was typed at the prompt (empty without one)
};

class RoomBrowserModel {
  public:
    // Rows of rooms shown at once; the list scrolls to keep the selection among them.
    explicit RoomBrowserModel(std::size_t visible_rows = 12) : m_visible_rows(visible_rows) {}

    // A fresh list from the lobby. The selection follows the room it was on (by code);
    // when that room is gone it stays at the same position, clamped to the new list.
    void set_rooms(std::vector<BrowserRoom> rooms);
    const std::vector<BrowserRoom>& rooms() const { return m_rooms; }

    // Up/Down wrap around the ends of the list.
    void move(int delta);
    // The selected room's index; nullopt while the list is empty.
    std::optional<std::size_t> selected() const;
    const BrowserRoom* selected_room() const;
    // Index of the first row shown.
    std::size_t first_visible() const { return m_first; }

    // One key; `text` is what was typed for BrowserKey::kText. Returns what to do.
    BrowserAction handle(BrowserKey key, const std::string& text = {});
    // The password prompt is open (text keys go to it).
    bool prompting() const { return m_prompt.has_value(); }

    // A line under the list: the lobby's state, a refused join.
    void set_status(std::string text, Tone tone) {
        m_status = std::move(text);
        m_status_tone = tone;
    }

    // Everything to draw, top to bottom: title, column header, the visible rows (the
    // selected one marked "> "), scroll hints, the prompt or status, and the keys.
    std::vector<OverlayLine> lines(const std::string& lobby_url) const;
    // Index into lines() of the selected row, or -1 (for highlighting).
    int selected_line() const;

  private:
    void keep_visible();

    std::size_t m_visible_rows;
    std::vector<BrowserRoom> m_rooms;
    std::size_t m_selected = 0;
    std::size_t m_first = 0;
    std::optional<std::string> m_prompt;  // the password typed so far
    std::string m_status;
    Tone m_status_tone = Tone::kDim;
};

}  // namespace framelock::frontend
