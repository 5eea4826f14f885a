#include <catch2/catch.hpp>

#include "frontend/host/libretro_core.h"
#include "support/build_paths.h"

using namespace framelock::frontend;
using framelock::ErrorCode;

TEST_CASE("A complete core loads and reports its info", "[frontend][core]") {
    auto core = LibretroCore::open(framelock::test::build_paths::fake_good_core);
    REQUIRE(core.ok());
    CHECK(core.value()->info().library_name == "fake");
    CHECK(core.value()->info().valid_extensions == "fake");
    CHECK(core.value()->api().run != nullptr);
}

TEST_CASE("Load errors name the file and what is wrong", "[frontend][core]") {
    auto missing = LibretroCore::open("/nonexistent/x_libretro.so");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code == ErrorCode::kCoreLoad);
    CHECK_THAT(missing.error().message,
               Catch::Contains("not found") && Catch::Contains("/nonexistent/x_libretro.so"));

    auto not_elf = LibretroCore::open(std::string(framelock::test::build_paths::source_dir) +
                                      "/tests/unit/libretro_core_test.cpp");
    REQUIRE_FALSE(not_elf.ok());
    CHECK_THAT(not_elf.error().message, Catch::Contains("not a loadable shared library"));

    auto no_run = LibretroCore::open(framelock::test::build_paths::fake_norun_core);
    REQUIRE_FALSE(no_run.ok());
    CHECK_THAT(no_run.error().message, Catch::Contains("symbol retro_run is missing"));

    auto api2 = LibretroCore::open(framelock::test::build_paths::fake_api2_core);
    REQUIRE_FALSE(api2.ok());
    CHECK_THAT(api2.error().message,
               Catch::Contains("API version 2") && Catch::Contains("version 1"));
}

TEST_CASE("Private copies give two independent instances of one core", "[frontend][core]") {
    auto a = LibretroCore::open(framelock::test::build_paths::fake_good_core, {true});
    auto b = LibretroCore::open(framelock::test::build_paths::fake_good_core, {true});
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    // Distinct copies: distinct code, so distinct globals.
    CHECK(reinterpret_cast<void*>(a.value()->api().run) !=
          reinterpret_cast<void*>(b.value()->api().run));
    a.value()->api().init();
    b.value()->api().init();
    auto* ram_a =
        static_cast<std::uint8_t*>(a.value()->api().get_memory_data(RETRO_MEMORY_SYSTEM_RAM));
    auto* ram_b =
        static_cast<std::uint8_t*>(b.value()->api().get_memory_data(RETRO_MEMORY_SYSTEM_RAM));
    CHECK(ram_a != ram_b);
}
