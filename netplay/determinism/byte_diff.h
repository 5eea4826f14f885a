// Where two byte strings differ, as ranges: the one description of a difference between two
// states that the determinism lab, desync reports and the desync evidence mask all use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "netplay/base/types.h"

namespace framelock::netplay {

struct ByteDiff {
    std::vector<ByteRange> ranges;  // the first `max_ranges` ranges, in order
    std::size_t range_count = 0;    // all ranges, including those not listed
    std::size_t differing_bytes = 0;
    bool sizes_differ = false;  // the bytes past the shorter one count as one range
    bool empty() const { return range_count == 0; }
};
// Ranges closer than `merge_gap` bytes are one range.
ByteDiff diff_bytes(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                    std::size_t max_ranges = 16, std::size_t merge_gap = 8);

// The union of two sorted, disjoint range lists (sorted, disjoint; touching ranges merged).
std::vector<ByteRange> unite_ranges(const std::vector<ByteRange>& a,
                                    const std::vector<ByteRange>& b);

// Whether a and b have the same size and the same bytes outside `skip` (sorted ranges).
bool equal_except(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                  const std::vector<ByteRange>& skip);

// "8 bytes in 1 range (offsets 1032..1039)": for logs and reports.
std::string describe_ranges(const std::vector<ByteRange>& ranges);

// The bytes the ranges cover.
std::size_t covered_bytes(const std::vector<ByteRange>& ranges);

}  // namespace framelock::netplay
