// What the contract tests of the test ROMs share (tests/roms/README.md): a ROM's pad byte from
// a RetroPad word, the ROM's running CRC-32, and the block's little-endian fields.
#pragma once

#include <cstdint>

#include "netplay/base/types.h"

namespace framelock::test {

// The ROM's byte for a pad: bit 7 - i is held when RetroPad button order[i] is.
inline std::uint8_t pad_byte(netplay::InputWord word, const int (&order)[8]) {
    std::uint8_t byte = 0;
    for (int i = 0; i < 8; ++i) {
        if (word & (1u << order[i])) byte |= static_cast<std::uint8_t>(0x80 >> i);
    }
    return byte;
}

// One byte into the CRC-32 the ROMs keep: reflected 0xEDB88320, initial 0, no final XOR.
inline std::uint32_t crc_update(std::uint32_t crc, std::uint8_t byte) {
    crc ^= byte;
    for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ ((crc & 1) ? 0xEDB88320u : 0u);
    return crc;
}

inline std::uint32_t le32(const std::uint8_t* p) {
    return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

}  // namespace framelock::test
