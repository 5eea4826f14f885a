// The test ROMs keep a CRC-32 of every pad byte they read (tests/roms/README.md). Driving
// them through RetroEmulator with known inputs and predicting that CRC independently
// proves the host's whole input path: port numbering, button mapping, per-frame timing.
// Shared by the ROMs' contract tests (rom_contract_test.cpp, rom_contract_gba_test.cpp).
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/host/input_script.h"
#include "frontend/host/retro_emulator.h"
#include "integration/cores.h"

namespace framelock::test {

// One byte into the ROMs' checksum: reflected polynomial 0xEDB88320, no final XOR.
inline std::uint32_t crc_update(std::uint32_t crc, std::uint8_t byte) {
    crc ^= byte;
    for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ ((crc & 1) ? 0xEDB88320u : 0u);
    return crc;
}

inline std::uint32_t le32(const std::uint8_t* p) {
    return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

// mgba's libretro glue, unless its option mgba_allow_opposing_directions is on, drops both
// directions of a pair held together (Game Boy and Game Boy Advance alike).
inline netplay::InputWord mgba_drop_opposing(netplay::InputWord w) {
    for (const auto& [a, b] :
         {std::pair{RETRO_DEVICE_ID_JOYPAD_UP, RETRO_DEVICE_ID_JOYPAD_DOWN},
          std::pair{RETRO_DEVICE_ID_JOYPAD_LEFT, RETRO_DEVICE_ID_JOYPAD_RIGHT}}) {
        const auto pair = static_cast<netplay::InputWord>((1u << a) | (1u << b));
        if ((w & pair) == pair) w &= static_cast<netplay::InputWord>(~pair);
    }
    return w;
}

struct RomContract {
    const char* core_case;  // integration/cores.h: the core, the ROM, the pads (its ports)
    // The memory region holding the block (SYSTEM_RAM, or a memory map's region named by its
    // start address where the core describes its memory map) and the block's offset in it.
    const char* region;
    std::size_t block_offset;
    // What a pad can physically send to the core: the random input goes through it.
    std::function<netplay::InputWord(netplay::InputWord)> physical;
    // The bytes the ROM stores at the start of its block and folds into its checksum, in that
    // order, for one frame's pads.
    std::function<std::vector<std::uint8_t>(const netplay::InputFrame&)> pad_bytes;
    std::map<std::string, std::string> options = {};  // core option overrides
    // When set, the frame counter is checked after every retro_run call: after call n
    // (counting from 1) it is n - boot_calls, and 0 before.
    std::optional<int> boot_calls = std::nullopt;
};

// 3000 frames of random input (seed 99): on every frame the ROM processed (its frame counter
// went up) the stored pad bytes are that frame's; after every frame the checksum is the one
// predicted from them.
inline void check_rom_contract(const RomContract& rom) {
    using namespace framelock::frontend;
    const auto c = core_case(rom.core_case);
    require_core_case(c);
    HostConfig config;
    config.core_path = c.core;
    config.content_path = c.content;
    config.ports = c.ports;
    config.option_overrides = rom.options;
    config.load_sram = config.write_sram = false;
    auto created = RetroEmulator::create(config);
    INFO((created.ok() ? std::string() : created.error().message));
    REQUIRE(created.ok());
    RetroEmulator& emu = *created.value();

    const std::size_t bytes_per_frame = rom.pad_bytes(netplay::InputFrame{}).size();
    auto ram_block = [&]() -> const std::uint8_t* {
        for (const auto& region : emu.memory_regions()) {
            if (region.name == rom.region && region.bytes.size() >= rom.block_offset + 16) {
                return region.bytes.data() + rom.block_offset;
            }
        }
        return nullptr;
    };
    REQUIRE(ram_block() != nullptr);

    RandomInput input(99, c.ports);
    std::uint32_t expected = 0;
    int frames_processed = 0, mismatches = 0, counter_mismatches = 0, nonzero_bytes = 0;
    for (std::uint64_t f = 0; f < 3000; ++f) {
        netplay::InputFrame frame = input.input_for(f);
        for (auto& pad : frame.pads) pad = rom.physical(pad);
        const std::uint32_t counter_before = le32(ram_block() + 12);
        emu.run_frame(frame, false);
        const std::uint8_t* block = ram_block();
        const std::uint32_t counter = le32(block + 12);
        if (counter != counter_before) {  // the ROM processed a frame: it read every pad
            ++frames_processed;
            const std::vector<std::uint8_t> bytes = rom.pad_bytes(frame);
            for (std::size_t i = 0; i < bytes.size(); ++i) {
                nonzero_bytes += bytes[i] != 0;
                CHECK(block[i] == bytes[i]);
                expected = crc_update(expected, bytes[i]);
            }
        }
        if (rom.boot_calls) {
            const auto calls = static_cast<std::int64_t>(f) + 1;
            counter_mismatches += counter != std::max<std::int64_t>(0, calls - *rom.boot_calls);
        }
        mismatches += le32(block + 8) != expected;
    }
    const std::uint8_t* block = ram_block();
    CHECK(block[5] == 'F');
    CHECK(block[6] == 'L');
    CHECK(block[7] == 1);
    CHECK(frames_processed >= 2990);
    CHECK(nonzero_bytes > frames_processed * static_cast<int>(bytes_per_frame) / 2);
    CHECK(counter_mismatches == 0);
    CHECK(mismatches == 0);
    CHECK(expected != 0);
}

}  // namespace framelock::test
