// The replay viewer's model (frontend/player/replay_viewer.h) and keys (viewer_keys.h):
// commands, speeds on elapsed time, the ends, the panel's text (position, pads, the chat at
// the frame shown as safe text, the keys) and the panel's place in the window.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "frontend/player/overlay_model.h"
#include "frontend/player/replay_viewer.h"
#include "frontend/player/viewer_keys.h"
#include "support/build_paths.h"

using namespace framelock::frontend;
using framelock::netplay::ChatLine;
using framelock::netplay::ReplayContents;

namespace {

ViewerInput in(ViewerCommand c, double fraction = 0) {
    return {c, fraction};
}

ReplayContents contents(std::uint64_t frames) {
    ReplayContents c;
    c.header.players = 2;
    c.frames.resize(frames);
    return c;
}

}  // namespace

TEST_CASE("replay viewer keys: each key and button does one thing, the number keys seek by tenths",
          "[viewer]") {
    CHECK(viewer_input_for_key(44)->command == ViewerCommand::kPlayPause);  // Space
    CHECK(viewer_input_for_key(80)->command == ViewerCommand::kStepBack);   // Left
    CHECK(viewer_input_for_key(79)->command == ViewerCommand::kStepForward);
    CHECK(viewer_input_for_key(75)->command == ViewerCommand::kSeekBack);  // Page Up
    CHECK(viewer_input_for_key(78)->command == ViewerCommand::kSeekForward);
    CHECK(viewer_input_for_key(82)->command == ViewerCommand::kFaster);  // Up
    CHECK(viewer_input_for_key(74)->command == ViewerCommand::kStart);   // Home
    CHECK(viewer_input_for_key(77)->command == ViewerCommand::kEnd);
    const auto five = viewer_input_for_key(34);  // "5"
    REQUIRE(five);
    CHECK(five->command == ViewerCommand::kSeekTo);
    CHECK(five->fraction == Approx(0.5));
    CHECK(viewer_input_for_key(39)->fraction == 0.0);  // "0": the start
    CHECK_FALSE(viewer_input_for_key(41));             // Escape stays the quit hotkey
    CHECK_FALSE(viewer_input_for_key(68));             // F11 too
    CHECK(viewer_input_for_pad(PadControl::kA)->command == ViewerCommand::kPlayPause);
    CHECK(viewer_input_for_pad(PadControl::kLeftShoulder)->command == ViewerCommand::kSeekBack);
    CHECK(viewer_input_for_pad(PadControl::kDpadLeft)->command == ViewerCommand::kStepBack);
    CHECK_FALSE(viewer_input_for_pad(PadControl::kGuide));
    CHECK(viewer_key_repeats(ViewerCommand::kStepBack));
    CHECK_FALSE(viewer_key_repeats(ViewerCommand::kPlayPause));
    const auto help = viewer_help_lines();
    CHECK(help.front() == "Space or K, pad A or Start: play / pause");
    CHECK(help.size() == 14);
}

TEST_CASE("replay viewer: play at every speed, pause, step both ways, seek and stop at the ends",
          "[viewer]") {
    ReplayViewer v(100, 100 + 36000, 60);  // ten minutes from frame 100
    CHECK(v.target() == 100);
    CHECK_FALSE(v.playing());
    CHECK(v.tick(1'000'000) == 100);  // paused: time moves nothing
    v.apply(in(ViewerCommand::kPlayPause));
    CHECK(v.sound());
    CHECK(v.tick(1'000'000) == 160);  // a second at 1x
    // A quarter: 60 frames in 4 s, in ticks of a display frame, fractions carried.
    v.apply(in(ViewerCommand::kSlower));
    v.apply(in(ViewerCommand::kSlower));
    CHECK(v.speed() == 0.25);
    CHECK_FALSE(v.sound());
    for (int i = 0; i < 240; ++i) v.tick(16'667);
    CHECK(v.target() == 220);
    for (int i = 0; i < 4; ++i) v.apply(in(ViewerCommand::kFaster));
    CHECK(v.speed() == 4);
    v.apply(in(ViewerCommand::kFaster));  // no faster than 4x
    CHECK(v.speed() == 4);
    CHECK(v.tick(500'000) == 340);
    // Steps pause.
    v.apply(in(ViewerCommand::kStepBack));
    CHECK_FALSE(v.playing());
    CHECK(v.target() == 339);
    v.apply(in(ViewerCommand::kStepForward));
    v.apply(in(ViewerCommand::kStepForward));
    CHECK(v.target() == 341);
    v.apply(in(ViewerCommand::kSeekBack));
    CHECK(v.target() == 100);  // 10 s back from 341: the first frame, no further
    v.apply(in(ViewerCommand::kStepBack));
    CHECK(v.target() == 100);
    v.apply(in(ViewerCommand::kSeekForward));
    CHECK(v.target() == 700);
    v.apply(in(ViewerCommand::kSeekTo, 0.5));
    CHECK(v.target() == 100 + 17'999 + 1);  // half of 100 .. 36099, rounded
    v.apply(in(ViewerCommand::kEnd));
    CHECK(v.target() == 36'099);
    // Play at the end starts over; playing to the end stops there.
    v.apply(in(ViewerCommand::kPlayPause));
    CHECK(v.target() == 100);
    CHECK(v.playing());
    CHECK(v.tick(3'600'000'000) == 36'099);
    CHECK_FALSE(v.playing());
    v.rest_at(5000);
    CHECK(v.target() == 5000);
}

TEST_CASE(
    "replay viewer panel: the position, each player's pad, the chat of the last seconds as "
    "safe text, the keys on demand",
    "[viewer]") {
    ReplayContents c = contents(3600);
    c.frames[1200].inputs.pads[0] = (1u << 4) | (1u << 0) | (1u << 3);  // UP, B, START
    c.chat.push_back(ChatLine{1000, 1, "ann", "gl hf"});
    c.chat.push_back(ChatLine{1100, 2, "bob\x1b]0;x\a", "hi\x1b[2J"});
    c.chat.push_back(ChatLine{3000, 0, "sam", "later"});
    ReplayViewer v(0, 3600, 60);
    v.apply(in(ViewerCommand::kSeekTo, 1200.0 / 3599));
    const ReplayPanel p = v.panel(c, v.target());
    REQUIRE(p.lines.size() == 6);
    CHECK(p.lines[0].text == "replay  paused 1x  frame 1200 of 0 .. 3599  0:20.00 / 0:59.98");
    CHECK(p.lines[1].text == "P1  ↑ · · ·  B · · ·  · ·  ·   START");
    CHECK(p.lines[1].tone == Tone::kGood);
    CHECK(p.lines[2].text == "P2  · · · ·  · · · ·  · ·  ·   ·    ");
    CHECK(p.lines[2].tone == Tone::kDim);
    CHECK(p.lines[3].text == "chat 0:16.66  P1 ann: gl hf");
    CHECK(p.lines[4].text == "chat 0:18.33  P2 bob\\x1b]0;x\\x07: hi\\x1b[2J");
    CHECK(p.lines[5].text == "H: the keys");
    CHECK(p.position == Approx(1200.0 / 3599));
    // Ten seconds on, ann's line is gone; pads hidden; the keys shown.
    v.apply(in(ViewerCommand::kPads));
    v.apply(in(ViewerCommand::kHelp));
    const ReplayPanel later = v.panel(c, 1650);
    CHECK(later.lines[1].text == "chat 0:18.33  P2 bob\\x1b]0;x\\x07: hi\\x1b[2J");
    CHECK(later.lines.size() == 2 + viewer_help_lines().size());
    CHECK(replay_time(216'000, 60) == "60:00.00");
}

TEST_CASE(
    "replay panel layout: across the bottom, the bar under its lines, the messages and the "
    "chat above it",
    "[viewer]") {
    const OverlayLayout plain = layout_overlay(960, 720, 16, 8, {}, 1, 1);
    const OverlayLayout with = layout_overlay(960, 720, 16, 8, {}, 1, 1, 3);
    CHECK(plain.replay.empty());
    REQUIRE(with.replay.size() == 3);
    CHECK(with.replay_panel.x == 0);
    CHECK(with.replay_panel.w == 960);
    CHECK(with.replay_panel.y + with.replay_panel.h == 720);
    CHECK(with.replay[0].y >= with.replay_panel.y);
    CHECK(with.timeline.y > with.replay[2].y + 16 - 1);
    CHECK(with.timeline.y + with.timeline.h <= 720);
    CHECK(with.messages[0].y + 16 <= with.replay_panel.y);
    CHECK(with.chat[0].y < with.messages[0].y);
    CHECK(plain.messages[0].y > with.messages[0].y);
}

TEST_CASE("replay viewer keys: the README lists the keys the window's help lists, one a line",
          "[viewer]") {
    std::ifstream file(framelock::test::build_paths::readme);
    std::stringstream text;
    text << file.rdbuf();
    const std::string readme = text.str();
    const std::string begin = "<!-- viewer-keys:", end = "<!-- /viewer-keys -->";
    const auto from = readme.find(begin), to = readme.find(end);
    REQUIRE(from != std::string::npos);
    REQUIRE(to != std::string::npos);
    const auto first = readme.find('\n', from) + 1;
    std::string expected;
    for (const std::string& line : viewer_help_lines()) expected += "- " + line + "\n";
    INFO("README.md between the viewer-keys markers should be:\n" << expected);
    CHECK(readme.substr(first, to - first) == expected);
}
