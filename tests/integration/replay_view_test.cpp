// The replay viewer in a window under a private Xvfb: a replay of the bundled core recorded in
// this process as a player records one (RecordingEmulator: keyframes at 600 and 1200, a chat
// line with terminal escapes), watched with `framelock replay view`, driven through X
// (xdotool: SDL's real event path): steps back across the keyframe of 1200 and forward, the
// number keys, Page Down, Home and End, play and pause, a click on the bar. Each frame the
// viewer rests on is checked against the recorded hash by the viewer, which logs it; a window
// screenshot (F12) carries the panel's lines as text (kReplayTextKey) beside its pixels.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "common/child_process.h"
#include "frontend/files/replay_file.h"
#include "frontend/host/image.h"
#include "frontend/player/player_window.h"
#include "frontend/session/recording_emulator.h"
#include "frontend/session/session_identity.h"
#include "integration/netplay_session.h"
#include "integration/sim_cores.h"
#include "support/process.h"
#include "support/xvfb.h"

using namespace framelock::test;
using framelock::ChildProcess;
namespace fe = framelock::frontend;
namespace np = framelock::netplay;

namespace {

constexpr std::uint64_t kFrames = 1500;

// Records kFrames frames of the two-player arcade core with a pad pattern, as a player's
// runner does (every frame final as soon as it ran: the frame lock), and a chat line.
void record(const CoreCase& core, const std::string& path) {
    auto emu = fe::RetroEmulator::create(sim_host(core, 2));
    REQUIRE(emu);
    np::ReplayHeader header;
    header.identity = fe::session_identity(*emu.value());
    header.players = 2;
    auto writer = fe::ReplayWriter::open(path, header);
    REQUIRE(writer);
    fe::RecordingEmulator recording(*emu.value(), nullptr, 0, nullptr, {}, true);
    recording.record_to(writer.value().get());
    for (std::uint64_t f = 0; f < kFrames; ++f) {
        np::InputFrame in;
        in.pads[0] =
            static_cast<np::InputWord>((f / 20 % 2 ? 1u << 8 : 0) | (1u << (4 + f / 45 % 4)));
        in.pads[1] = static_cast<np::InputWord>(f / 30 % 3 == 0 ? 1u << 0 : 0);
        recording.run_frame(in, false);
        recording.flush_log(f + 1);
        if (f == 1190) {
            REQUIRE(writer.value()->add_chat({1190, 1, "ann\x1b[31m", "gg\a wp"}));
        }
    }
    REQUIRE(writer.value()->close());
}

// `keys` pressed in `window` through XTest (the window focused first).
void press(const std::string& window, const std::vector<std::string>& keys) {
    xdotool({"windowfocus", "--sync", window});
    std::vector<std::string> args = {"key", "--delay", "60"};
    args.insert(args.end(), keys.begin(), keys.end());
    xdotool(args);
}

// The viewer's log: each frame it rested on, in order, and whether it was as recorded.
struct Rests {
    std::vector<std::uint64_t> frames;
    int unlike = 0;
};
Rests rests_in(const std::string& log) {
    Rests r;
    static const std::regex line(R"(viewer: frame (\d+) shown, (as recorded|state))");
    for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator();
         ++it) {
        r.frames.push_back(std::stoull((*it)[1]));
        r.unlike += (*it)[2] != "as recorded";
    }
    return r;
}

}  // namespace

TEST_CASE(
    "Replay viewer in a window: steps both ways across a keyframe, seeks by keys and by the "
    "bar, plays and pauses, every frame it rests on as recorded, the panel's text",
    "[integration][window][replay]") {
    FRAMELOCK_SKIP_UNLESS_XVFB();
    FRAMELOCK_SKIP_UNLESS_XDOTOOL();
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    TempDir dir("replay-view");
    const std::string replay = dir.file("match.flrp");
    record(core, replay);
    auto read = fe::read_replay_file(replay);
    REQUIRE(read);
    REQUIRE(read.value().keyframes.size() == 2);  // 600 and 1200

    Xvfb xvfb;
    ::setenv("SDL_AUDIODRIVER", "dummy", 1);
    const std::string config = dir.file("view.toml");
    write_text(config, "[video]\nscale = 2\nscreenshot_dir = \"" + dir.file("shots") + "\"\n");
    const std::string log_path = dir.file("view.log");
    auto spawned = ChildProcess::spawn(
        {build_paths::framelock_exe, "replay", "view", replay, "--core", core.core, "--option",
         "farcade_players=2", "--no-sram", "--video", "sdl", "--audio", "none", "--config", config,
         "--from", "1201", "--paused"},
        log_path, log_path);
    REQUIRE(spawned);
    ChildProcess& viewer = spawned.value();
    const auto log = [&] { return read_text(log_path); };
    const auto wait_rests = [&](std::size_t count) {
        const bool came =
            poll_until([&] { return rests_in(log()).frames.size() >= count || !viewer.running(); },
                       kReadyLimit);
        INFO(log());
        REQUIRE(came);
        REQUIRE(rests_in(log()).frames.size() >= count);
    };
    wait_rests(1);
    const std::string window = [&] {
        const std::string ids =
            xdotool({"search", "--sync", "--pid", std::to_string(viewer.pid())});
        return ids.substr(0, ids.find('\n'));
    }();

    // A key, then the rest it leads to (one key at a time: two keys the viewer took in one
    // turn of its loop would rest once).
    std::size_t rested = 1;
    const auto key = [&](const std::string& name) {
        press(window, {name});
        wait_rests(++rested);
    };
    // Back across the keyframe of 1200 and forward again, a frame at a time.
    for (const char* name : {"Left", "Left", "Left", "Right", "period"}) key(name);
    // The number keys (5: half of 0 .. 1499), Page Down (10 s on), End, Home.
    for (const char* name : {"5", "Next", "End", "Home"}) key(name);
    // Play for a while, then pause: somewhere further on.
    press(window, {"space"});
    REQUIRE(
        poll_until([&] { return log().find("viewer: playing from frame 0") != std::string::npos; },
                   kReadyLimit));
    key("space");
    // A click in the middle of the bar at the bottom (the panel spans the window's width).
    const std::string geometry = xdotool({"getwindowgeometry", window});
    std::smatch size;
    REQUIRE(std::regex_search(geometry, size, std::regex(R"(Geometry: (\d+)x(\d+))")));
    const int w = std::stoi(size[1]), h = std::stoi(size[2]);
    xdotool({"mousemove", "--window", window, std::to_string(w / 2), std::to_string(h - 10),
             "click", "1"});
    wait_rests(++rested);
    // Page Down twice from the start: frame 1200, where the chat line shows; a screenshot.
    for (const char* name : {"Home", "Next", "Next"}) key(name);
    const std::size_t before = log().size();
    press(window, {"F12"});
    REQUIRE(poll_until(
        [&] { return log().find("window picture written to ", before) != std::string::npos; },
        kReadyLimit));
    press(window, {"Escape"});
    const auto status = viewer.wait_until(ready_deadline());
    REQUIRE(status);
    const std::string text = log();
    INFO(text);
    CHECK(status->success());

    const Rests r = rests_in(text);
    REQUIRE(r.frames.size() == 15);
    CHECK(r.unlike == 0);
    const std::vector<std::uint64_t> expected_start = {1201, 1200, 1199, 1198, 1199,
                                                       1200, 750,  1350, 1499, 0};
    CHECK(std::vector<std::uint64_t>(r.frames.begin(), r.frames.begin() + 10) == expected_start);
    CHECK(r.frames[10] > 0);     // played, then paused further on
    CHECK(r.frames[11] >= 700);  // the bar's middle: about 750
    CHECK(r.frames[11] <= 800);
    CHECK(std::vector<std::uint64_t>(r.frames.begin() + 12, r.frames.end()) ==
          std::vector<std::uint64_t>{0, 600, 1200});
    CHECK_THAT(text, Catch::Contains("0 unlike the recording"));

    // The screenshot's panel: the position, both pads at frame 1200, the chat line escaped.
    const auto at = text.find("window picture written to ");
    const std::string shot = text.substr(at + 26, text.find('\n', at) - at - 26);
    auto image = fe::read_png(shot);
    REQUIRE(image);
    std::string panel;
    for (const auto& [name, value] : image.value().text)
        if (name == fe::kReplayTextKey) panel = value;
    INFO(panel);
    CHECK_THAT(panel, Catch::StartsWith("replay  paused 1x  frame 1200 of 0 .. 1499  0:20.00 / "
                                        "0:24.98\n"));
    CHECK_THAT(panel, Catch::Contains("\nP1 "));
    CHECK_THAT(panel, Catch::Contains("\nP2 "));
    CHECK_THAT(panel, Catch::Contains("chat 0:19.83  P1 ann\\x1b[31m: gg\\x07 wp\n"));
    CHECK_THAT(panel, Catch::EndsWith("H: the keys\n"));
    std::printf("[figure] replay viewer: rested on %zu frames, all as recorded; panel:\n%s",
                r.frames.size(), panel.c_str());
    std::fflush(stdout);
}
