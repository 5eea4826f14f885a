#include "netplay/determinism/evidence.h"

#include <algorithm>

#include "netplay/determinism/state_hash.h"

namespace framelock::netplay {

namespace {

// Ranges of the set flags, those closer than `merge_gap` bytes merged; false past kMaxMaskRanges.
bool flagged_ranges(const std::vector<bool>& flags, std::vector<ByteRange>& out,
                    std::size_t merge_gap = 8) {
    for (std::size_t i = 0; i < flags.size(); ++i) {
        if (!flags[i]) continue;
        if (!out.empty() && i - (out.back().offset + out.back().length) <= merge_gap) {
            out.back().length = i + 1 - out.back().offset;
        } else {
            if (out.size() == kMaxMaskRanges) return false;
            out.push_back({i, 1});
        }
    }
    return true;
}

}  // namespace

MovedBytes probe_moved_bytes(Emulator& emulator, std::span<const std::uint8_t> loaded,
                             std::uint32_t frame, std::span<const std::uint8_t> before) {
    MovedBytes moved;
    moved.frame = frame;
    moved.state_size = static_cast<std::uint32_t>(loaded.size());
    std::vector<std::uint8_t> first, second;
    if (!emulator.save_state(first)) return moved;
    const bool reloaded = emulator.load_state(first) && emulator.save_state(second);
    if (!emulator.load_state(loaded)) (void)emulator.load_state(first);
    if (first.size() != loaded.size() || (reloaded && second.size() != first.size())) {
        moved.overflow = true;  // a state that changes size on a load: nothing to mask by offset
        return moved;
    }
    std::vector<bool> flags(first.size(), false);
    for (std::size_t i = 0; i < first.size(); ++i) {
        const bool kept_own = i < before.size() && first[i] == before[i];
        flags[i] = (first[i] != loaded[i] && !kept_own) || (reloaded && second[i] != first[i]);
    }
    if (!flagged_ranges(flags, moved.ranges)) {
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
