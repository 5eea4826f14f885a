// One hash function for every state and memory comparison in framelock, so logs
// written by different tools and machines compare directly.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "netplay/determinism/byte_diff.h"
#include "netplay/interfaces/emulator.h"

namespace framelock::netplay {

// 64-bit XXH3 of the bytes.
std::uint64_t hash_bytes(std::span<const std::uint8_t> bytes);

// The same hash of the bytes outside `skip` (sorted, disjoint [offset, offset + length)
// ranges; parts beyond the bytes are ignored): the concatenation of what is left is hashed,
// so with nothing skipped it equals hash_bytes.
std::uint64_t hash_bytes_except(std::span<const std::uint8_t> bytes,
                                std::span<const ByteRange> skip);

// One hash over several byte strings in order (XXH3 of their concatenation).
std::uint64_t hash_concatenation(std::span<const std::span<const std::uint8_t>> parts);

// 16 lowercase hex digits, zero padded: the form used in hash logs.
std::string hash_to_hex(std::uint64_t hash);

struct RegionHash {
    std::string name;
    std::uint64_t hash = 0;
};
std::vector<RegionHash> hash_regions(const std::vector<MemoryRegion>& regions);

}  // namespace framelock::netplay
