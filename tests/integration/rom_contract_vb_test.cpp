// The Virtual Boy ROM's contract (integration/rom_contract.h): random buttons in, the ROM's
// pad bytes, CRC-32 and frame counter predicted. mednafen_vb exports no memory
// (retro_get_memory_size answers 0 for every id and it sets no memory map), so the block is
// read from the core's savestate, where mednafen keeps the work RAM (64 KiB from 0x05000000)
// as the entry "WRAM".
#include <catch2/catch.hpp>

#include <cstdint>

#include "integration/rom_contract.h"

using namespace framelock;

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

// The ROM's two pad bytes for a RetroPad word, low byte first (X and Y do nothing; opposing
// directions pass).
std::uint16_t pad_bytes(netplay::InputWord word) {
    unsigned pad = 0;
    for (unsigned bit = 0; bit < 16; ++bit) {
        if (kPadBits[bit] >= 0 && ((word >> kPadBits[bit]) & 1u)) pad |= 1u << bit;
    }
    return static_cast<std::uint16_t>(pad);
}

}  // namespace

TEST_CASE("Virtual Boy ROM's pad checksum equals one computed from the inputs sent",
          "[integration][rom]") {
    // The ROM processes its first frame in the second call, then one in each call.
    test::check_rom_contract(
        {.core = "vb",
         .region = "",
         .block_offset = 0,
         .pads = 1,
         .bytes_per_pad = 2,
         .pad_bytes = pad_bytes,
         .physical = [](netplay::InputWord w) { return w; },
         .boot_calls = 1,
         .block_in_state = [](const std::vector<std::uint8_t>& state) -> std::size_t {
             const std::size_t wram = test::mednafen_entry(state, "WRAM", 0x10000);
             return wram == 0 ? 0 : wram + kBlock;
         },
         .bits_seen = 0xFFFC});  // all 14 buttons
}
