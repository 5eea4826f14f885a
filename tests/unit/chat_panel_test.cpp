// The window's chat model (frontend/player/chat_panel.h) and the chat's pieces a player's
// session uses (frontend/session/session_chat.h): what shows when, the line typed, the
// history scrolled, the rows' place in the window, --say's FRAME:TEXT, a line as shown.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "frontend/player/chat_panel.h"
#include "frontend/player/overlay_model.h"
#include "frontend/session/session_chat.h"

using namespace framelock::frontend;

namespace {

std::vector<std::string> texts(const std::vector<OverlayLine>& rows) {
    std::vector<std::string> out;
    for (const auto& row : rows) out.push_back(row.text);
    return out;
}

constexpr framelock::netplay::Micros kSecond = 1'000'000;

}  // namespace

TEST_CASE("Chat panel: new lines show for 10 s, five at most, and typing shows the history",
          "[frontend][chat]") {
    ChatPanel panel;
    CHECK(panel.rows(0).empty());
    for (int i = 0; i < 7; ++i) panel.add("line " + std::to_string(i), Tone::kNormal, i * kSecond);
    // At 7 s: lines 2-6 (five), the oldest first.
    CHECK(texts(panel.rows(7 * kSecond)) ==
          std::vector<std::string>{"line 2", "line 3", "line 4", "line 5", "line 6"});
    // At 14.5 s: lines 5 and 6 are younger than 10 s.
    CHECK(texts(panel.rows(14 * kSecond + kSecond / 2)) ==
          std::vector<std::string>{"line 5", "line 6"});
    CHECK(panel.rows(30 * kSecond).empty());
    // Typing: every line kept (up to the history's rows), then the line typed.
    panel.open_line();
    REQUIRE(panel.typing());
    const auto rows = texts(panel.rows(30 * kSecond));
    REQUIRE(rows.size() == 8);
    CHECK(rows.front() == "line 0");
    CHECK(rows.back() == "say: _");
}

TEST_CASE(
    "Chat panel: the typed line takes text, loses whole characters to Backspace, and is "
    "sent by Enter",
    "[frontend][chat]") {
    ChatPanel panel;
    panel.type("ignored");  // closed: nothing is typed
    panel.open_line();
    panel.type("gg ");
    panel.type("\xc3\xa9\xe2\x82\xac");  // é and €: 2 and 3 bytes
    CHECK(panel.typed() == "gg \xc3\xa9\xe2\x82\xac");
    panel.backspace();
    CHECK(panel.typed() == "gg \xc3\xa9");
    panel.backspace();
    CHECK(panel.typed() == "gg ");
    // What is typed shows as safe text; a control pasted in is written out.
    panel.type("\x1b[2J");
    CHECK(panel.rows(0).back().text == "say: gg \\x1b[2J_");
    CHECK(panel.submit() == std::optional<std::string>("gg \x1b[2J"));
    CHECK_FALSE(panel.typing());
    // Nothing but spaces sends nothing; Escape drops what was typed.
    panel.open_line();
    panel.type("   ");
    CHECK_FALSE(panel.submit().has_value());
    panel.open_line();
    panel.type("draft");
    panel.close_line();
    panel.open_line();
    CHECK(panel.typed().empty());
    // A line is at most the server's 160 bytes.
    panel.type(std::string(150, 'x'));
    panel.type("0123456789");
    CHECK(panel.typed().size() == ChatPanel::kMaxTypedBytes);
    panel.type("\xc3\xa9");  // é: two bytes more than fit, not typed
    CHECK(panel.typed().size() == ChatPanel::kMaxTypedBytes);
}

TEST_CASE("Chat panel: Page Up and Page Down scroll the history while typing", "[frontend][chat]") {
    ChatPanel panel;
    for (int i = 0; i < 30; ++i) panel.add("line " + std::to_string(i), Tone::kNormal, 0);
    panel.open_line();
    auto rows = texts(panel.rows(0));
    REQUIRE(rows.size() == ChatPanel::kHistoryRows + 1);
    CHECK(rows.front() == "line 18");
    CHECK(rows[rows.size() - 2] == "line 29");
    panel.scroll(11);
    rows = texts(panel.rows(0));
    CHECK(rows.front() == "(11 newer below: Page Down)");
    CHECK(rows[1] == "line 7");
    CHECK(rows[rows.size() - 2] == "line 18");
    panel.scroll(100);  // no further than the oldest
    CHECK(texts(panel.rows(0))[1] == "line 0");
    panel.scroll(-100);
    CHECK(texts(panel.rows(0)).front() == "line 18");
}

TEST_CASE("Chat rows sit above the session's messages at the bottom left", "[frontend][chat]") {
    const OverlayLayout none = layout_overlay(960, 672, 17, 8, {}, 0, 2);
    REQUIRE(none.chat.size() == 2);
    CHECK(none.chat[0] == Point{8, 672 - 8 - 34});
    CHECK(none.chat[1] == Point{8, 672 - 8 - 17});
    const OverlayLayout two = layout_overlay(960, 672, 17, 8, {}, 2, 1);
    REQUIRE(two.messages.size() == 2);
    REQUIRE(two.chat.size() == 1);
    CHECK(two.chat[0].y + 17 <= two.messages[0].y);
}

TEST_CASE("Chat: --say takes FRAME:TEXT, and a line shows its sender's slot before the name",
          "[frontend][chat]") {
    auto said = parse_scripted_chat("120:gl hf: have fun");
    REQUIRE(said.ok());
    CHECK(said.value().frame == 120);
    CHECK(said.value().text == "gl hf: have fun");
    CHECK_FALSE(parse_scripted_chat("gl hf").ok());
    CHECK_FALSE(parse_scripted_chat(":gl hf").ok());
    CHECK_FALSE(parse_scripted_chat("12x:gl hf").ok());
    CHECK_FALSE(parse_scripted_chat("120:   ").ok());
    using framelock::netplay::chat_line_text;
    CHECK(chat_line_text({5, 2, "bob", "gg"}) == "P2 bob: gg");
    CHECK(chat_line_text({5, 0, "sam", "go"}) == "spectator sam: go");
    CHECK(chat_line_text({5, framelock::netplay::kChatFromServer, "", "not sent"}) ==
          "server: not sent");
    // A player named "server" cannot pose as the server's notice.
    CHECK(chat_line_text({5, 1, "server", "not sent"}) == "P1 server: not sent");
}
