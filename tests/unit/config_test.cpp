#include <catch2/catch.hpp>

#include <string>

#include "frontend/app/config.h"

using namespace framelock::frontend;

TEST_CASE("Config: paths and per-core option overrides", "[frontend][config]") {
    auto config = parse_config(R"(
[paths]
system = "/srv/bios"
saves = "/srv/saves"
cores = ["/opt/cores", "/usr/local/cores"]

[core_options."framelock-arcade"]
farcade_seed = "7"
farcade_players = 4

[core_options.Nestopia]
nestopia_blargg_ntsc_filter = "disabled"
)",
                               "test.toml");
    REQUIRE(config.ok());
    const Config& c = config.value();
    CHECK(c.system_dir == "/srv/bios");
    CHECK(c.save_dir == "/srv/saves");
    CHECK(c.core_dirs == std::vector<std::string>{"/opt/cores", "/usr/local/cores"});
    CHECK(c.core_options.at("framelock-arcade").at("farcade_seed") == "7");
    CHECK(c.core_options.at("framelock-arcade").at("farcade_players") == "4");
    CHECK(c.core_options.at("Nestopia").size() == 1);
}

TEST_CASE("Config errors carry the line number", "[frontend][config]") {
    auto syntax = parse_config("[paths]\nsystem = \"ok\"\nsaves = \n", "bad.toml");
    REQUIRE_FALSE(syntax.ok());
    CHECK_THAT(syntax.error().message, Catch::Contains("bad.toml line 3"));

    auto unknown = parse_config("[paths]\nsystem = \"a\"\nbios = \"b\"\n", "c.toml");
    REQUIRE_FALSE(unknown.ok());
    CHECK_THAT(unknown.error().message, Catch::Contains("line 3") && Catch::Contains("paths.bios"));

    auto section = parse_config("[netplay]\ndelay = 2\n", "d.toml");
    REQUIRE_FALSE(section.ok());
    CHECK_THAT(section.error().message, Catch::Contains("unknown section [netplay]"));

    auto wrong_type = parse_config("[core_options.x]\nk = [1]\n", "e.toml");
    REQUIRE_FALSE(wrong_type.ok());
    CHECK_THAT(wrong_type.error().message, Catch::Contains("line 2"));

    // A float is refused with the way to write it, whatever its size (3e24 once reached an
    // unchecked float-to-integer cast inside toml++: tests/fuzz/regressions/config).
    for (const char* number : {"0.5", "3e24", "-3e24", "nan", "inf"}) {
        auto fractional =
            parse_config(std::string("[core_options.x]\nk = ") + number + "\n", "f.toml");
        REQUIRE_FALSE(fractional.ok());
        CHECK_THAT(fractional.error().message,
                   Catch::Contains("f.toml line 2") && Catch::Contains("in quotes"));
    }
    auto whole = parse_config("[core_options.x]\nk = 3\nflag = true\n", "g.toml");
    REQUIRE(whole.ok());
    CHECK(whole.value().core_options.at("x").at("k") == "3");
    CHECK(whole.value().core_options.at("x").at("flag") == "enabled");
}

TEST_CASE("A missing default config is empty, a missing named one is an error",
          "[frontend][config]") {
    CHECK(load_config("/nonexistent/framelock.toml", false).ok());
    auto named = load_config("/nonexistent/framelock.toml", true);
    REQUIRE_FALSE(named.ok());
    CHECK_THAT(named.error().message, Catch::Contains("/nonexistent/framelock.toml"));
}
