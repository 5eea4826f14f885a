// One hash function for every state and memory comparison in framelock, so logs
// written by different tools and machines compare directly.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "netplay/emulator.h"

namespace framelock::netplay {

// 64-bit XXH3 of the bytes.
std::uint64_t hash_bytes(std::span<const std::uint8_t> bytes);

// 16 lowercase hex digits, zero padded: the form used in hash logs.
std::string hash_to_hex(std::uint64_t hash);

struct RegionHash {
    std::string name;
    std::uint64_t hash = 0;
};
std::vector<RegionHash> hash_regions(const std::vector<MemoryRegion>& regions);

}  // namespace framelock::netplay
