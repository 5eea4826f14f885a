#include "netplay/determinism/state_hash.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace framelock::netplay {

namespace {
struct FreeState {
    void operator()(XXH3_state_t* state) const { XXH3_freeState(state); }
};
using StreamState = std::unique_ptr<XXH3_state_t, FreeState>;
}  // namespace

std::uint64_t hash_bytes(std::span<const std::uint8_t> bytes) {
    return XXH3_64bits(bytes.data(), bytes.size());
}

std::uint64_t hash_bytes_except(std::span<const std::uint8_t> bytes,
                                std::span<const ByteRange> skip) {
    if (skip.empty()) return hash_bytes(bytes);
    const StreamState owner(XXH3_createState());
    XXH3_state_t* state = owner.get();
    XXH3_64bits_reset(state);
    std::size_t at = 0;
    for (const ByteRange& range : skip) {
        if (range.offset >= bytes.size()) break;
        if (range.offset > at) XXH3_64bits_update(state, bytes.data() + at, range.offset - at);
        at = std::max(at, std::min(bytes.size(), range.offset + range.length));
    }
    if (at < bytes.size()) XXH3_64bits_update(state, bytes.data() + at, bytes.size() - at);
    return XXH3_64bits_digest(state);
}

std::uint64_t hash_concatenation(std::span<const std::span<const std::uint8_t>> parts) {
    const StreamState owner(XXH3_createState());
    XXH3_state_t* state = owner.get();
    XXH3_64bits_reset(state);
    for (const auto& part : parts) XXH3_64bits_update(state, part.data(), part.size());
    return XXH3_64bits_digest(state);
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
