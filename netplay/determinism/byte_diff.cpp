#include "netplay/determinism/byte_diff.h"

#include <algorithm>
#include <iterator>

namespace framelock::netplay {

ByteDiff diff_bytes(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                    std::size_t max_ranges, std::size_t merge_gap) {
    ByteDiff out;
    const std::size_t common = std::min(a.size(), b.size());
    bool open = false;
    ByteRange current;
    std::size_t last_diff = 0;
    auto close = [&] {
        if (!open) return;
        current.length = last_diff + 1 - current.offset;
        if (out.ranges.size() < max_ranges) out.ranges.push_back(current);
        ++out.range_count;
        open = false;
    };
    for (std::size_t i = 0; i < common; ++i) {
        if (a[i] == b[i]) continue;
        ++out.differing_bytes;
        if (open && i - last_diff > merge_gap) close();
        if (!open) {
            open = true;
            current.offset = i;
        }
        last_diff = i;
    }
    close();
    if (a.size() != b.size()) {
        out.sizes_differ = true;
        const std::size_t extra = std::max(a.size(), b.size()) - common;
        out.differing_bytes += extra;
        if (out.ranges.size() < max_ranges) out.ranges.push_back({common, extra});
        ++out.range_count;
    }
    return out;
}

std::vector<ByteRange> unite_ranges(const std::vector<ByteRange>& a,
                                    const std::vector<ByteRange>& b) {
    std::vector<ByteRange> all;
    all.reserve(a.size() + b.size());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all),
               [](const ByteRange& x, const ByteRange& y) { return x.offset < y.offset; });
    std::vector<ByteRange> out;
    for (const ByteRange& r : all) {
        if (r.length == 0) continue;
        if (!out.empty() && r.offset <= out.back().offset + out.back().length) {
            out.back().length =
                std::max(out.back().offset + out.back().length, r.offset + r.length) -
                out.back().offset;
        } else {
            out.push_back(r);
        }
    }
    return out;
}

bool equal_except(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                  const std::vector<ByteRange>& skip) {
    if (a.size() != b.size()) return false;
    std::size_t at = 0;
    for (const ByteRange& r : skip) {
        const std::size_t from = std::min(r.offset, a.size());
        if (!std::equal(a.begin() + at, a.begin() + from, b.begin() + at)) return false;
        at = std::max(at, std::min(a.size(), r.offset + r.length));
    }
    return std::equal(a.begin() + at, a.end(), b.begin() + at);
}

std::size_t covered_bytes(const std::vector<ByteRange>& ranges) {
    std::size_t total = 0;
    for (const ByteRange& r : ranges) total += r.length;
    return total;
}

std::string describe_ranges(const std::vector<ByteRange>& ranges) {
    if (ranges.empty()) return "no bytes";
    const std::size_t bytes = covered_bytes(ranges);
    std::string out = std::to_string(bytes) + (bytes == 1 ? " byte in " : " bytes in ") +
                      std::to_string(ranges.size()) + (ranges.size() == 1 ? " range" : " ranges") +
                      " (offsets ";
    for (std::size_t i = 0; i < ranges.size() && i < 4; ++i) {
        if (i) out += ", ";
        out += std::to_string(ranges[i].offset) + ".." +
               std::to_string(ranges[i].offset + ranges[i].length - 1);
    }
    if (ranges.size() > 4) out += ", ...";
    return out + ")";
}

}  // namespace framelock::netplay
