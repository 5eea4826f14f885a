// The test ROMs keep a CRC-32 of every pad byte they read (tests/roms/README.md). Driving
// them through RetroEmulator with known inputs and predicting that CRC independently
// proves the host's whole input path: port numbering, button mapping, per-frame timing.
#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>
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
    w = gb_pad(w);
    for (const auto& [a, b] :
         {std::pair{RETRO_DEVICE_ID_JOYPAD_UP, RETRO_DEVICE_ID_JOYPAD_DOWN},
          std::pair{RETRO_DEVICE_ID_JOYPAD_LEFT, RETRO_DEVICE_ID_JOYPAD_RIGHT}}) {
        const auto pair = static_cast<netplay::InputWord>((1u << a) | (1u << b));
        if ((w & pair) == pair) w &= static_cast<netplay::InputWord>(~pair);
    }
    return w;
}

// `region`: the memory region holding the block (SYSTEM_RAM, or a memory map's region named
// by its start address where the core describes its memory map).
void check_contract(const char* name, const char* region_name, std::size_t block_offset,
                    unsigned pads, const int (&order)[8],
                    netplay::InputWord (*physical)(netplay::InputWord)) {
    const auto c = core_case(name);
    framelock::test::require_core_case(c);
    HostConfig config;
    config.core_path = c.core;
    config.content_path = c.content;
    config.ports = pads;
    config.load_sram = config.write_sram = false;
    auto created = RetroEmulator::create(config);
    INFO((created.ok() ? std::string() : created.error().message));
    REQUIRE(created.ok());
    RetroEmulator& emu = *created.value();

    auto ram_block = [&]() -> const std::uint8_t* {
        for (const auto& region : emu.memory_regions()) {
            if (region.name == region_name && region.bytes.size() >= block_offset + 16) {
                return region.bytes.data() + block_offset;
            }
        }
        return nullptr;
    };
    REQUIRE(ram_block() != nullptr);

    RandomInput input(99, pads);
    std::uint32_t expected = 0;
    int frames_processed = 0, mismatches = 0, nonzero_pads = 0;
    for (std::uint64_t f = 0; f < 3000; ++f) {
        netplay::InputFrame frame = input.input_for(f);
        for (auto& pad : frame.pads) pad = physical(pad);
        const std::uint32_t counter_before = le32(ram_block() + 12);
        emu.run_frame(frame, false);
        const std::uint8_t* block = ram_block();
        if (le32(block + 12) != counter_before) {  // the ROM processed a frame: it read every pad
            ++frames_processed;
            for (unsigned p = 0; p < pads; ++p) {
                const std::uint8_t byte = pad_byte(frame.pads[p], order);
                nonzero_pads += byte != 0;
                CHECK(block[p] == byte);
                expected = crc_update(expected, byte);
            }
        }
        mismatches += le32(block + 8) != expected;
    }
    CHECK(frames_processed >= 2990);
    CHECK(nonzero_pads > frames_processed * static_cast<int>(pads) / 2);
    CHECK(mismatches == 0);
    CHECK(expected != 0);
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
