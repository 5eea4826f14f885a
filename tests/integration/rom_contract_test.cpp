// The NES, PC Engine and Game Boy ROMs' contract (integration/rom_contract.h): each pad's byte,
// pad 1 first, in its checksum.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "integration/rom_contract.h"

using namespace framelock;
using namespace framelock::frontend;
using framelock::test::pad_byte;

namespace {

// RetroPad bit for each ROM pad-byte bit, bit 7 first.
constexpr int kNesOrder[8] = {RETRO_DEVICE_ID_JOYPAD_A,      RETRO_DEVICE_ID_JOYPAD_B,
                              RETRO_DEVICE_ID_JOYPAD_SELECT, RETRO_DEVICE_ID_JOYPAD_START,
                              RETRO_DEVICE_ID_JOYPAD_UP,     RETRO_DEVICE_ID_JOYPAD_DOWN,
                              RETRO_DEVICE_ID_JOYPAD_LEFT,   RETRO_DEVICE_ID_JOYPAD_RIGHT};
constexpr int kPceOrder[8] = {RETRO_DEVICE_ID_JOYPAD_LEFT,  RETRO_DEVICE_ID_JOYPAD_DOWN,
                              RETRO_DEVICE_ID_JOYPAD_RIGHT, RETRO_DEVICE_ID_JOYPAD_UP,
                              RETRO_DEVICE_ID_JOYPAD_START, RETRO_DEVICE_ID_JOYPAD_SELECT,
                              RETRO_DEVICE_ID_JOYPAD_B,     RETRO_DEVICE_ID_JOYPAD_A};

constexpr int kGbOrder[8] = {RETRO_DEVICE_ID_JOYPAD_START, RETRO_DEVICE_ID_JOYPAD_SELECT,
                             RETRO_DEVICE_ID_JOYPAD_B,     RETRO_DEVICE_ID_JOYPAD_A,
                             RETRO_DEVICE_ID_JOYPAD_DOWN,  RETRO_DEVICE_ID_JOYPAD_UP,
                             RETRO_DEVICE_ID_JOYPAD_LEFT,  RETRO_DEVICE_ID_JOYPAD_RIGHT};

// What a pad can physically send to each core. nestopia cancels opposing directions
// (a real NES pad cannot press both) and maps X/Y to turbo A/B; L2 switches a PC Engine
// pad to 6-button mode. The ROMs then see something else than the buttons sent, by design.
netplay::InputWord nes_pad(netplay::InputWord w) {
    w &= 0x01ff;  // B, SELECT, START, d-pad, A (Y, X, shoulders off)
    w &= static_cast<netplay::InputWord>(~(1u << RETRO_DEVICE_ID_JOYPAD_Y));
    if ((w >> RETRO_DEVICE_ID_JOYPAD_UP & 1) && (w >> RETRO_DEVICE_ID_JOYPAD_DOWN & 1))
        w &= ~(1u << RETRO_DEVICE_ID_JOYPAD_DOWN);
    if ((w >> RETRO_DEVICE_ID_JOYPAD_LEFT & 1) && (w >> RETRO_DEVICE_ID_JOYPAD_RIGHT & 1))
        w &= ~(1u << RETRO_DEVICE_ID_JOYPAD_RIGHT);
    return w;
}
netplay::InputWord pce_pad(netplay::InputWord w) {
    return w & 0x0fff;
}
// The Game Boy's eight buttons. gambatte passes opposing directions on; mgba, by default
// (its option mgba_allow_opposing_directions is off), drops both of a pair.
netplay::InputWord gb_pad(netplay::InputWord w) {
    return w & 0x01fd;  // B, SELECT, START, d-pad, A
}
netplay::InputWord mgba_gb_pad(netplay::InputWord w) {
    return framelock::test::without_opposing_directions(gb_pad(w));
}

// `region`: the memory region holding the block (SYSTEM_RAM, or a memory map's region named
// by its start address where the core describes its memory map). One byte per pad.
void check_contract(const char* name, const char* region_name, std::size_t block_offset,
                    unsigned pads, const int (&order)[8],
                    netplay::InputWord (*physical)(netplay::InputWord)) {
    framelock::test::check_rom_contract(
        {name, region_name, block_offset, pads, 1,
         [&](netplay::InputWord w) -> std::uint16_t { return pad_byte(w, order); }, physical});
}

}  // namespace

TEST_CASE("NES ROM's pad checksum equals one computed from the inputs sent", "[integration][rom]") {
    check_contract("nestopia", "SYSTEM_RAM", 0x10, 2, kNesOrder, nes_pad);
}

TEST_CASE("PCE ROM's 5-pad checksum equals one computed from the inputs sent",
          "[integration][rom]") {
    check_contract("pce_fast", "SYSTEM_RAM", 0x200, 5, kPceOrder, pce_pad);
}

TEST_CASE("Game Boy ROM's pad checksum equals one computed from the inputs sent (gambatte)",
          "[integration][rom]") {
    check_contract("gambatte", "00c000", 0x10, 1, kGbOrder, gb_pad);
}

TEST_CASE("Game Boy ROM's pad checksum equals one computed from the inputs sent (mgba)",
          "[integration][rom]") {
    check_contract("mgba_gb", "00c000", 0x10, 1, kGbOrder, mgba_gb_pad);
}
