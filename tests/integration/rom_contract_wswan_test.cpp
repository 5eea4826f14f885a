// The WonderSwan ROM's contract (tests/roms/README.md), as rom_contract_test.cpp checks the
// other ROMs': random keys in, the ROM's CRC-32 predicted. mednafen_wswan exports no memory
// (retro_get_memory_data answers null for every id and it sets no memory map), so the block
// is read from the core's savestate, where mednafen keeps the internal RAM as the entry "RAM":
// the name's length, the name, the size (32 bits, little-endian), the 64 KiB.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "frontend/host/input_script.h"
#include "frontend/host/retro_emulator.h"
#include "integration/cores.h"
#include "integration/rom_contract.h"

using namespace framelock;
using namespace framelock::frontend;
using framelock::test::core_case;
using framelock::test::crc_update;
using framelock::test::le32;
using framelock::test::pad_byte;

namespace {

constexpr std::size_t kBlock = 0x0400;  // the block's address in internal RAM

// Key byte 0, bit 7 first: Y4 Y3 Y2 Y1 X4 X3 X2 X1, as the core maps the RetroPad (the
// d-pad is X1-X4, clockwise from up; R2, R, L2, L are Y1-Y4).
constexpr int kKeysOrder[8] = {RETRO_DEVICE_ID_JOYPAD_L,     RETRO_DEVICE_ID_JOYPAD_L2,
                               RETRO_DEVICE_ID_JOYPAD_R,     RETRO_DEVICE_ID_JOYPAD_R2,
                               RETRO_DEVICE_ID_JOYPAD_LEFT,  RETRO_DEVICE_ID_JOYPAD_DOWN,
                               RETRO_DEVICE_ID_JOYPAD_RIGHT, RETRO_DEVICE_ID_JOYPAD_UP};

// The ROM's two key bytes for a RetroPad word: byte 1 is B, A, Start in bits 3-1. The core
// reads no other button (Y, X, SELECT, L3 and R3 do nothing) and passes opposing directions on.
std::array<std::uint8_t, 2> key_bytes(netplay::InputWord word) {
    const auto held = [word](int id) { return (word >> id) & 1u; };
    return {pad_byte(word, kKeysOrder),
            static_cast<std::uint8_t>(held(RETRO_DEVICE_ID_JOYPAD_B) << 3 |
                                      held(RETRO_DEVICE_ID_JOYPAD_A) << 2 |
                                      held(RETRO_DEVICE_ID_JOYPAD_START) << 1)};
}

// Where the internal RAM starts in a savestate, or 0 when the entry is not there once.
std::size_t ram_offset(const std::vector<std::uint8_t>& state) {
    static constexpr std::uint8_t kEntry[] = {3, 'R', 'A', 'M', 0x00, 0x00, 0x01, 0x00};
    const auto first =
        std::search(state.begin(), state.end(), std::begin(kEntry), std::end(kEntry));
    if (first == state.end()) return 0;
    if (std::search(first + 1, state.end(), std::begin(kEntry), std::end(kEntry)) != state.end())
        return 0;
    const auto offset = static_cast<std::size_t>(first - state.begin()) + sizeof kEntry;
    return state.size() >= offset + 0x10000 ? offset : 0;
}

}  // namespace

TEST_CASE("WonderSwan ROM's key checksum equals one computed from the inputs sent",
          "[integration][rom]") {
    const auto c = core_case("wswan");
    framelock::test::require_core_case(c);
    HostConfig config;
    config.core_path = c.core;
    config.content_path = c.content;
    config.ports = c.ports;
    config.load_sram = config.write_sram = false;
    auto created = RetroEmulator::create(config);
    INFO((created.ok() ? std::string() : created.error().message));
    REQUIRE(created.ok());
    RetroEmulator& emu = *created.value();
    CHECK(emu.memory_regions().empty());

    std::vector<std::uint8_t> state;
    REQUIRE(emu.save_state(state));
    const std::size_t ram = ram_offset(state);
    REQUIRE(ram != 0);
    const auto block = [&] { return state.data() + ram + kBlock; };

    RandomInput input(99, 1);
    std::uint32_t expected = 0;
    int frames_processed = 0, key_mismatches = 0, crc_mismatches = 0, nonzero_keys = 0;
    int counter_mismatches = 0;
    for (std::uint64_t f = 0; f < 3000; ++f) {
        const netplay::InputFrame frame = input.input_for(f);
        const std::uint32_t counter_before = le32(block() + 12);
        emu.run_frame(frame, false);
        REQUIRE(emu.save_state(state));
        REQUIRE(ram_offset(state) == ram);
        const std::uint8_t* b = block();
        // The ROM processes its first frame in the second call, then one in each call.
        const std::uint32_t counter = le32(b + 12);
        counter_mismatches += counter != f;
        if (counter != counter_before) {  // the ROM processed a frame: it read the keypad
            ++frames_processed;
            const auto keys = key_bytes(frame.pads[0]);
            nonzero_keys += keys[0] != 0 || keys[1] != 0;
            key_mismatches += b[0] != keys[0] || b[1] != keys[1];
            expected = crc_update(crc_update(expected, keys[0]), keys[1]);
        }
        crc_mismatches += le32(b + 8) != expected;
    }
    CHECK(std::memcmp(block() + 5, "FL\x01", 3) == 0);
    CHECK(frames_processed == 2999);
    CHECK(counter_mismatches == 0);
    CHECK(key_mismatches == 0);
    CHECK(nonzero_keys > frames_processed / 2);
    CHECK(crc_mismatches == 0);
    CHECK(expected != 0);
}
