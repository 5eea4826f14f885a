// The Game Boy Advance ROM (tests/roms/gba/) on mgba: its cartridge header, and its contract
// (integration/rom_contract.h): the ten keys as two bytes, low byte first, in its checksum.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/skip.h"

#include "integration/rom_contract.h"

using namespace framelock;

namespace {

// RetroPad id for each bit of the ROM's key word (KEYINPUT's order), bit 0 first.
constexpr int kGbaKeys[10] = {RETRO_DEVICE_ID_JOYPAD_A,      RETRO_DEVICE_ID_JOYPAD_B,
                              RETRO_DEVICE_ID_JOYPAD_SELECT, RETRO_DEVICE_ID_JOYPAD_START,
                              RETRO_DEVICE_ID_JOYPAD_RIGHT,  RETRO_DEVICE_ID_JOYPAD_LEFT,
                              RETRO_DEVICE_ID_JOYPAD_UP,     RETRO_DEVICE_ID_JOYPAD_DOWN,
                              RETRO_DEVICE_ID_JOYPAD_R,      RETRO_DEVICE_ID_JOYPAD_L};

// The key word the ROM stores (1 = held), low byte first.
std::uint16_t gba_key_word(netplay::InputWord pad) {
    unsigned keys = 0;
    for (int i = 0; i < 10; ++i) {
        if (pad & (1u << kGbaKeys[i])) keys |= 1u << i;
    }
    return static_cast<std::uint16_t>(keys);
}

// The GBA's ten keys (X, Y, L2, R2, L3 and R3 off).
netplay::InputWord gba_pad(netplay::InputWord w) {
    netplay::InputWord mask = 0;
    for (int id : kGbaKeys) mask |= static_cast<netplay::InputWord>(1u << id);
    return w & mask;
}
netplay::InputWord mgba_gba_pad(netplay::InputWord w) {
    return test::without_opposing_directions(gba_pad(w));
}

// The block is at 0x03000010: offset 0x10 of IWRAM, the memory map's region at 0x03000000.
// The ROM processes its first frame in the third retro_run call.
test::RomContract gba_contract() {
    return {.core = "mgba_gba",
            .region = "3000000",
            .block_offset = 0x10,
            .pads = 1,
            .bytes_per_pad = 2,
            .pad_bytes = gba_key_word,
            .physical = mgba_gba_pad,
            .boot_calls = 2};
}

}  // namespace

TEST_CASE("Game Boy Advance ROM's cartridge header: no boot logo, the complement check right",
          "[integration][rom]") {
    FRAMELOCK_SKIP_UNLESS_FILE(test::build_paths::gba_rom,
                               "apt-get install binutils-arm-none-eabi");
    std::ifstream in(test::build_paths::gba_rom, std::ios::binary);
    const std::vector<std::uint8_t> rom((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
    REQUIRE(rom.size() >= 0xC0);
    CHECK(rom[3] == 0xEA);  // the first word: an ARM branch (always) to the program
    int logo_bytes = 0;
    for (std::size_t i = 0x04; i < 0xA0; ++i) logo_bytes += rom[i] != 0;
    CHECK(logo_bytes == 0);
    CHECK(std::string(rom.begin() + 0xA0, rom.begin() + 0xA9) == "FRAMELOCK");
    CHECK(rom[0xB2] == 0x96);
    std::uint8_t check = 0;
    for (std::size_t i = 0xA0; i < 0xBD; ++i) check = static_cast<std::uint8_t>(check - rom[i]);
    CHECK(rom[0xBD] == static_cast<std::uint8_t>(check - 0x19));
}

TEST_CASE("Game Boy Advance ROM's key checksum equals one computed from the inputs sent (mgba)",
          "[integration][rom]") {
    test::check_rom_contract(gba_contract());
}

TEST_CASE("Game Boy Advance ROM: mgba passes opposing directions with its option on",
          "[integration][rom]") {
    // The random input holds both directions of a pair on many frames: with the option on
    // the ROM reads them as sent.
    frontend::RandomInput input(99, 1);
    int opposing = 0;
    for (std::uint64_t f = 0; f < 3000; ++f) {
        const netplay::InputWord w = gba_pad(input.input_for(f).pads[0]);
        opposing += w != test::without_opposing_directions(w);
    }
    CHECK(opposing > 300);
    auto contract = gba_contract();
    contract.physical = gba_pad;
    contract.options = {{"mgba_allow_opposing_directions", "yes"}};
    test::check_rom_contract(contract);
}
