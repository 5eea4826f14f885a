// The room browser's list without a window: selection, scrolling, rows, the password
// prompt, and what happens when the lobby's list changes under the cursor.
#include <catch2/catch.hpp>

#include "frontend/player/room_browser_model.h"

using namespace framelock::frontend;
using Kind = BrowserAction::Kind;

namespace {

BrowserRoom room(const std::string& code, int players = 1, int slots = 2, bool password = false) {
    BrowserRoom r;
    r.code = code;
    r.game_name = "Game " + code;
    r.host_name = "host" + code;
    r.mode = "framelock";
    r.players = players;
    r.slots = slots;
    r.has_password = password;
    r.server_address = "127.0.0.1:" + code;
    return r;
}

std::vector<BrowserRoom> rooms(std::initializer_list<const char*> codes) {
    std::vector<BrowserRoom> out;
    for (const char* c : codes) out.push_back(room(c));
    return out;
}

std::string selected_code(const RoomBrowserModel& m) {
    return m.selected_room() ? m.selected_room()->code : "";
}

}  // namespace

TEST_CASE("Room browser: rows read CODE GAME players/slots mode delay host, marks full and locked",
          "[unit][browser]") {
    BrowserRoom r = room("ABC123", 2, 4);
    r.game_name = "Arcade";
    r.host_name = "alice";
    CHECK(format_room_row(r) ==
          "ABC123  Arcade                  2/4  framelock  -           alice");
    r.players = 4;
    r.has_password = true;
    CHECK(format_room_row(r) ==
          "ABC123  Arcade                  4/4  framelock  -           alice  full  password");
    // The delay the lobby expects for this player there (its relay probes).
    r.expected_delay = 3;
    r.expected_rtt_ms = 41.4;
    CHECK(format_room_row(r) ==
          "ABC123  Arcade                  4/4  framelock  3f 41ms     alice  full  password");
    // A long name is cut so the columns after it stay in place.
    r.game_name = std::string(40, 'x');
    CHECK(format_room_row(r).rfind("ABC123  " + std::string(20, 'x') + "    4/4  framelock", 0) ==
          0);
}

TEST_CASE("Room browser: the lobby's expected delay is read when it is there", "[unit][browser]") {
    const auto rooms =
        parse_rooms_json(R"({"rooms":[{"code":"AAAAAA","expected_delay":4,"expected_rtt_ms":60.5},)"
                         R"({"code":"BBBBBB"},{"code":"CCCCCC","expected_delay":"x"}]})");
    REQUIRE(rooms);
    REQUIRE(rooms->size() == 3);
    CHECK((*rooms)[0].expected_delay == 4);
    CHECK((*rooms)[0].expected_rtt_ms == 60.5);
    CHECK((*rooms)[1].expected_delay == -1);
    CHECK((*rooms)[2].expected_delay == -1);
}

TEST_CASE(
    "Room browser: a room whose core the atlas finds unsafe in its mode is marked, and "
    "says why once selected",
    "[unit][browser]") {
    const auto parsed = parse_rooms_json(
        R"({"rooms":[{"code":"SAFE01","mode":"framelock","core_verdict":"safe"},)"
        R"({"code":"RISKY1","mode":"hybrid","core_verdict":"unsafe","core_verdict_reason":)"
        R"("the core atlas found Nestopia 1.52.0 safe in the frame lock only: roundtrip 1"}]})");
    REQUIRE(parsed);
    REQUIRE(parsed->size() == 2);
    CHECK((*parsed)[0].core_verdict == "safe");
    CHECK_FALSE((*parsed)[0].unsafe());
    CHECK((*parsed)[1].unsafe());
    CHECK(format_room_row((*parsed)[1]).substr(format_room_row((*parsed)[1]).size() - 8) ==
          "  UNSAFE");
    RoomBrowserModel m;
    m.set_rooms(*parsed);
    const auto warning = [&] {
        for (const auto& line : m.lines("http://lobby"))
            if (line.text.rfind("  ! ", 0) == 0) return line.text;
        return std::string();
    };
    CHECK(warning().empty());  // the safe room is selected
    m.move(1);
    CHECK(warning() ==
          "  ! the core atlas found Nestopia 1.52.0 safe in the frame lock only: roundtrip 1");
}

TEST_CASE("Room browser: fields of the wrong type from a hostile lobby read as missing",
          "[unit][browser][hostile]") {
    const auto parsed = parse_rooms_json(
        R"({"rooms":[{"code":"TYPES1","core_verdict":5,"core_verdict_reason":[1],)"
        R"("game_name":{},"players":"x","slots":2.5,"has_password":"yes","mode":null,)"
        R"("expected_delay":3,"expected_rtt_ms":"fast"}]})");
    REQUIRE(parsed);
    REQUIRE(parsed->size() == 1);
    const BrowserRoom& room = (*parsed)[0];
    CHECK(room.code == "TYPES1");
    CHECK(room.core_verdict.empty());
    CHECK(room.core_verdict_reason.empty());
    CHECK(room.game_name.empty());
    CHECK(room.players == 0);
    CHECK(room.slots == 0);
    CHECK_FALSE(room.has_password);
    CHECK(room.expected_delay == 3);
    CHECK(room.expected_rtt_ms == 0.0);
}

TEST_CASE("Room browser: Up/Down wrap at the ends, an empty list has no selection",
          "[unit][browser]") {
    RoomBrowserModel m;
    CHECK_FALSE(m.selected());
    CHECK(m.handle(BrowserKey::kDown).kind == Kind::kNone);
    CHECK(m.handle(BrowserKey::kAccept).kind == Kind::kNone);
    m.set_rooms(rooms({"A", "B", "C"}));
    REQUIRE(m.selected() == 0u);
    m.handle(BrowserKey::kUp);
    CHECK(selected_code(m) == "C");
    m.handle(BrowserKey::kDown);
    CHECK(selected_code(m) == "A");
    m.handle(BrowserKey::kDown);
    const BrowserAction join = m.handle(BrowserKey::kAccept);
    CHECK(join.kind == Kind::kJoin);
    CHECK(join.code == "B");
    CHECK(join.password.empty());
    CHECK(m.handle(BrowserKey::kRefresh).kind == Kind::kRefresh);
    CHECK(m.handle(BrowserKey::kBack).kind == Kind::kQuit);
}

TEST_CASE("Room browser: a refresh keeps the selected room, or the place of one that left",
          "[unit][browser]") {
    RoomBrowserModel m;
    m.set_rooms(rooms({"A", "B", "C", "D"}));
    m.move(2);
    REQUIRE(selected_code(m) == "C");
    // New rooms above it: still on C.
    m.set_rooms(rooms({"X", "A", "B", "C", "D"}));
    CHECK(selected_code(m) == "C");
    // C gone: the room after it takes its place.
    m.set_rooms(rooms({"X", "A", "B", "D"}));
    CHECK(selected_code(m) == "D");
    // D, the last, gone: clamped to the new last.
    m.set_rooms(rooms({"X", "A"}));
    CHECK(selected_code(m) == "A");
    // Everything gone, then back: no selection, then the first.
    m.set_rooms({});
    CHECK_FALSE(m.selected());
    CHECK(m.selected_line() == -1);
    m.set_rooms(rooms({"Q", "R"}));
    CHECK(selected_code(m) == "Q");
}

TEST_CASE("Room browser: the list scrolls to keep the selection among the visible rows",
          "[unit][browser]") {
    RoomBrowserModel m(3);
    m.set_rooms(rooms({"A", "B", "C", "D", "E"}));
    CHECK(m.first_visible() == 0);
    m.move(3);  // D
    CHECK(m.first_visible() == 1);
    auto lines = m.lines("http://lobby");
    CHECK(lines[2].text == "  ^ 1 more");
    CHECK(lines[m.selected_line()].text.rfind("> D", 0) == 0);
    CHECK(lines[m.selected_line()].tone == Tone::kGood);
    CHECK(lines[3 + 3].text == "  v 1 more");
    m.move(1);  // E, then wrap to A
    CHECK(m.first_visible() == 2);
    m.move(1);
    CHECK(m.first_visible() == 0);
    // The list shrinks below the scroll position: no blank rows at the bottom.
    m.move(4);
    m.set_rooms(rooms({"A", "B", "C", "E"}));
    CHECK(selected_code(m) == "E");
    CHECK(m.first_visible() == 1);
}

TEST_CASE("Room browser: a locked room asks for its password first", "[unit][browser]") {
    RoomBrowserModel m;
    m.set_rooms({room("OPEN"), room("LOCK", 1, 2, true)});
    m.move(1);
    CHECK(m.handle(BrowserKey::kAccept).kind == Kind::kNone);
    REQUIRE(m.prompting());
    // Keys that mean something in the list are ignored while typing.
    CHECK(m.handle(BrowserKey::kRefresh).kind == Kind::kNone);
    m.handle(BrowserKey::kText, "se");
    m.handle(BrowserKey::kText, "cr");
    m.handle(BrowserKey::kBackspace);
    m.handle(BrowserKey::kText, "ret");
    CHECK(m.lines("u")[m.lines("u").size() - 2].text == "password for LOCK: ******_");
    const BrowserAction join = m.handle(BrowserKey::kAccept);
    CHECK(join.kind == Kind::kJoin);
    CHECK(join.code == "LOCK");
    CHECK(join.password == "secret");
    CHECK_FALSE(m.prompting());
    // Esc closes the prompt without quitting; the room leaving closes it too.
    m.handle(BrowserKey::kAccept);
    CHECK(m.handle(BrowserKey::kBack).kind == Kind::kNone);
    CHECK_FALSE(m.prompting());
    m.handle(BrowserKey::kAccept);
    m.set_rooms({room("OPEN")});
    CHECK_FALSE(m.prompting());
}

TEST_CASE("Room browser: the lobby's JSON", "[unit][browser]") {
    const auto parsed = parse_rooms_json(
        R"({"rooms":[{"id":1,"code":"K7Q2PX","host_name":"alice","game_name":"Arcade",)"
        R"("core_name":"framelock arcade","mode":"rollback","players":1,"slots":2,)"
        R"("spectators":0,"has_password":true,"server_address":"10.0.0.2:7000","extra":1}]})");
    REQUIRE(parsed);
    REQUIRE(parsed->size() == 1);
    const BrowserRoom& r = parsed->front();
    CHECK(r.code == "K7Q2PX");
    CHECK(r.mode == "rollback");
    CHECK(r.has_password);
    CHECK(r.server_address == "10.0.0.2:7000");
    CHECK_FALSE(parse_rooms_json("not json"));
    CHECK_FALSE(parse_rooms_json(R"({"error":"rate limited"})"));
}

TEST_CASE("Room browser: a lobby's controls and bidi overrides are shown escaped",
          "[unit][browser][hostile]") {
    // Whatever a lobby sends (an older one took them, a hostile one sends anything), the
    // window's rows hold safe text (netplay/base/safe_text.h).
    const auto rooms = parse_rooms_json(
        R"({"rooms": [{"code": "EVIL01", "game_name": "Evil\u001b[2J\u202egame",
                       "host_name": "\u009b31mroot", "core_name": "fbneo", "mode": "frame\nlock",
                       "players": 1, "slots": 2}]})");
    REQUIRE(rooms);
    REQUIRE(rooms->size() == 1);
    const BrowserRoom& r = rooms->front();
    CHECK(r.game_name == "Evil\\x1b[2J\\u202egame");
    CHECK(r.host_name == "\\u009b31mroot");
    CHECK(format_room_row(r) ==
          "EVIL01  Evil\\x1b[2J\\u202egam    1/2  frame\\x0a  -           \\u009b31mroot");
}
