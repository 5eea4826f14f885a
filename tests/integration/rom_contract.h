// The test ROMs' contract (tests/roms/README.md), checked through RetroEmulator: drive a ROM
// with a random input script and predict, every frame, the raw pad bytes it stores, its
// CRC-32 of them and its frame counter. Shared by the contract tests of every system.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/host/input_script.h"
#include "frontend/host/retro_emulator.h"
#include "integration/cores.h"

namespace framelock::test {

// The ROM's byte for a pad: bit 7 - i is held when RetroPad button order[i] is.
inline std::uint8_t pad_byte(netplay::InputWord word, const int (&order)[8]) {
    std::uint8_t byte = 0;
    for (int i = 0; i < 8; ++i) {
        if (word & (1u << order[i])) byte |= static_cast<std::uint8_t>(0x80 >> i);
    }
    return byte;
}

inline std::uint32_t crc_update(std::uint32_t crc, std::uint8_t byte) {
    crc ^= byte;
    for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ ((crc & 1) ? 0xEDB88320u : 0u);
    return crc;
}

inline std::uint32_t le32(const std::uint8_t* p) {
    return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

// A d-pad with both directions of an opposing pair pressed reads as neither (mgba, bsnes).
inline netplay::InputWord without_opposing_directions(netplay::InputWord w) {
    constexpr unsigned kUp = 4, kDown = 5, kLeft = 6, kRight = 7;  // RETRO_DEVICE_ID_JOYPAD_*
    for (const auto pair : {(1u << kUp) | (1u << kDown), (1u << kLeft) | (1u << kRight)}) {
        if ((w & pair) == pair) w &= static_cast<netplay::InputWord>(~pair);
    }
    return w;
}

// Where a mednafen savestate's entry `name` of `size` bytes starts (its data, after the
// name's length, the name and the size, 32 bits little-endian), or 0 when the entry is not
// there exactly once: mednafen_wswan and mednafen_vb export no memory, and keep their RAM so.
inline std::size_t mednafen_entry(const std::vector<std::uint8_t>& state, const std::string& name,
                                  std::uint32_t size) {
    std::vector<std::uint8_t> entry{static_cast<std::uint8_t>(name.size())};
    entry.insert(entry.end(), name.begin(), name.end());
    for (int i = 0; i < 4; ++i) entry.push_back(static_cast<std::uint8_t>(size >> (8 * i)));
    const auto first = std::search(state.begin(), state.end(), entry.begin(), entry.end());
    if (first == state.end()) return 0;
    if (std::search(first + 1, state.end(), entry.begin(), entry.end()) != state.end()) return 0;
    const auto offset = static_cast<std::size_t>(first - state.begin()) + entry.size();
    return state.size() >= offset + size ? offset : 0;
}

struct RomContract {
    const char* core;          // core_case() name
    const char* region;        // memory region holding the block: SYSTEM_RAM, or a memory
                               // map's region named by its start address
    std::size_t block_offset;  // the block's offset in that region
    unsigned pads;             // pads the ROM reads
    unsigned bytes_per_pad;    // 1, or 2 (a 16-bit word, little-endian)
    // The bytes the ROM stores for a pad word as it reaches the ROM, little-endian.
    std::function<std::uint16_t(netplay::InputWord)> pad_bytes;
    // What a pad can physically send to the core (what the ROM then reads).
    netplay::InputWord (*physical)(netplay::InputWord);
    std::uint64_t frames = 3000;  // run_frame calls; the ROMs boot within the first 10
    std::map<std::string, std::string> options = {};  // core option overrides
    // When set, the frame counter is checked after every retro_run call: after call n
    // (counting from 1) it is n - boot_calls, and 0 before.
    std::optional<int> boot_calls = std::nullopt;
    // For a core that exports no memory (checked): where the block starts in a savestate (0
    // when not found there). When set, `region` is not used and the block is read from a
    // state saved after every call.
    std::function<std::size_t(const std::vector<std::uint8_t>&)> block_in_state = nullptr;
    // When not 0: the bits of pad_bytes() the run must have pressed, each at some point.
    std::uint16_t bits_seen = 0;
};

inline void check_rom_contract(const RomContract& rom) {
    using frontend::RandomInput;
    using frontend::RetroEmulator;
    const auto c = core_case(rom.core);
    require_core_case(c);
    frontend::HostConfig config;
    config.core_path = c.core;
    config.content_path = c.content;
    config.ports = rom.pads;
    config.option_overrides = rom.options;
    config.load_sram = config.write_sram = false;
    auto created = RetroEmulator::create(config);
    INFO((created.ok() ? std::string() : created.error().message));
    REQUIRE(created.ok());
    RetroEmulator& emu = *created.value();

    const std::size_t pad_block = rom.pads * rom.bytes_per_pad;
    REQUIRE(pad_block <= 5);  // the signature follows at +5
    std::vector<std::uint8_t> state;
    auto ram_block = [&]() -> const std::uint8_t* {
        if (rom.block_in_state) {
            if (!emu.save_state(state)) return nullptr;
            const std::size_t at = rom.block_in_state(state);
            return at != 0 && state.size() >= at + 16 ? state.data() + at : nullptr;
        }
        for (const auto& region : emu.memory_regions()) {
            if (region.name == rom.region && region.bytes.size() >= rom.block_offset + 16) {
                return region.bytes.data() + rom.block_offset;
            }
        }
        return nullptr;
    };
    if (rom.block_in_state) CHECK(emu.memory_regions().empty());
    REQUIRE(ram_block() != nullptr);

    RandomInput input(99, rom.pads);
    std::uint32_t expected = 0;
    int frames_processed = 0, mismatches = 0, nonzero_pads = 0, pad_mismatches = 0;
    int counter_mismatches = 0;
    unsigned bits_seen = 0;
    std::string first_pad_mismatch;
    for (std::uint64_t f = 0; f < rom.frames; ++f) {
        netplay::InputFrame frame = input.input_for(f);
        for (auto& pad : frame.pads) pad = rom.physical(pad);
        // Before the ROM wrote its signature, the block holds power-on bytes (random on some
        // cores).
        const std::uint8_t* before = ram_block();
        const bool booted = before[5] == 'F' && before[6] == 'L' && before[7] == 1;
        const std::uint32_t counter_before = le32(before + 12);
        emu.run_frame(frame, false);
        const std::uint8_t* block = ram_block();
        if (booted && le32(block + 12) != counter_before) {  // the ROM read every pad
            ++frames_processed;
            CHECK(le32(block + 12) == counter_before + 1);
            for (unsigned p = 0; p < rom.pads; ++p) {
                const std::uint16_t bytes = rom.pad_bytes(frame.pads[p]);
                nonzero_pads += bytes != 0;
                bits_seen |= bytes;
                for (unsigned b = 0; b < rom.bytes_per_pad; ++b) {
                    const auto byte = static_cast<std::uint8_t>(bytes >> (8 * b));
                    const std::uint8_t stored = block[p * rom.bytes_per_pad + b];
                    if (stored != byte && pad_mismatches++ == 0) {
                        first_pad_mismatch = "frame " + std::to_string(f) + ", pad " +
                                             std::to_string(p + 1) + " byte " + std::to_string(b) +
                                             ": stored " + std::to_string(stored) + ", sent " +
                                             std::to_string(byte) + " (pad word " +
                                             std::to_string(frame.pads[p]) + ")";
                    }
                    expected = crc_update(expected, byte);
                }
            }
        }
        if (rom.boot_calls) {
            const auto calls = static_cast<std::int64_t>(f) + 1;
            counter_mismatches +=
                le32(block + 12) != std::max<std::int64_t>(0, calls - *rom.boot_calls);
        }
        mismatches += le32(block + 8) != expected;
    }
    INFO(first_pad_mismatch);
    CHECK(counter_mismatches == 0);
    CHECK(pad_mismatches == 0);
    const std::uint8_t* block = ram_block();
    CHECK(block[5] == 'F');
    CHECK(block[6] == 'L');
    CHECK(block[7] == 1);
    CHECK(frames_processed >= static_cast<int>(rom.frames) - 10);
    CHECK(nonzero_pads > frames_processed * static_cast<int>(rom.pads) / 2);
    if (rom.bits_seen != 0) CHECK(bits_seen == rom.bits_seen);
    CHECK(mismatches == 0);
    CHECK(expected != 0);
}

}  // namespace framelock::test
