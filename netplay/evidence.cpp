#include "netplay/evidence.h"

#include <algorithm>

#include "netplay/state_hash.h"

namespace framelock::netplay {

namespace {

// Adds where a and b differ to `moved`; false when that makes too many ranges.
bool add_difference(MovedBytes& moved, std::span<const std::uint8_t> a,
                    std::span<const std::uint8_t> b) {
    const ByteDiff diff = diff_bytes(a, b, kMaxMaskRanges);
    if (diff.range_count > kMaxMaskRanges) return false;
    moved.ranges = unite_ranges(moved.ranges, diff.ranges);
    return moved.ranges.size() <= kMaxMaskRanges;
}

}  // namespace

MovedBytes probe_moved_bytes(Emulator& emulator, std::span<const std::uint8_t> loaded,
                             std::uint32_t frame) {
    MovedBytes moved;
    moved.frame = frame;
    moved.state_size = static_cast<std::uint32_t>(loaded.size());
    std::vector<std::uint8_t> first, second;
    if (!emulator.save_state(first)) return moved;
    bool ok = add_difference(moved, loaded, first);
    if (emulator.load_state(first) && emulator.save_state(second))
        ok = ok && add_difference(moved, first, second);
    if (!emulator.load_state(loaded)) (void)emulator.load_state(first);
    if (!ok) {
        moved.overflow = true;
        moved.ranges.clear();
    }
    return moved;
}

std::uint64_t memory_hash(const std::vector<MemoryRegion>& regions) {
    if (regions.empty()) return 0;
    std::vector<std::span<const std::uint8_t>> parts;
    parts.reserve(regions.size());
    for (const MemoryRegion& region : regions) parts.push_back(region.bytes);
    return hash_concatenation(parts);
}

std::uint64_t evidence_hash(Emulator& emulator, const EvidenceMask& mask,
                            std::vector<std::uint8_t>& scratch) {
    if (mask.kind == EvidenceKind::kMemory) return memory_hash(emulator.memory_regions());
    if (!emulator.save_state(scratch)) return 0;
    return evidence_hash(scratch, mask);
}

std::uint64_t evidence_hash(std::span<const std::uint8_t> state, const EvidenceMask& mask) {
    if (mask.kind == EvidenceKind::kMemory || state.empty()) return 0;
    return hash_bytes_except(state, mask.ranges);
}

bool widen_mask(EvidenceMask& mask, const MovedBytes& moved) {
    if (mask.kind == EvidenceKind::kMemory) return false;
    if (!moved.overflow && moved.ranges.empty()) return false;
    std::vector<ByteRange> wider = unite_ranges(mask.ranges, moved.ranges);
    if (moved.overflow || wider.size() > kMaxMaskRanges ||
        covered_bytes(wider) * kMaxMaskedDivisor > std::max<std::size_t>(moved.state_size, 1)) {
        mask.kind = EvidenceKind::kMemory;
        mask.ranges.clear();
        return true;
    }
    if (wider == mask.ranges) return false;
    mask.ranges = std::move(wider);
    return true;
}

}  // namespace framelock::netplay
