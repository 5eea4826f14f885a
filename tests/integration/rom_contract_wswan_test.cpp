// The WonderSwan ROM's contract (integration/rom_contract.h): random keys in, the ROM's key
// bytes, CRC-32 and frame counter predicted. mednafen_wswan exports no memory
// (retro_get_memory_data answers null for every id and it sets no memory map), so the block
// is read from the core's savestate, where mednafen keeps the internal RAM as the entry "RAM"
// (64 KiB).
#include <catch2/catch.hpp>

#include <cstdint>

#include "integration/rom_contract.h"

using namespace framelock;

namespace {

constexpr std::size_t kBlock = 0x0400;  // the block's address in internal RAM

// Key byte 0, bit 7 first: Y4 Y3 Y2 Y1 X4 X3 X2 X1, as the core maps the RetroPad (the
// d-pad is X1-X4, clockwise from up; R2, R, L2, L are Y1-Y4).
constexpr int kKeysOrder[8] = {RETRO_DEVICE_ID_JOYPAD_L,     RETRO_DEVICE_ID_JOYPAD_L2,
                               RETRO_DEVICE_ID_JOYPAD_R,     RETRO_DEVICE_ID_JOYPAD_R2,
                               RETRO_DEVICE_ID_JOYPAD_LEFT,  RETRO_DEVICE_ID_JOYPAD_DOWN,
                               RETRO_DEVICE_ID_JOYPAD_RIGHT, RETRO_DEVICE_ID_JOYPAD_UP};

// The ROM's two key bytes for a RetroPad word, low byte first: byte 1 is B, A, Start in bits
// 3-1. The core reads no other button (Y, X, SELECT, L3 and R3 do nothing) and passes
// opposing directions on.
std::uint16_t key_bytes(netplay::InputWord word) {
    const auto held = [word](int id) { return (word >> id) & 1u; };
    const unsigned high = held(RETRO_DEVICE_ID_JOYPAD_B) << 3 |
                          held(RETRO_DEVICE_ID_JOYPAD_A) << 2 |
                          held(RETRO_DEVICE_ID_JOYPAD_START) << 1;
    return static_cast<std::uint16_t>(test::pad_byte(word, kKeysOrder) | high << 8);
}

}  // namespace

TEST_CASE("WonderSwan ROM's key checksum equals one computed from the inputs sent",
          "[integration][rom]") {
    // The ROM processes its first frame in the second call, then one in each call.
    test::check_rom_contract(
        {.core = "wswan",
         .region = "",
         .block_offset = 0,
         .pads = 1,
         .bytes_per_pad = 2,
         .pad_bytes = key_bytes,
         .physical = [](netplay::InputWord w) { return w; },
         .boot_calls = 1,
         .block_in_state = [](const std::vector<std::uint8_t>& state) -> std::size_t {
             const std::size_t ram = test::mednafen_entry(state, "RAM", 0x10000);
             return ram == 0 ? 0 : ram + kBlock;
         },
         .bits_seen = 0x0EFF});  // every key: the eight of byte 0, B, A and Start
}
