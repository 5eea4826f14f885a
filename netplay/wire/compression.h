// zlib for states and replays, with decompression that cannot be made to exhaust memory:
// the uncompressed size is declared next to the data, checked against a hard cap before
// anything is allocated, and must come out exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "netplay/base/result.h"

namespace framelock::netplay {

// zlib (deflate), at level 6 unless asked (1: fastest, 9: smallest).
std::vector<std::uint8_t> deflate_bytes(std::span<const std::uint8_t> in, int level = 6);

// Inflates `in` into exactly `declared` bytes. kState errors: `declared` above `cap`, data
// that inflates to more or fewer bytes than declared, corrupt zlib data.
Result<std::vector<std::uint8_t>> inflate_bounded(std::span<const std::uint8_t> in,
                                                  std::size_t declared, std::size_t cap);

// CRC-32 (zlib's), for framing checks.
std::uint32_t crc32_of(std::span<const std::uint8_t> bytes);

}  // namespace framelock::netplay
