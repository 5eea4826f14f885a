#include "netplay/state_hash.h"

#include <xxhash.h>

#include <cstdio>

namespace framelock::netplay {

std::uint64_t hash_bytes(std::span<const std::uint8_t> bytes) {
    return XXH3_64bits(bytes.data(), bytes.size());
}

std::string hash_to_hex(std::uint64_t hash) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

std::vector<RegionHash> hash_regions(const std::vector<MemoryRegion>& regions) {
    std::vector<RegionHash> out;
    out.reserve(regions.size());
    for (const auto& region : regions) out.push_back({region.name, hash_bytes(region.bytes)});
    return out;
}

}  // namespace framelock::netplay
