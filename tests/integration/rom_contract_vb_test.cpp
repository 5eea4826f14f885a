// The Virtual Boy ROM's contract (tests/roms/README.md), as rom_contract_test.cpp checks the
// other ROMs': random buttons in, the ROM's pad bytes, CRC-32 and frame counter predicted.
// mednafen_vb exports no memory (retro_get_memory_size answers 0 for every id and it sets no
// memory map), so the block is read from the core's savestate, where mednafen keeps the work
// RAM as the entry "WRAM": the name's length, the name, the size (32 bits, little-endian), the
// 64 KiB from 0x05000000.
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

namespace {

constexpr std::size_t kBlock = 0x0010;  // the block's offset in work RAM

// The RetroPad button the core puts on each bit of the pad's 16 (SDHR:SDLR), as measured with
// the ROM; -1: no button (bit 0, low battery, and bit 1, always 1, which the ROM clears). The
// right d-pad is L2 (up), R3 (right), R2 (left) and L3 (down).
constexpr int kPadBits[16] = {-1,
                              -1,
                              RETRO_DEVICE_ID_JOYPAD_A,
                              RETRO_DEVICE_ID_JOYPAD_B,
                              RETRO_DEVICE_ID_JOYPAD_R,
                              RETRO_DEVICE_ID_JOYPAD_L,
                              RETRO_DEVICE_ID_JOYPAD_L2,
                              RETRO_DEVICE_ID_JOYPAD_R3,
                              RETRO_DEVICE_ID_JOYPAD_RIGHT,
                              RETRO_DEVICE_ID_JOYPAD_LEFT,
                              RETRO_DEVICE_ID_JOYPAD_DOWN,
                              RETRO_DEVICE_ID_JOYPAD_UP,
                              RETRO_DEVICE_ID_JOYPAD_START,
                              RETRO_DEVICE_ID_JOYPAD_SELECT,
                              RETRO_DEVICE_ID_JOYPAD_R2,
                              RETRO_DEVICE_ID_JOYPAD_L3};

// The ROM's two pad bytes for a RetroPad word (X and Y do nothing; opposing directions pass).
std::array<std::uint8_t, 2> pad_bytes(netplay::InputWord word) {
    unsigned pad = 0;
    for (unsigned bit = 0; bit < 16; ++bit) {
        if (kPadBits[bit] >= 0 && ((word >> kPadBits[bit]) & 1u)) pad |= 1u << bit;
    }
    return {static_cast<std::uint8_t>(pad), static_cast<std::uint8_t>(pad >> 8)};
}

// Where the work RAM starts in a savestate, or 0 when the entry is not there once.
std::size_t wram_offset(const std::vector<std::uint8_t>& state) {
    static constexpr std::uint8_t kEntry[] = {4, 'W', 'R', 'A', 'M', 0x00, 0x00, 0x01, 0x00};
    const auto first =
        std::search(state.begin(), state.end(), std::begin(kEntry), std::end(kEntry));
    if (first == state.end()) return 0;
    if (std::search(first + 1, state.end(), std::begin(kEntry), std::end(kEntry)) != state.end())
        return 0;
    const auto offset = static_cast<std::size_t>(first - state.begin()) + sizeof kEntry;
    return state.size() >= offset + 0x10000 ? offset : 0;
}

}  // namespace

TEST_CASE("Virtual Boy ROM's pad checksum equals one computed from the inputs sent",
          "[integration][rom]") {
    const auto c = core_case("vb");
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
    const std::size_t wram = wram_offset(state);
    REQUIRE(wram != 0);
    const auto block = [&] { return state.data() + wram + kBlock; };

    RandomInput input(99, 1);
    std::uint32_t expected = 0;
    int frames_processed = 0, pad_mismatches = 0, crc_mismatches = 0, nonzero_pads = 0;
    int counter_mismatches = 0;
    unsigned buttons_seen = 0;
    for (std::uint64_t f = 0; f < 3000; ++f) {
        const netplay::InputFrame frame = input.input_for(f);
        const std::uint32_t counter_before = le32(block() + 12);
        emu.run_frame(frame, false);
        REQUIRE(emu.save_state(state));
        REQUIRE(wram_offset(state) == wram);
        const std::uint8_t* b = block();
        // The ROM processes its first frame in the second call, then one in each call.
        const std::uint32_t counter = le32(b + 12);
        counter_mismatches += counter != f;
        if (counter != counter_before) {  // the ROM processed a frame: it read the pad
            ++frames_processed;
            const auto bytes = pad_bytes(frame.pads[0]);
            nonzero_pads += bytes[0] != 0 || bytes[1] != 0;
            buttons_seen |= bytes[0] | bytes[1] << 8;
            pad_mismatches += b[0] != bytes[0] || b[1] != bytes[1];
            expected = crc_update(crc_update(expected, bytes[0]), bytes[1]);
        }
        crc_mismatches += le32(b + 8) != expected;
    }
    CHECK(std::memcmp(block() + 5, "FL\x01", 3) == 0);
    CHECK(frames_processed == 2999);
    CHECK(counter_mismatches == 0);
    CHECK(pad_mismatches == 0);
    CHECK(buttons_seen == 0xFFFC);  // all 14 buttons were pressed at some point
    CHECK(nonzero_pads > frames_processed / 2);
    CHECK(crc_mismatches == 0);
    CHECK(expected != 0);
}
