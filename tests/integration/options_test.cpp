// Core options end to end: the arcade core declares them through whichever API version
// the host offers; config-file and command-line overrides reach the game.
#include <catch2/catch.hpp>

#include "integration/cores.h"
#include "support/build_paths.h"
#include "support/process.h"

using namespace framelock::test;

namespace {

std::vector<std::string> arcade_log(const TempDir& dir, const std::string& name,
                                    std::vector<std::string> extra) {
    std::vector<std::string> args = {build_paths::framelock_exe,
                                     "run",
                                     "--core",
                                     core_case("arcade").core,
                                     "--no-sram",
                                     "--random",
                                     "5",
                                     "--frames",
                                     "600",
                                     "--hash-log",
                                     dir.file(name)};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_process(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return read_lines(dir.file(name));
}

}  // namespace

TEST_CASE("Options v0, v1 and v2 give the same game for the same values",
          "[integration][options]") {
    require_core_case(core_case("arcade"));
    TempDir dir("options");
    const auto v2 =
        arcade_log(dir, "v2.log", {"--options-version", "2", "--option", "farcade_seed=1941"});
    const auto v1 =
        arcade_log(dir, "v1.log", {"--options-version", "1", "--option", "farcade_seed=1941"});
    const auto v0 =
        arcade_log(dir, "v0.log", {"--options-version", "0", "--option", "farcade_seed=1941"});
    CHECK(v2 == v1);
    CHECK(v2 == v0);
    const auto default_seed = arcade_log(dir, "default.log", {});
    CHECK(default_seed != v2);
}

TEST_CASE("Config file overrides per core, and the command line wins", "[integration][options]") {
    require_core_case(core_case("arcade"));
    TempDir dir("config-options");
    write_text(dir.file("framelock.toml"),
               "[core_options.\"framelock-arcade\"]\nfarcade_seed = \"1941\"\n"
               "[core_options.Nestopia]\nfarcade_seed = \"42\"   # another core's section: ignored "
               "here\n");
    const auto from_config =
        arcade_log(dir, "config.log", {"--config", dir.file("framelock.toml")});
    const auto from_cli = arcade_log(dir, "cli.log", {"--option", "farcade_seed=1941"});
    CHECK(from_config == from_cli);
    const auto cli_wins = arcade_log(
        dir, "wins.log", {"--config", dir.file("framelock.toml"), "--option", "farcade_seed=42"});
    const auto seed42 = arcade_log(dir, "seed42.log", {"--option", "farcade_seed=42"});
    CHECK(cli_wins == seed42);
    CHECK(cli_wins != from_config);
}

TEST_CASE("An invalid option value is reported with the allowed values", "[integration][options]") {
    require_core_case(core_case("arcade"));
    const auto r = run_process({build_paths::framelock_exe, "run", "--core",
                                core_case("arcade").core, "--no-sram", "--frames", "10", "--option",
                                "farcade_seed=7777", "--option", "no_such_key=1"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("farcade_seed=7777") && Catch::Contains("1941") &&
                          Catch::Contains("no_such_key"));
}
