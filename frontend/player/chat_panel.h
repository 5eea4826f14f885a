// The window's chat (the session's side: frontend/session/session_chat.h): the lines said,
// shown over the game for a few seconds as they come; the chat line the player types into,
// opened with the chat key (T), sent with Enter, dropped with Escape; and, while it is open,
// the history, scrolled with Page Up and Page Down. Pure: text rows the SDL overlay draws at
// the bottom left, above the session's messages.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "frontend/player/overlay_line.h"
#include "netplay/interfaces/clock.h"

namespace framelock::frontend {

class ChatPanel {
  public:
    static constexpr netplay::Micros kShowUs = 10'000'000;  // a new line stays this long
    static constexpr std::size_t kRecentRows = 5;           // new lines shown at once, at most
    static constexpr std::size_t kHistoryRows = 12;         // rows of history while typing
    static constexpr std::size_t kHistory = 200;            // lines kept to scroll back to
    static constexpr std::size_t kMaxTypedBytes = 160;      // the server's kMaxChatBytes

    // A line to show (safe text: a chat line "name: text", or an answer to the player).
    void add(std::string text, Tone tone, netplay::Micros now);

    bool typing() const { return m_typing; }
    void open_line();
    void close_line();  // drops what was typed
    // Typed text (UTF-8), appended when all of it fits in kMaxTypedBytes.
    void type(const std::string& text);
    void backspace();  // removes the last character (a whole UTF-8 sequence)
    // Enter: what was typed (nullopt when nothing), and the line closes.
    std::optional<std::string> submit();
    // Page Up (+rows) and Page Down (-rows) through the history while typing.
    void scroll(int rows);
    const std::string& typed() const { return m_typed; }

    // What to draw now, top to bottom: while typing, up to kHistoryRows of history (scrolled)
    // then the chat line ("say: ...|"); else the newest lines of the last kShowUs, at most
    // kRecentRows.
    std::vector<OverlayLine> rows(netplay::Micros now) const;

  private:
    struct Line {
        std::string text;
        Tone tone = Tone::kNormal;
        netplay::Micros at = 0;
    };
    std::deque<Line> m_lines;
    bool m_typing = false;
    std::string m_typed;
    std::size_t m_scroll = 0;  // rows up from the newest
};

}  // namespace framelock::frontend
