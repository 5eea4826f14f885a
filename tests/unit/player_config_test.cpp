// The player's sections of the config file: [video], [audio], [input], [hotkeys].
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "frontend/app/config.h"
#include "support/build_paths.h"

using namespace framelock::frontend;

namespace {
// RetroPad button ids (libretro.h), in a namespace of their own: the unity build puts this
// file beside other tests with names of the same kind.
namespace pad {
constexpr int kB = 0, kSelect = 2, kStart = 3, kUp = 4, kA = 8, kX = 9, kL = 10;
}  // namespace pad

Config parsed(const std::string& text) {
    auto config = parse_config(text, "p.toml");
    INFO((config.ok() ? std::string() : config.error().message));
    REQUIRE(config.ok());
    return config.value();
}

std::string error_of(const std::string& text) {
    auto config = parse_config(text, "p.toml");
    REQUIRE_FALSE(config.ok());
    CHECK(config.error().code == framelock::ErrorCode::kConfig);
    return config.error().message;
}
}  // namespace

TEST_CASE("Player config: defaults without the sections", "[frontend][config]") {
    const Config c = parsed("");
    CHECK(c.player.video.scale == 3);
    CHECK_FALSE(c.player.video.integer_scale);
    CHECK(c.player.video.aspect == 0);
    CHECK(c.player.audio.latency_ms == 64);
    CHECK(c.player.audio.rate_control_pct == Approx(0.5));
    CHECK(c.player.input.ports[0].keys[pad::kA] == std::vector<KeyCode>{*key_from_name("X")});
    CHECK(c.player.input.ports[3].pad == 4);
    CHECK(c.player.hotkeys.quit == *key_from_name("Escape"));
}

TEST_CASE("Player config: every setting read", "[frontend][config]") {
    const Config c = parsed(R"(
[video]
scale = 2
integer_scale = true
aspect = "square"
fullscreen = true
filter = "linear"
overlay = false
font = "/srv/font.ttf"
font_size = 18
screenshot_dir = "/tmp/shots"

[audio]
enabled = false
latency_ms = 96
rate = 44100
rate_control_percent = 0.25

[input]
axis_threshold = 0.4
mapping_db = "/srv/gamecontrollerdb.txt"

[input.port1]
a = "Space"
b = ["Left Ctrl", "Keypad 0"]
select = "none"

[input.port2]
pad = 0
up = "I"
start = "Backspace"

[input.pad]
a = "a"
b = ["b", "misc1"]

[hotkeys]
fullscreen = "F10"
quit = "none"
)");
    const PlayerSettings& p = c.player;
    CHECK(p.video.scale == 2);
    CHECK(p.video.integer_scale);
    CHECK(p.video.aspect < 0);
    CHECK(p.video.fullscreen);
    CHECK(p.video.smooth);
    CHECK_FALSE(p.video.overlay);
    CHECK(p.video.font == "/srv/font.ttf");
    CHECK(p.video.font_size == 18);
    CHECK(p.video.screenshot_dir == "/tmp/shots");
    CHECK_FALSE(p.audio.enabled);
    CHECK(p.audio.latency_ms == 96);
    CHECK(p.audio.rate == 44100);
    CHECK(p.audio.rate_control_pct == Approx(0.25));
    CHECK(p.input.axis_threshold == Approx(0.4));
    CHECK(p.input.mapping_db == "/srv/gamecontrollerdb.txt");
    CHECK(p.input.ports[0].keys[pad::kA] == std::vector<KeyCode>{*key_from_name("Space")});
    CHECK(p.input.ports[0].keys[pad::kB] ==
          std::vector<KeyCode>{*key_from_name("Left Ctrl"), *key_from_name("Keypad 0")});
    CHECK(p.input.ports[0].keys[pad::kSelect].empty());
    // Buttons not mentioned keep their defaults.
    CHECK(p.input.ports[0].keys[pad::kL] == std::vector<KeyCode>{*key_from_name("Q")});
    CHECK(p.input.ports[1].pad == 0);
    CHECK(p.input.ports[1].keys[pad::kUp] == std::vector<KeyCode>{*key_from_name("I")});
    CHECK(p.input.ports[1].keys[pad::kStart] == std::vector<KeyCode>{*key_from_name("Backspace")});
    CHECK(p.input.pad[pad::kA] == std::vector<PadControl>{PadControl::kA});
    CHECK(p.input.pad[pad::kB] == std::vector<PadControl>{PadControl::kB, PadControl::kMisc1});
    CHECK(p.input.pad[pad::kX] == std::vector<PadControl>{PadControl::kY});  // default
    CHECK(p.hotkeys.fullscreen == *key_from_name("F10"));
    CHECK(p.hotkeys.quit == 0);
    CHECK(p.hotkeys.screenshot == *key_from_name("F12"));

    CHECK(parsed("[video]\naspect = 1.5\n").player.video.aspect == Approx(1.5));
}

TEST_CASE("Player config: unknown key names are errors naming the name and the line",
          "[frontend][config]") {
    auto msg = error_of("[input.port1]\nup = \"Up\"\na = \"Jump\"\n");
    CHECK_THAT(msg, Catch::Contains("p.toml line 3") &&
                        Catch::Contains("unknown key name \"Jump\"") &&
                        Catch::Contains("input.port1.a"));
    msg = error_of("[input.port2]\nb = [\"Z\", \"Bogus\"]\n");
    CHECK_THAT(msg, Catch::Contains("line 2") && Catch::Contains("\"Bogus\""));
    msg = error_of("\n[hotkeys]\nscreenshot = \"PrtSc\"\n");
    CHECK_THAT(msg, Catch::Contains("line 3") && Catch::Contains("\"PrtSc\"") &&
                        Catch::Contains("hotkeys.screenshot"));
    msg = error_of("[input.pad]\na = \"bottom\"\n");
    CHECK_THAT(msg, Catch::Contains("line 2") && Catch::Contains("unknown controller control") &&
                        Catch::Contains("\"bottom\""));
}

TEST_CASE("Player config: unknown settings, bad values and conflicts name the line",
          "[frontend][config]") {
    CHECK_THAT(error_of("[video]\nscale = 3\nzoom = 2\n"),
               Catch::Contains("line 3") && Catch::Contains("unknown key video.zoom"));
    CHECK_THAT(error_of("[audio]\nlatency_ms = 5\n"), Catch::Contains("line 2") &&
                                                          Catch::Contains("audio.latency_ms") &&
                                                          Catch::Contains("8 to 1000"));
    CHECK_THAT(error_of("[video]\nfilter = \"bicubic\"\n"), Catch::Contains("line 2"));
    CHECK_THAT(error_of("[video]\naspect = \"wide\"\n"), Catch::Contains("video.aspect"));
    CHECK_THAT(error_of("[input.port9]\na = \"X\"\n"),
               Catch::Contains("line 1") && Catch::Contains("input.port9"));
    CHECK_THAT(error_of("[input.port1]\njump = \"X\"\n"),
               Catch::Contains("line 2") && Catch::Contains("input.port1.jump"));
    CHECK_THAT(error_of("[input.port1]\npad = 9\n"), Catch::Contains("input.port1.pad"));
    // A key that is already the default for another button of port 1.
    CHECK_THAT(error_of("[input.port1]\n\na = \"Z\"\n"),
               Catch::Contains("line 3") && Catch::Contains("\"Z\"") &&
                   Catch::Contains("port 1 B (default)") && Catch::Contains("port 1 A"));
    // Swapping two keys in one go is fine.
    CHECK(parse_config("[input.port1]\na = \"Z\"\nb = \"X\"\n", "p.toml").ok());
    // A key that is a hotkey.
    CHECK_THAT(error_of("[input.port2]\nstart = \"F11\"\n"),
               Catch::Contains("line 2") && Catch::Contains("hotkeys.fullscreen"));
    CHECK_THAT(error_of("[input.pad]\nstart = \"a\"\n"),
               Catch::Contains("line 2") && Catch::Contains("\"a\""));
}

TEST_CASE("Player config: a file that does not parse names the line", "[frontend][config]") {
    CHECK_THAT(error_of("[video]\nscale = 3\nfullscreen = yes please\n"),
               Catch::Contains("p.toml line 3"));
    CHECK_THAT(error_of("[input.port1\na = \"X\"\n"), Catch::Contains("line 1"));
}

TEST_CASE("Player config: the example in docs/config.md is valid", "[frontend][config]") {
    std::ifstream in(std::string(framelock::test::build_paths::source_dir) + "/docs/config.md");
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    const std::string doc = text.str();
    const auto start = doc.find("```toml\n[paths]");
    REQUIRE(start != std::string::npos);
    const auto body = start + 8;
    const std::string example = doc.substr(body, doc.find("```", body) - body);
    const Config c = parsed(example);
    CHECK(c.player.video.scale == 4);
    CHECK(c.player.input.ports[1].pad == 0);
    CHECK(c.player.input.ports[1].keys[pad::kStart] ==
          std::vector<KeyCode>{*key_from_name("Backspace")});
    CHECK(c.player.hotkeys.quit == 0);
}

TEST_CASE("Player config: the chat key (T) leaves a button bound to T where it is, unless asked",
          "[config][chat]") {
    CHECK(parsed("").player.hotkeys.chat == *key_from_name("T"));
    // A config from before chat, with T on port 2's up: T stays up, chat has no key.
    const Config old = parsed("[input.port2]\nup = \"T\"\n");
    CHECK(old.player.hotkeys.chat == 0);
    CHECK(old.player.input.ports[1].keys[pad::kUp] == std::vector<KeyCode>{*key_from_name("T")});
    // Chat on another key beside it; or asked for on T too: a conflict, named.
    CHECK(parsed("[input.port2]\nup = \"T\"\n[hotkeys]\nchat = \"Y\"\n").player.hotkeys.chat ==
          *key_from_name("Y"));
    CHECK_THAT(error_of("[input.port2]\nup = \"T\"\n[hotkeys]\nchat = \"T\"\n"),
               Catch::Contains("hotkeys.chat") && Catch::Contains("port 2 UP"));
    // Another hotkey on T, from before chat: it keeps T.
    const Config overlay_t = parsed("[hotkeys]\noverlay = \"T\"\n");
    CHECK(overlay_t.player.hotkeys.chat == 0);
    CHECK(overlay_t.player.hotkeys.overlay == *key_from_name("T"));
}
