// RetroEmulator in process on the bundled cores: memory regions, save/load round trips,
// and two private instances of one core side by side.
#include <catch2/catch.hpp>

#include <algorithm>

#include "frontend/host/input_script.h"
#include "frontend/host/retro_emulator.h"
#include "integration/cores.h"
#include "netplay/determinism/state_hash.h"

using namespace framelock;
using namespace framelock::frontend;
using framelock::test::core_case;

namespace {

std::unique_ptr<RetroEmulator> make(const char* core, bool private_copy = false) {
    HostConfig config;
    config.core_path = core_case(core).core;
    config.ports = 4;
    config.option_overrides = {{"farcade_players", "4"}};
    config.load_sram = config.write_sram = false;
    config.private_core_copy = private_copy;
    auto created = RetroEmulator::create(config);
    INFO((created.ok() ? std::string() : created.error().message));
    REQUIRE(created.ok());
    return std::move(created).value();
}

}  // namespace

TEST_CASE("The arcade core's memory map becomes named regions", "[integration][emulator]") {
    framelock::test::require_core_case(core_case("arcade"));
    auto emu = make("arcade");
    std::vector<std::string> names;
    for (const auto& region : emu->memory_regions()) names.push_back(region.name);
    CHECK(names == std::vector<std::string>{"SYSTEM", "PLAYERS", "OBJECTS", "AUDIO"});
    CHECK(emu->frames_per_second() == Approx(60.0));
    CHECK(emu->pixel_format() == PixelFormat::kXRGB8888);
}

TEST_CASE("Save, run, load, re-run gives the same hashes, and a bad state is refused",
          "[integration][emulator]") {
    framelock::test::require_core_case(core_case("arcade"));
    auto emu = make("arcade");
    RandomInput input(11, 4);
    for (std::uint64_t f = 0; f < 300; ++f) emu->run_frame(input.input_for(f), false);
    std::vector<std::uint8_t> saved;
    REQUIRE(emu->save_state(saved));
    std::vector<std::uint64_t> first, second;
    for (std::uint64_t f = 300; f < 420; ++f) {
        emu->run_frame(input.input_for(f), true);
        first.push_back(emu->state_hash());
    }
    REQUIRE(emu->load_state(saved));
    for (std::uint64_t f = 300; f < 420; ++f) {
        emu->run_frame(input.input_for(f), true);
        second.push_back(emu->state_hash());
    }
    CHECK(first == second);
    CHECK(std::adjacent_find(first.begin(), first.end()) ==
          first.end());  // the state moves every frame

    std::vector<std::uint8_t> garbage(saved.size(), 0x77);
    CHECK_FALSE(emu->load_state(garbage));
    CHECK_FALSE(emu->load_state({}));
    CHECK(emu->state_hash() == second.back());  // a refused state changed nothing
}

TEST_CASE("Two private instances of one core run side by side without sharing state",
          "[integration][emulator]") {
    framelock::test::require_core_case(core_case("arcade"));
    auto a = make("arcade", true);
    auto b = make("arcade", true);
    RandomInput input_a(21, 4), input_b(21, 4);
    int equal = 0;
    for (std::uint64_t f = 0; f < 600; ++f) {
        // Interleaved: callbacks must reach the instance being driven.
        a->run_frame(input_a.input_for(f), true);
        b->run_frame(input_b.input_for(f), true);
        equal += a->state_hash() == b->state_hash();
    }
    CHECK(equal == 600);
    // Diverge one of them: the other is unaffected.
    netplay::InputFrame tap{};
    tap.pads[0] = 1u << RETRO_DEVICE_ID_JOYPAD_A;
    const auto before_b = b->state_hash();
    a->run_frame(tap, true);
    CHECK(b->state_hash() == before_b);
    CHECK(a->frame_count() == 601);
    CHECK(b->frame_count() == 600);
}
