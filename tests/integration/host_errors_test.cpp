// Bad inputs to `framelock run`: each answered with a clear message and its exit code,
// never a crash or a hang.
#include <catch2/catch.hpp>

#include "integration/cores.h"
#include "support/build_paths.h"
#include "support/process.h"

using namespace framelock::test;

namespace {

ProcessResult run_framelock(std::vector<std::string> args) {
    args.insert(args.begin(), {build_paths::framelock_exe, "run", "--frames", "30"});
    auto result = run_process(args, std::chrono::seconds(30));
    INFO("stderr: " << result.err);
    REQUIRE_FALSE(result.signaled);
    REQUIRE_FALSE(result.timed_out);
    return result;
}

}  // namespace

TEST_CASE("Missing core file", "[integration][errors]") {
    auto r = run_framelock({"--core", "/nonexistent/thing_libretro.so"});
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Catch::Contains("core file not found: '/nonexistent/thing_libretro.so'"));
}

TEST_CASE("Unknown core name lists where it looked", "[integration][errors]") {
    auto r = run_framelock({"--core", "nosuchcore"});
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Catch::Contains("no core named 'nosuchcore'") && Catch::Contains("libretro"));
}

TEST_CASE("A file that is not a core", "[integration][errors]") {
    TempDir dir("notcore");
    write_text(dir.file("fake_libretro.so"), "this is text, not ELF\n");
    auto r = run_framelock({"--core", dir.file("fake_libretro.so")});
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Catch::Contains("is not a loadable shared library"));
}

TEST_CASE("A core missing a symbol is named with the symbol", "[integration][errors]") {
    auto r = run_framelock({"--core", build_paths::fake_norun_core});
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Catch::Contains("symbol retro_run is missing"));
}

TEST_CASE("Missing content", "[integration][errors]") {
    const CoreCase c = core_case("nestopia");
    FRAMELOCK_SKIP_UNLESS_FILE(c.core, c.how_to_get);
    auto r = run_framelock({"--core", c.core, "--content", "/nonexistent/game.nes", "--no-sram"});
    CHECK(r.exit_code == 4);
    CHECK_THAT(r.err, Catch::Contains("content file not found: '/nonexistent/game.nes'"));

    auto none = run_framelock({"--core", c.core, "--no-sram"});
    CHECK(none.exit_code == 4);
    CHECK_THAT(none.err, Catch::Contains("needs content") && Catch::Contains("nes"));
}

TEST_CASE("Content the core rejects", "[integration][errors]") {
    TempDir dir("reject");
    write_text(dir.file("garbage.nes"), std::string(1000, 'x'));
    const CoreCase c = core_case("nestopia");
    FRAMELOCK_SKIP_UNLESS_FILE(c.core, c.how_to_get);
    auto r = run_framelock({"--core", c.core, "--content", dir.file("garbage.nes"), "--no-sram"});
    CHECK(r.exit_code == 4);
    CHECK_THAT(r.err, Catch::Contains("refused content") && Catch::Contains("garbage.nes"));

    auto fake = run_framelock({"--core", build_paths::fake_refuse_core, "--no-sram"});
    CHECK(fake.exit_code == 4);
    CHECK_THAT(fake.err, Catch::Contains("refused"));
}

TEST_CASE("Malformed input script names the line", "[integration][errors]") {
    TempDir dir("script");
    write_text(dir.file("bad.txt"), "0 1 A\n10 1 B+JUMP\n");
    auto r = run_framelock(
        {"--core", build_paths::fake_good_core, "--no-sram", "--input", dir.file("bad.txt")});
    CHECK(r.exit_code == 5);
    CHECK_THAT(r.err, Catch::Contains("line 2") && Catch::Contains("JUMP"));

    auto missing = run_framelock(
        {"--core", build_paths::fake_good_core, "--no-sram", "--input", dir.file("none.txt")});
    CHECK(missing.exit_code == 5);
    CHECK_THAT(missing.err, Catch::Contains("none.txt"));
}

TEST_CASE("Unwritable save directory", "[integration][errors]") {
    TempDir dir("savedir");
    write_text(dir.file("plain"), "a file where a directory should be");
    auto r = run_framelock(
        {"--core", build_paths::fake_good_core, "--save-dir", dir.file("plain") + "/saves"});
    CHECK(r.exit_code == 6);
    CHECK_THAT(r.err, Catch::Contains("save directory") && Catch::Contains("--save-dir"));
}

TEST_CASE("Malformed config file names the line", "[integration][errors]") {
    TempDir dir("config");
    write_text(dir.file("framelock.toml"), "[paths]\nsystem = \"/srv\"\nsaves = [\n");
    auto r = run_framelock({"--core", build_paths::fake_good_core, "--no-sram", "--config",
                            dir.file("framelock.toml")});
    CHECK(r.exit_code == 7);
    CHECK_THAT(r.err, Catch::Contains("framelock.toml") && Catch::Contains("line"));
}

TEST_CASE("Bad command-line values", "[integration][errors]") {
    auto option =
        run_framelock({"--core", build_paths::fake_good_core, "--no-sram", "--option", "novalue"});
    CHECK(option.exit_code == 2);
    CHECK_THAT(option.err, Catch::Contains("KEY=VALUE"));
    auto ports = run_framelock({"--core", build_paths::fake_good_core, "--ports", "9"});
    CHECK(ports.exit_code == 2);
}

TEST_CASE("A session setting outside the engine's range is refused with the range",
          "[integration][errors]") {
    // The ranges come from netplay/server/session_limits.h; the server would otherwise bring the
    // value inside and say so, but a command line is refused before anything starts.
    const auto server = [](std::vector<std::string> args) {
        args.insert(args.begin(), {build_paths::framelock_exe, "server", "--port", "0"});
        return run_process(args, std::chrono::seconds(30));
    };
    auto rollback = server({"--players", "2", "--mode", "rollback", "--delay", "20"});
    CHECK(rollback.exit_code == 2);
    CHECK_THAT(rollback.err, Catch::Contains("--delay: rollback's local input delay 20 frames "
                                             "is outside 0-15 frames"));
    auto nowait = server({"--players", "2", "--mode", "nowait", "--delay", "1"});
    CHECK(nowait.exit_code == 2);
    CHECK_THAT(nowait.err, Catch::Contains("no-wait's input delay 1 frames is outside 2-60"));
    auto window = server({"--players", "2", "--mode", "rollback", "--prediction-window", "61"});
    CHECK(window.exit_code != 0);
    CHECK_THAT(window.err, Catch::Contains("--prediction-window") && Catch::Contains("1 to 60"));
}
