#include <catch2/catch.hpp>

#include "frontend/player/netplay_view.h"
#include "frontend/player/overlay_model.h"

using namespace framelock::frontend;

TEST_CASE("Overlay: graph series keep the newest samples", "[frontend][overlay]") {
    GraphSeries series(3);
    for (const double v : {1.0, 5.0, 2.0, 4.0}) series.push(v);
    CHECK(series.values() == std::deque<double>{5.0, 2.0, 4.0});
    CHECK(series.max() == 5.0);
}

TEST_CASE("Overlay: nice graph tops", "[frontend][overlay]") {
    CHECK(nice_ceiling(0, 20) == 20);
    CHECK(nice_ceiling(13, 20) == 20);
    CHECK(nice_ceiling(21, 20) == 50);
    CHECK(nice_ceiling(73, 20) == 100);
    CHECK(nice_ceiling(101, 20) == 200);
    CHECK(nice_ceiling(20, 20) == 20);
    CHECK(nice_ceiling(0.3) == 1);
}

TEST_CASE("Overlay: graph points, newest on the right, values scaled to the top",
          "[frontend][overlay]") {
    GraphSeries series(5);
    series.push(0);
    series.push(50);
    series.push(100);
    series.push(200);                  // above the top: clamped
    const Rect area{10, 20, 101, 51};  // x 10..110, y 20..70
    const auto points = graph_points(series, area, 100);
    REQUIRE(points.size() == 4);
    CHECK(points[3] == Point{110, 20});  // newest, clamped to the top edge
    CHECK(points[2] == Point{85, 20});   // 100 of 100
    CHECK(points[1] == Point{60, 45});   // half way up
    CHECK(points[0] == Point{35, 70});   // zero on the bottom edge
    CHECK(graph_points(GraphSeries(5), area, 100).empty());
}

TEST_CASE("Overlay: text lines of a running session", "[frontend][overlay]") {
    SessionStatus s;
    s.slot = 1;
    s.players = 2;
    s.running = true;
    s.frame_ms = 1000.0 / 60;
    s.rtt_ms = 23.44;
    s.rttvar_ms = 2.06;
    s.delay_frames = 3;
    s.frame = 1234;
    s.stall_frames = 5;
    s.stall_events = 2;
    s.peers = {{1, "alice", PeerStatus::State::kYou, 21.0},
               {2, "bob", PeerStatus::State::kLeft, -1}};
    auto lines = overlay_lines(s);
    REQUIRE(lines.size() == 7);
    CHECK(lines[0].text == "netplay  slot 1 of 2");
    CHECK(lines[1].text == "ping   23.4 ms (var 2.1 ms)");
    CHECK(lines[2].text == "delay  3 frames (50 ms)");
    CHECK(lines[3].text == "stalls 5 frames in 2 waits");
    CHECK(lines[3].tone == Tone::kWarning);
    CHECK(lines[4].text == "frame  1234");
    CHECK(lines[5].text == "P1 alice      you       21.0 ms");
    CHECK(lines[5].tone == Tone::kGood);
    CHECK(lines[6].text == "P2 bob        left    ");
    CHECK(lines[6].tone == Tone::kWarning);
    // With the path floor known (from the server), the delay is shown next to it.
    s.path_floor = 2;
    CHECK(overlay_lines(s)[2].text == "delay  3 frames (50 ms), floor 2");
    s.path_floor = 0;

    s.desyncs = 2;
    s.first_desync_frame = 600;
    lines = overlay_lines(s);
    CHECK(lines[5].text == "DESYNC at frame 600 (2 reported)");
    CHECK(lines[5].tone == Tone::kError);

    // A rollback session adds its corrections and prediction depth after the frame line.
    s.desyncs = 0;
    s.rollback = true;
    s.rollbacks_per_s = 12.84;
    s.frames_resimulated = 4521;
    s.longest_rollback = 7;
    s.prediction_right_pct = 61.2;
    s.frame_advantage = 5.68;
    s.correction_depth_p99 = 6;
    s.correction_ms_p99 = 0.42;
    lines = overlay_lines(s);
    REQUIRE(lines.size() == 10);
    CHECK(lines[5].text == "rollback 12.8/s, 4521 re-run, longest 7");
    CHECK(lines[6].text == "predict 61% right, ahead 5.7 frames");
    CHECK(lines[7].text == "corrections p99 6 frames, 0.4 ms");
    CHECK(lines[8].text == "P1 alice      you       21.0 ms");

    // The mode, and why when this process chose it (a host), under the first line.
    s.mode = "hybrid";
    s.mode_reason = "auto: hybrid: savestates checked";
    lines = overlay_lines(s);
    REQUIRE(lines.size() == 12);
    CHECK(lines[1].text == "mode   hybrid");
    CHECK(lines[2].text == "auto: hybrid: savestates checked");
    CHECK(lines[2].tone == Tone::kDim);
    s.mode.clear();
    s.mode_reason.clear();

    s.running = false;
    lines = overlay_lines(s);
    CHECK(lines[1].text == "waiting for the session to start");
}

TEST_CASE("Overlay: messages expire, the newest few show", "[frontend][overlay]") {
    MessageQueue q;
    q.post("a", Tone::kNormal, 0, 1000);
    q.post("b", Tone::kError, 0, 5000);
    CHECK(q.visible(500).size() == 2);
    CHECK(q.visible(1000).size() == 1);
    CHECK(q.visible(1000)[0].text == "b");
    for (int i = 0; i < 6; ++i) q.post("m" + std::to_string(i), Tone::kNormal, 2000, 1000);
    const auto shown = q.visible(2500);
    REQUIRE(shown.size() == MessageQueue::kVisible);
    CHECK(shown.front().text == "m2");
    CHECK(shown.back().text == "m5");
}

TEST_CASE("Overlay: layout stays inside the window", "[frontend][overlay]") {
    std::vector<OverlayLine> lines(6, OverlayLine{"ping   23.4 ms (var 2.1 ms)", Tone::kNormal});
    const OverlayLayout l = layout_overlay(960, 672, 17, 8, lines, 2);
    CHECK(l.panel.x == 8);
    CHECK(l.panel.y == 8);
    CHECK(l.panel.w == 34 * 8 + 12);
    REQUIRE(l.lines.size() == 6);
    CHECK(l.lines[1].y - l.lines[0].y == 17);
    CHECK(l.graph.y > l.lines.back().y + 17);
    CHECK(l.graph.y + l.graph.h <= l.panel.y + l.panel.h);
    CHECK(l.graph.w == 34 * 8);
    CHECK(l.graph.h == 5 * 17);
    CHECK(l.progress_bar.x + l.progress_bar.w / 2 == 480);
    REQUIRE(l.messages.size() == 2);
    CHECK(l.messages[1].y + 17 <= 672);
    CHECK(l.messages[0].y < l.messages[1].y);
    // A tiny window: the panel is clipped to it.
    const OverlayLayout small = layout_overlay(200, 150, 17, 8, lines, 0);
    CHECK(small.panel.x + small.panel.w <= 200 - 8);
}

TEST_CASE("Overlay: graph samples every 250 ms while a session runs", "[frontend][overlay]") {
    OverlayModel model;
    SessionStatus s;
    s.running = true;
    s.rtt_ms = 30;
    s.delay_frames = 2;
    s.frame_ms = 20;
    model.set_status(s);
    CHECK_FALSE(model.sample(0));  // no session yet
    model.set_has_session(true);
    CHECK(model.sample(0));
    CHECK_FALSE(model.sample(100'000));
    CHECK(model.sample(250'000));
    CHECK(model.rtt_ms().values() == std::deque<double>{30, 30});
    CHECK(model.delay_ms().values() == std::deque<double>{40, 40});
    CHECK(model.graph_top() == 50);
}

TEST_CASE("Overlay: the peer list of a session", "[frontend][overlay]") {
    using State = PeerStatus::State;
    // join: every slot is in the session; one left, one desynced.
    auto peers = session_peers(2, 4, true, nullptr, 0b0001, 0b1000, "me");
    REQUIRE(peers.size() == 4);
    CHECK(peers[0].state == State::kLeft);
    CHECK(peers[1].state == State::kYou);
    CHECK(peers[1].name == "me");
    CHECK(peers[2].state == State::kPlaying);
    CHECK(peers[3].state == State::kDesynced);
    // host, in the lobby: the server knows who joined and their round trips.
    std::vector<framelock::netplay::SlotStats> slots(1);
    slots[0].slot = 1;
    slots[0].name = "host";
    slots[0].connected = true;
    slots[0].srtt = 1500;
    peers = session_peers(1, 2, false, &slots, 0, 0, "host");
    CHECK(peers[0].state == State::kYou);
    CHECK(peers[0].rtt_ms == Approx(1.5));
    CHECK(peers[1].state == State::kWaiting);
    CHECK(peers[1].name == "-");
}

TEST_CASE("Overlay: a peer's name and the messages it causes are drawn escaped",
          "[frontend][overlay][hostile]") {
    // What the window draws is these strings: controls and bidi overrides never reach the font
    // raw, whatever the server or a peer sent (netplay/base/safe_text.h).
    MessageQueue q;
    q.post(
        "player 2 left: x\n[warn] forged\x1b]0;PWN\a \xe2\x80\xae"
        "evil",
        Tone::kNormal, 0, 1000);
    REQUIRE(q.visible(0).size() == 1);
    CHECK(q.visible(0)[0].text == "player 2 left: x\\x0a[warn] forged\\x1b]0;PWN\\x07 \\u202eevil");
    SessionStatus s;
    s.slot = 1;
    s.players = 2;
    s.peers = {{1, "alice", PeerStatus::State::kYou, -1},
               {2,
                "\xe2\x80\xae"
                "b\x1b",
                PeerStatus::State::kPlaying, -1}};
    const auto lines = overlay_lines(s);
    CHECK(lines.back().text == "P2 \\u202eb\\x1 playing ");
}
