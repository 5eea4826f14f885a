#include <catch2/catch.hpp>

#include <cstring>

#include "frontend/host/core_options.h"

using framelock::frontend::CoreOptions;

TEST_CASE("v0 options: description, values, first value is the default", "[frontend][options]") {
    const retro_variable vars[] = {{"nes_region", "Region; auto|ntsc|pal"},
                                   {"nes_turbo", "Turbo speed;2|3| 4 "},
                                   {nullptr, nullptr}};
    CoreOptions options;
    options.declare_v0(vars);
    REQUIRE(options.options().size() == 2);
    CHECK(options.options()[0].description == "Region");
    CHECK(options.options()[0].values == std::vector<std::string>{"auto", "ntsc", "pal"});
    CHECK(std::strcmp(options.get("nes_region"), "auto") == 0);
    CHECK(options.options()[1].values == std::vector<std::string>{"2", "3", "4"});
    CHECK(options.get("unknown") == nullptr);
}

TEST_CASE("Overrides apply when valid and fall back to the default when not",
          "[frontend][options]") {
    const retro_variable vars[] = {{"a", "A; x|y|z"}, {"b", "B; 1|2"}, {nullptr, nullptr}};
    CoreOptions options;
    options.set_overrides({{"a", "z"}, {"b", "7"}, {"ghost", "1"}});
    options.declare_v0(vars);
    CHECK(std::string(options.get("a")) == "z");
    CHECK(std::string(options.get("b")) == "1");  // "7" is not a value of b
    CHECK(options.unknown_overrides() == std::vector<std::string>{"ghost"});
}

TEST_CASE("v1 and v2 definitions with explicit defaults", "[frontend][options]") {
    retro_core_option_definition v1[2] = {};
    v1[0].key = "speed";
    v1[0].desc = "Speed";
    v1[0].values[0] = {"slow", nullptr};
    v1[0].values[1] = {"fast", "Fast!"};
    v1[0].default_value = "fast";
    CoreOptions options;
    options.declare_v1(v1);
    CHECK(std::string(options.get("speed")) == "fast");

    retro_core_option_v2_definition defs[3] = {};
    defs[0].key = "seed";
    defs[0].values[0] = {"1", nullptr};
    defs[0].values[1] = {"2", nullptr};
    defs[0].default_value = "2";
    defs[1].key = "mode";
    defs[1].values[0] = {"a", nullptr};
    defs[1].default_value = "not-a-value";  // invalid default means the first value
    retro_core_options_v2 v2{nullptr, defs};
    options.declare_v2(&v2);
    CHECK(options.get("speed") == nullptr);  // a new declaration replaces the old
    CHECK(std::string(options.get("seed")) == "2");
    CHECK(std::string(options.get("mode")) == "a");
}

TEST_CASE("GET_VARIABLE_UPDATE reports a change once, and the hash follows values",
          "[frontend][options]") {
    const retro_variable vars[] = {{"a", "A; x|y"}, {nullptr, nullptr}};
    CoreOptions options;
    options.declare_v0(vars);
    CHECK(options.take_updated());
    CHECK_FALSE(options.take_updated());
    const auto before = options.hash();
    CHECK(options.set("a", "y"));
    CHECK_FALSE(options.set("a", "nope"));
    CHECK_FALSE(options.set("missing", "x"));
    CHECK(options.take_updated());
    CHECK_FALSE(options.take_updated());
    CHECK(options.hash() != before);
    CHECK(options.set("a", "x"));
    CHECK(options.hash() == before);
}
