// The player's window under a private Xvfb: framelock processes with --video sdl, their
// window read back by framelock itself (--window-screenshot: the drawn window, read with
// SDL_RenderReadPixels) and compared with the core's framebuffer; a key pressed through
// X (xdotool, XTest: SDL's real event path) and the frame the core saw it; hotkeys; what
// happens without a display; config errors; the netplay overlay of a two-player session.
#include <catch2/catch.hpp>

#include <time.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.h"
#include "frontend/host/image.h"
#include "frontend/host/io.h"
#include "frontend/player/viewport.h"
#include "integration/cores.h"
#include "support/process.h"
#include "support/xvfb.h"

#include "frontend/player/sdl/sdl_player_window.h"
#include "frontend/player/sdl/sdl_video.h"
#include "support/build_paths.h"

using namespace framelock::test;
using framelock::ChildProcess;
using framelock::frontend::Image;
using framelock::frontend::Rect;
using namespace std::chrono_literals;

namespace {

Image png(const std::string& path) {
    auto image = framelock::frontend::read_png(path);
    INFO(path);
    REQUIRE(image.ok());
    return std::move(image).value();
}

ProcessResult run_ok(const std::vector<std::string>& args) {
    const ProcessResult r = run_process(args, 120s);
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE_FALSE(r.timed_out);
    REQUIRE_FALSE(r.signaled);
    REQUIRE(r.exit_code == 0);
    return r;
}

// `window` shows `core` exactly at `scale` x `scale` per pixel from (0, 0).
void require_integer_scaled(const Image& window, const Image& core, unsigned scale) {
    REQUIRE(window.width == core.width * scale);
    REQUIRE(window.height == core.height * scale);
    std::size_t differing = 0;
    for (unsigned y = 0; y < window.height; ++y) {
        for (unsigned x = 0; x < window.width; ++x) {
            if (window.at(x, y) != core.at(x / scale, y / scale)) ++differing;
        }
    }
    CHECK(differing == 0);
}

// `window` shows `core` in `rect` with nearest-neighbour sampling at a non-integer scale,
// black around it. Where a window pixel's centre falls within rounding of a texel edge the
// GPU (or SDL's software scaler) may pick the neighbour: each pixel must equal the texel
// under its centre or one of the 8 around it, and at least 97% must be the texel under
// the centre exactly.
void require_nearest_scaled(const Image& window, const Image& core, const Rect& rect) {
    std::size_t outside_not_black = 0, inside_wrong = 0, inside_exact = 0, inside = 0;
    for (int y = 0; y < static_cast<int>(window.height); ++y) {
        for (int x = 0; x < static_cast<int>(window.width); ++x) {
            const std::uint32_t pixel =
                window.at(static_cast<unsigned>(x), static_cast<unsigned>(y));
            if (x < rect.x || y < rect.y || x >= rect.x + rect.w || y >= rect.y + rect.h) {
                if (pixel != 0) ++outside_not_black;
                continue;
            }
            ++inside;
            const int sx = static_cast<int>((x - rect.x + 0.5) * core.width / rect.w);
            const int sy = static_cast<int>((y - rect.y + 0.5) * core.height / rect.h);
            const auto texel = [&](int dx, int dy) {
                const int cx = std::clamp(sx + dx, 0, static_cast<int>(core.width) - 1);
                const int cy = std::clamp(sy + dy, 0, static_cast<int>(core.height) - 1);
                return core.at(static_cast<unsigned>(cx), static_cast<unsigned>(cy));
            };
            if (pixel == texel(0, 0)) {
                ++inside_exact;
                continue;
            }
            bool near = false;
            for (int dy = -1; dy <= 1 && !near; ++dy)
                for (int dx = -1; dx <= 1 && !near; ++dx) near = pixel == texel(dx, dy);
            if (!near) ++inside_wrong;
        }
    }
    CHECK(outside_not_black == 0);
    CHECK(inside_wrong == 0);
    CHECK(inside == static_cast<std::size_t>(rect.w) * rect.h);
    CHECK(static_cast<double>(inside_exact) / inside >= 0.97);
}

void write_config(const std::string& path, const std::string& text) {
    write_text(path, text);
}

std::vector<std::string> window_run(const CoreCase& c, const TempDir& dir, int frames,
                                    std::vector<std::string> extra) {
    std::vector<std::string> args =
        run_args(c, {"--video", "sdl", "--audio", "none", "--frames", std::to_string(frames),
                     "--config", dir.file("framelock.toml")});
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

std::int64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::size_t line_count(const std::string& path) {
    return read_lines(path).size();
}

}  // namespace

TEST_CASE("Window: framelock run shows the core's framebuffer at 3x, pixel for pixel",
          "[integration][window]") {
    FRAMELOCK_SKIP_UNLESS_XVFB();
    Xvfb xvfb;
    TempDir dir("window-3x");
    // Square pixels and nearest-neighbour: every core pixel becomes a 3x3 block.
    write_config(dir.file("framelock.toml"), "[video]\nscale = 3\naspect = \"square\"\n");
    for (const char* name : {"arcade", "chaos"}) {  // XRGB8888 and RGB565
        INFO(name);
        const CoreCase c = core_case(name);
        require_core_case(c);
        const std::string shot = dir.file(std::string(name) + "-core.png");
        const std::string window = dir.file(std::string(name) + "-window.png");
        const std::string headless = dir.file(std::string(name) + "-headless.png");
        const auto r = run_ok(window_run(c, dir, 91,
                                         {"--random", "11", "--screenshot-frame", "90",
                                          "--screenshot", shot, "--window-screenshot", window}));
        CHECK_THAT(r.out, Catch::Contains("frames   91"));
        // The same frames headless: the framebuffer the window was given is the core's.
        run_ok(run_args(c, {"--video", "none", "--frames", "91", "--random", "11",
                            "--screenshot-frame", "90", "--screenshot", headless}));
        const Image core = png(headless);
        CHECK(png(shot) == core);
        require_integer_scaled(png(window), core, 3);
    }
}

TEST_CASE("Window: fullscreen at the core's 4:3 aspect, plain and integer-scaled, black around",
          "[integration][window]") {
    FRAMELOCK_SKIP_UNLESS_XVFB();
    const CoreCase c = core_case("arcade");
    require_core_case(c);
    Xvfb xvfb(1000, 800);
    TempDir dir("window-fs");
    const std::string headless = dir.file("headless.png");
    run_ok(run_args(c, {"--video", "none", "--frames", "61", "--random", "3", "--screenshot-frame",
                        "60", "--screenshot", headless}));
    const Image core = png(headless);
    for (const bool integer : {false, true}) {
        INFO("integer_scale " << integer);
        write_config(dir.file("framelock.toml"),
                     std::string("[video]\nfullscreen = true\ninteger_scale = ") +
                         (integer ? "true" : "false") + "\n");
        const std::string window = dir.file(integer ? "int.png" : "plain.png");
        run_ok(window_run(
            c, dir, 61,
            {"--random", "3", "--screenshot-frame", "60", "--window-screenshot", window}));
        const Image shown = png(window);
        REQUIRE(shown.width == 1000);
        REQUIRE(shown.height == 800);
        // The arcade core asks for 4:3: 1000x750 (plain) or 3x the height, 896x672.
        const Rect expected = integer ? Rect{52, 64, 896, 672} : Rect{0, 25, 1000, 750};
        CHECK(framelock::frontend::fit_picture(1000, 800, 320, 224, 4.0 / 3, integer) == expected);
        require_nearest_scaled(shown, core, expected);
    }
}

TEST_CASE("Window: a key pressed through X reaches the core on the next frame",
          "[integration][window]") {
    FRAMELOCK_SKIP_UNLESS_XVFB();
    FRAMELOCK_SKIP_UNLESS_XDOTOOL();
    const CoreCase c = core_case("arcade");
    require_core_case(c);
    Xvfb xvfb;
    TempDir dir("window-key");
    write_config(dir.file("framelock.toml"), "");
    const std::string timing = dir.file("timing.txt"), inputs = dir.file("input.txt");
    const std::string hashes = dir.file("window.hashes"), err = dir.file("err.txt");
    const int frames = 240;
    auto child = ChildProcess::spawn(
        window_run(c, dir, frames,
                   {"--hash-log", hashes, "--timing-log", timing, "--input-log", inputs, "-v"}),
        dir.file("out.txt"), err);
    REQUIRE(child.ok());
    ChildProcess& framelock = child.value();

    // The window is up and frames are running.
    REQUIRE(
        poll_until([&] { return line_count(timing) >= 30 || !framelock.running(); }, kReadyLimit));
    REQUIRE(framelock.running());
    const std::string id = xdotool({"search", "--name", "^framelock"});
    INFO("window id: " << id);
    REQUIRE_FALSE(id.empty());
    xdotool({"windowfocus", "--sync", id.substr(0, id.find('\n'))});
    // X (the key of RetroPad A on port 1 by default), pressed through XTest: the X server
    // sends a real KeyPress to the window, SDL reads it from its X connection.
    const std::int64_t before = monotonic_ns();
    xdotool({"keydown", "x"});
    const std::int64_t after = monotonic_ns();
    std::this_thread::sleep_for(150ms);
    xdotool({"keyup", "x"});
    const auto status = framelock.wait_until(std::chrono::steady_clock::now() + 60s);
    REQUIRE(status);
    INFO(read_text(err));
    REQUIRE(status->success());

    // The input log says from which frame port 1 held A ...
    std::uint64_t pressed = 0;
    bool found = false;
    for (const auto& line : read_lines(inputs)) {
        std::istringstream in(line);
        std::uint64_t frame = 0;
        unsigned port = 0;
        std::string buttons;
        if (in >> frame >> port >> buttons && port == 1 && buttons == "A" && !found) {
            pressed = frame;
            found = true;
        }
    }
    REQUIRE(found);
    // ... the log says the key event arrived right before that frame ...
    CHECK_THAT(read_text(err),
               Catch::Contains("input: key X (27) down before frame " + std::to_string(pressed)));
    // ... and that frame is the first whose pads were read after the key went in: it
    // cannot be earlier than the first read after xdotool started, and is no later than
    // the first read after xdotool returned (the X server had the event by then).
    std::vector<std::int64_t> sampled;
    for (const auto& line : read_lines(timing)) {
        std::istringstream in(line);
        std::uint64_t frame = 0;
        std::int64_t due = 0, sample = 0;
        in >> frame >> due >> sample;
        REQUIRE(frame == sampled.size());
        sampled.push_back(sample);
    }
    REQUIRE(sampled.size() == static_cast<std::size_t>(frames));
    const auto first_after = [&](std::int64_t t) {
        return static_cast<std::uint64_t>(std::upper_bound(sampled.begin(), sampled.end(), t) -
                                          sampled.begin());
    };
    CHECK(pressed >= first_after(before));
    CHECK(pressed <= first_after(after));

    // The core saw it at that frame: a headless run without the key has the same state
    // hashes up to the frame before and a different one from that frame on; replaying
    // the input log headless gives every hash the window run had.
    const auto window_hashes = read_lines(hashes);
    REQUIRE(window_hashes.size() == static_cast<std::size_t>(frames));
    run_ok(run_args(c, {"--video", "none", "--frames", std::to_string(frames), "--hash-log",
                        dir.file("idle.hashes")}));
    const auto idle = read_lines(dir.file("idle.hashes"));
    REQUIRE(idle.size() == window_hashes.size());
    for (std::uint64_t f = 0; f < window_hashes.size(); ++f) {
        INFO("frame " << f);
        if (f < pressed)
            CHECK(idle[f] == window_hashes[f]);
        else if (f == pressed)
            CHECK(idle[f] != window_hashes[f]);
    }
    run_ok(run_args(c, {"--video", "none", "--frames", std::to_string(frames), "--input", inputs,
                        "--hash-log", dir.file("replay.hashes")}));
    CHECK(read_lines(dir.file("replay.hashes")) == window_hashes);
}

TEST_CASE("Window: hotkeys: F12 saves the window, F11 goes fullscreen and back, Escape quits",
          "[integration][window]") {
    FRAMELOCK_SKIP_UNLESS_XVFB();
    FRAMELOCK_SKIP_UNLESS_XDOTOOL();
    const CoreCase c = core_case("arcade");
    require_core_case(c);
    Xvfb xvfb;
    TempDir dir("window-hotkeys");
    const std::string shots = dir.file("shots");
    write_config(dir.file("framelock.toml"),
                 "[video]\nscale = 2\nscreenshot_dir = \"" + shots + "\"\n");
    const std::string timing = dir.file("timing.txt");
    // A window resized after it was created keeps drawing into a buffer of its first size
    // with Mesa's software OpenGL under a window-manager-less Xvfb (a bare SDL program does
    // the same); SDL's software renderer follows the resize, so this test draws with it.
    ::setenv("SDL_RENDER_DRIVER", "software", 1);
    // No --frames: it runs until the player quits.
    std::vector<std::string> args =
        run_args(c, {"--video", "sdl", "--audio", "none", "--config", dir.file("framelock.toml"),
                     "--timing-log", timing});
    auto child = ChildProcess::spawn(args, dir.file("out.txt"), dir.file("err.txt"));
    ::unsetenv("SDL_RENDER_DRIVER");
    REQUIRE(child.ok());
    REQUIRE(poll_until([&] { return line_count(timing) >= 20 || !child.value().running(); },
                       kReadyLimit));
    const std::string id = xdotool({"search", "--name", "^framelock"});
    REQUIRE_FALSE(id.empty());
    xdotool({"windowfocus", "--sync", id.substr(0, id.find('\n'))});
    const auto shot_count = [&] {
        if (!std::filesystem::exists(shots)) return std::size_t{0};
        const auto files = std::filesystem::directory_iterator(shots);
        return static_cast<std::size_t>(std::distance(begin(files), end(files)));
    };
    // Windowed, fullscreen, windowed again: a screenshot of each. F12 goes right after F11:
    // the X server delivers the keys in order, and SDL switches within the call that handles
    // F11 (without a window manager the X window keeps its size; SDL takes the desktop's at
    // once), so the screenshot is of the new size, whatever the machine's pace. A sleep
    // between the two waited for nothing that could be seen.
    for (std::size_t n = 1; n <= 3; ++n) {
        if (n > 1) xdotool({"key", "F11"});
        xdotool({"key", "F12"});
        REQUIRE(poll_until([&] { return shot_count() == n; }, kReadyLimit));
    }
    xdotool({"key", "Escape"});
    const auto status = child.value().wait_until(std::chrono::steady_clock::now() + 20s);
    REQUIRE(status);
    INFO(read_text(dir.file("err.txt")));
    CHECK(status->success());
    CHECK_THAT(read_text(dir.file("out.txt")), Catch::Contains("(quit)"));

    // framelock-DATE-TIME-N.png, N counting the screenshots.
    std::vector<Image> pictures(3);
    for (const auto& entry : std::filesystem::directory_iterator(shots)) {
        const std::string name = entry.path().stem().string();
        const int n = std::stoi(name.substr(name.rfind('-') + 1));
        REQUIRE(n >= 1);
        REQUIRE(n <= 3);
        pictures[static_cast<std::size_t>(n - 1)] = png(entry.path().string());
    }
    // 2x the core's 4:3 picture: 448 high, 597 wide.
    CHECK(pictures[0].width == 597);
    CHECK(pictures[0].height == 448);
    // Fullscreen on the 1280x1024 screen: 1280x960 with 32 black lines above and below
    // (the lower bar's left part excepted: the message that the first screenshot was saved,
    // with its long path, is still showing there).
    REQUIRE(pictures[1].width == 1280);
    REQUIRE(pictures[1].height == 1024);
    std::size_t bar_pixels_lit = 0, picture_pixels_lit = 0;
    for (unsigned y = 0; y < 1024; ++y) {
        for (unsigned x = 0; x < 1280; ++x) {
            const bool bar = y < 32 || (y >= 992 && x >= 1100);
            const bool lit = pictures[1].at(x, y) != 0;
            if (bar && lit) ++bar_pixels_lit;
            if (!bar && lit) ++picture_pixels_lit;
        }
    }
    CHECK(bar_pixels_lit == 0);
    CHECK(picture_pixels_lit > 1280 * 960 / 2);  // the game's dark blue field, stars, HUD
    CHECK(pictures[2].width == 597);
    CHECK(pictures[2].height == 448);
}

TEST_CASE("Window: without a display --video sdl fails clearly and auto runs headless",
          "[integration][window]") {
    const CoreCase c = core_case("arcade");
    require_core_case(c);
    const char* saved = std::getenv("DISPLAY");
    const std::string restore = saved ? saved : "";
    for (const char* display : {"", ":9999"}) {  // none at all, one nobody serves
        INFO("DISPLAY='" << display << "'");
        if (*display)
            ::setenv("DISPLAY", display, 1);
        else
            ::unsetenv("DISPLAY");
        ::unsetenv("WAYLAND_DISPLAY");
        const ProcessResult sdl = run_process(run_args(c, {"--video", "sdl", "--frames", "10"}));
        CHECK(sdl.exit_code == 2);
        CHECK_THAT(sdl.err, Catch::Contains("--video sdl") && Catch::Contains("--video none"));
        CHECK_THAT(sdl.err,
                   Catch::Contains(*display ? "cannot open the display :9999" : "no display"));
        // -q is in run_args: the fallback message is info; ask for it with a fresh command.
        std::vector<std::string> args = run_args(c, {"--frames", "10"});
        args.erase(std::find(args.begin(), args.end(), "-q"));
        const ProcessResult automatic = run_process(args);
        CHECK(automatic.exit_code == 0);
        CHECK_THAT(automatic.err, Catch::Contains("running headless"));
        CHECK_THAT(automatic.out, Catch::Contains("frames   10"));
        const ProcessResult none = run_process(run_args(c, {"--video", "none", "--frames", "10"}));
        CHECK(none.exit_code == 0);
        CHECK(none.err.empty());
    }
    if (saved) ::setenv("DISPLAY", restore.c_str(), 1);
}

TEST_CASE("Window: config mistakes stop framelock with the line", "[integration][window]") {
    const CoreCase c = core_case("arcade");
    require_core_case(c);
    TempDir dir("window-config");
    write_config(dir.file("keys.toml"), "[input.port1]\nup = \"Up\"\na = \"Jump\"\n");
    auto r = run_process(run_args(c, {"--video", "none", "--config", dir.file("keys.toml")}));
    CHECK(r.exit_code == 7);
    CHECK_THAT(r.err, Catch::Contains("keys.toml") && Catch::Contains("line 3") &&
                          Catch::Contains("unknown key name \"Jump\""));
    write_config(dir.file("broken.toml"), "[video]\nscale = 3\nfullscreen = = true\n");
    r = run_process(run_args(c, {"--video", "none", "--config", dir.file("broken.toml")}));
    CHECK(r.exit_code == 7);
    CHECK_THAT(r.err, Catch::Contains("broken.toml") && Catch::Contains("line 3"));
}

TEST_CASE("Window: every libretro pixel format, any pitch, reaches the window unchanged",
          "[integration][window]") {
    using namespace framelock::frontend;
    FRAMELOCK_SKIP_UNLESS_XVFB();
    Xvfb xvfb;
    SdlSubsystems sdl(SDL_INIT_VIDEO);
    REQUIRE(sdl.ok());
    VideoSettings settings;
    settings.scale = 2;
    settings.aspect = -1;  // square pixels: 2x2 blocks
    auto made = SdlVideo::create("framelock pixel formats", settings, 64, 48, 0);
    REQUIRE(made.ok());
    SdlVideo& video = *made.value();
    std::mt19937 rng(5);
    for (const PixelFormat format :
         {PixelFormat::k0RGB1555, PixelFormat::kRGB565, PixelFormat::kXRGB8888}) {
        INFO("format " << static_cast<int>(format));
        const unsigned w = 64, h = 48;
        const std::size_t pitch = w * bytes_per_pixel(format) + 24;  // padded lines
        std::vector<std::uint8_t> bytes(pitch * h);
        for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
        if (format == PixelFormat::k0RGB1555) {
            for (std::size_t i = 1; i < bytes.size(); i += 2) bytes[i] &= 0x7f;  // top bit unused
        }
        const VideoFrame frame{bytes.data(), w, h, pitch, format};
        video.present(frame);
        video.draw_picture();
        auto shown = video.read_window();
        REQUIRE(shown.ok());
        video.flip();
        require_integer_scaled(shown.value(), to_image(frame), 2);
    }
}

TEST_CASE("Window: the netplay overlay over a two-player loopback session",
          "[integration][window]") {
    FRAMELOCK_SKIP_UNLESS_XVFB();
    const CoreCase c = core_case("arcade");
    require_core_case(c);
    Xvfb xvfb;
    TempDir dir("window-overlay");
    write_config(dir.file("framelock.toml"), "[video]\nscale = 3\naspect = \"square\"\n");
    ::setenv("SDL_AUDIODRIVER", "dummy", 1);  // sound through SDL, to no device
    const std::string port_file = dir.file("port");
    const int frames = 360, shot_frame = 330;
    auto host = ChildProcess::spawn({build_paths::framelock_exe,
                                     "host",
                                     "--mode",
                                     "framelock",
                                     "--port",
                                     "0",
                                     "--port-file",
                                     port_file,
                                     "--players",
                                     "2",
                                     "--core",
                                     c.core,
                                     "--video",
                                     "sdl",
                                     "--audio",
                                     "sdl",
                                     "--config",
                                     dir.file("framelock.toml"),
                                     "--name",
                                     "alice",
                                     "--random",
                                     "1",
                                     "--frames",
                                     std::to_string(frames),
                                     "--screenshot-frame",
                                     std::to_string(shot_frame),
                                     "--screenshot",
                                     dir.file("core.png"),
                                     "--window-screenshot",
                                     dir.file("window.png")},
                                    dir.file("host.out"), dir.file("host.err"));
    REQUIRE(host.ok());
    auto port = framelock::wait_for_port_file(port_file, host.value(), ready_deadline());
    INFO(read_text(dir.file("host.err")));
    REQUIRE(port.ok());
    auto join = ChildProcess::spawn(
        {build_paths::framelock_exe, "join", "127.0.0.1:" + std::to_string(port.value()), "--core",
         c.core, "--video", "none", "--name", "bob", "--slot", "2", "--random", "2", "--frames",
         std::to_string(frames)},
        dir.file("join.out"), dir.file("join.err"));
    REQUIRE(join.ok());
    const auto joined = join.value().wait_until(std::chrono::steady_clock::now() + 90s);
    const auto hosted = host.value().wait_until(std::chrono::steady_clock::now() + 30s);
    INFO(read_text(dir.file("join.err")));
    REQUIRE(joined);
    REQUIRE(hosted);
    CHECK(joined->success());
    CHECK(hosted->success());
    CHECK_THAT(read_text(dir.file("host.out")),
               Catch::Contains("frames     " + std::to_string(frames)) &&
                   Catch::Contains("audio    dummy"));

    const Image core = png(dir.file("core.png"));
    const Image window = png(dir.file("window.png"));
    REQUIRE(window.width == 3 * core.width);
    REQUIRE(window.height == 3 * core.height);
    // Away from the overlay panel (top left) and the corner where session messages appear
    // (bottom left: a delay change may have been announced in the last 4 s), the window is
    // the game at 3x, exactly: the picture of the screenshot frame (the window is captured
    // when that frame's picture arrives).
    const unsigned panel_right = 420, panel_bottom = 330;
    const unsigned messages_right = 720, messages_top = 672 - 112;
    std::size_t outside_differ = 0, outside = 0, inside_differ = 0;
    bool rtt_colour = false, delay_colour = false;
    for (unsigned y = 0; y < window.height; ++y) {
        for (unsigned x = 0; x < window.width; ++x) {
            const std::uint32_t pixel = window.at(x, y);
            const bool in_panel = x < panel_right && y < panel_bottom;
            const bool in_messages = x < messages_right && y >= messages_top;
            const bool same = pixel == core.at(x / 3, y / 3);
            if (!in_panel && !in_messages) {
                ++outside;
                if (!same) ++outside_differ;
            }
            if (in_panel && !same) ++inside_differ;
            if (in_panel) {
                rtt_colour = rtt_colour || pixel == 0x5ac8ff;      // the RTT line
                delay_colour = delay_colour || pixel == 0xfad250;  // the delay line
            }
        }
    }
    CHECK(outside_differ == 0);
    CHECK(outside > window.width * window.height * 3 / 5);  // two thirds of the window
    // The panel: darkened backdrop, text and both graph lines.
    CHECK(inside_differ > 20000);
    CHECK(rtt_colour);
    CHECK(delay_colour);
    ::unsetenv("SDL_AUDIODRIVER");
}
