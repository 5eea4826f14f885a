#include "frontend/files/desync_bundle.h"

#include <algorithm>
#include <cstring>

#include "frontend/files/atomic_file.h"
#include "netplay/wire/codec.h"
#include "netplay/wire/compression.h"
#include "netplay/wire/wire.h"

namespace framelock::frontend {
namespace {

using netplay::WireReader;
using netplay::WireWriter;

constexpr std::size_t kMagicSize = 8;
constexpr std::size_t kMaxNote = 1023;
constexpr std::size_t kMaxRegions = 256;
constexpr std::size_t kMaxRangesListed = 256;

void write_blob(WireWriter& w, std::span<const std::uint8_t> raw) {
    if (raw.empty()) {
        w.u32(0);
        w.u32(0);
        return;
    }
    const std::vector<std::uint8_t> packed = netplay::deflate_bytes(raw);
    w.u32(static_cast<std::uint32_t>(raw.size()));
    w.u32(static_cast<std::uint32_t>(packed.size()));
    w.bytes(packed);
}

bool read_blob(WireReader& r, std::vector<std::uint8_t>& out) {
    const std::uint32_t size = r.u32();
    const std::uint32_t packed = r.u32();
    if (r.failed() || size > netplay::kMaxStateBytes) return false;
    const auto bytes = r.bytes(packed);
    if (r.failed()) return false;
    if (size == 0 || packed == 0) {
        out.clear();
        return size == 0 && packed == 0;
    }
    auto raw = netplay::inflate_bounded(bytes, size, netplay::kMaxStateBytes);
    if (!raw) return false;
    out = std::move(raw).value();
    return true;
}

void write_regions(WireWriter& w, const std::vector<netplay::RegionCopy>& regions) {
    const std::size_t count = std::min(regions.size(), kMaxRegions);
    w.u16(static_cast<std::uint16_t>(count));
    for (std::size_t i = 0; i < count; ++i) {
        w.string(regions[i].name);
        w.u64(regions[i].start);
        write_blob(w, regions[i].bytes);
    }
}

bool read_regions(WireReader& r, std::vector<netplay::RegionCopy>& out) {
    const std::size_t count = r.u16();
    if (r.failed() || count > kMaxRegions) return false;
    out.resize(count);
    for (auto& region : out) {
        region.name = r.string();
        region.start = r.u64();
        if (!read_blob(r, region.bytes)) return false;
    }
    return !r.failed();
}

void write_diff(WireWriter& w, const netplay::ByteDiff& diff) {
    w.u8(diff.sizes_differ ? 1 : 0);
    w.u64(diff.differing_bytes);
    w.u32(static_cast<std::uint32_t>(diff.range_count));
    const std::size_t listed = std::min(diff.ranges.size(), kMaxRangesListed);
    w.u16(static_cast<std::uint16_t>(listed));
    for (std::size_t i = 0; i < listed; ++i) {
        w.u64(diff.ranges[i].offset);
        w.u64(diff.ranges[i].length);
    }
}

bool read_diff(WireReader& r, netplay::ByteDiff& diff) {
    diff.sizes_differ = r.u8() != 0;
    diff.differing_bytes = static_cast<std::size_t>(r.u64());
    diff.range_count = r.u32();
    const std::size_t listed = r.u16();
    if (r.failed() || listed > kMaxRangesListed) return false;
    diff.ranges.resize(listed);
    for (auto& range : diff.ranges) {
        range.offset = static_cast<std::size_t>(r.u64());
        range.length = static_cast<std::size_t>(r.u64());
    }
    return !r.failed();
}

Error malformed(const std::string& why) {
    return make_error(ErrorCode::kState, "not a readable desync bundle: " + why);
}

}  // namespace

bool is_desync_bundle(std::span<const std::uint8_t> bytes) {
    return bytes.size() >= kMagicSize &&
           std::memcmp(bytes.data(), kDesyncBundleMagic, kMagicSize) == 0;
}

std::vector<std::uint8_t> encode_desync_bundle(const DesyncBundle& b) {
    WireWriter w;
    w.bytes({reinterpret_cast<const std::uint8_t*>(kDesyncBundleMagic), kMagicSize});
    w.u16(kDesyncBundleVersion);
    netplay::write_identity(w, b.identity);
    w.string(b.content_name);
    w.u64(b.session);
    w.u8(static_cast<std::uint8_t>(b.mode));
    w.u8(b.delay);
    w.u8(b.slot);
    w.u8(b.players);
    w.u32(b.desync_frame);
    w.u8(b.differing_slots);
    w.u32(b.state_frame);
    write_blob(w, b.own_state);
    write_regions(w, b.own_regions);
    w.u8(static_cast<std::uint8_t>(b.other));
    w.string(b.other_note, kMaxNote);
    write_blob(w, b.other_state);
    write_regions(w, b.other_regions);
    write_diff(w, b.state_diff);
    const std::size_t diffs = std::min(b.region_diffs.size(), kMaxRegions);
    w.u16(static_cast<std::uint16_t>(diffs));
    for (std::size_t i = 0; i < diffs; ++i) {
        w.string(b.region_diffs[i].name);
        w.u64(b.region_diffs[i].start);
        write_diff(w, b.region_diffs[i].diff);
    }
    const std::size_t frames = std::min<std::size_t>(b.inputs.size(), kBundleInputFrames);
    const std::size_t skipped = b.inputs.size() - frames;
    const int players = std::clamp<int>(b.players, 0, netplay::kMaxPlayers);
    w.u32(b.inputs_from + static_cast<std::uint32_t>(skipped));
    w.u32(static_cast<std::uint32_t>(frames));
    w.u8(static_cast<std::uint8_t>(players));
    for (std::size_t f = skipped; f < b.inputs.size(); ++f) {
        for (int p = 0; p < players; ++p) w.u16(b.inputs[f].pads[static_cast<std::size_t>(p)]);
    }
    w.u32(netplay::crc32_of(w.data()));
    return w.take();
}

Result<DesyncBundle> decode_desync_bundle(std::span<const std::uint8_t> bytes) {
    if (!is_desync_bundle(bytes)) return malformed("it does not begin with FLDESYNC");
    if (bytes.size() < kMagicSize + 2 + 4) return malformed("truncated");
    const auto body = bytes.first(bytes.size() - 4);
    WireReader tail(bytes.last(4));
    if (tail.u32() != netplay::crc32_of(body))
        return malformed("its CRC does not match (truncated or damaged)");
    WireReader r(body.subspan(kMagicSize));
    const std::uint16_t version = r.u16();
    if (version != kDesyncBundleVersion)
        return malformed("version " + std::to_string(version) + ", this framelock reads " +
                         std::to_string(kDesyncBundleVersion));
    DesyncBundle b;
    b.identity = netplay::read_identity(r);
    b.content_name = r.string();
    b.session = r.u64();
    const std::uint8_t mode = r.u8();
    if (mode > static_cast<std::uint8_t>(netplay::SessionMode::kNoWait))
        return malformed("unknown mode " + std::to_string(mode));
    b.mode = static_cast<netplay::SessionMode>(mode);
    b.delay = r.u8();
    b.slot = r.u8();
    b.players = r.u8();
    b.desync_frame = r.u32();
    b.differing_slots = r.u8();
    b.state_frame = r.u32();
    if (!read_blob(r, b.own_state) || !read_regions(r, b.own_regions))
        return malformed("its own state does not read");
    const std::uint8_t other = r.u8();
    if (other != static_cast<std::uint8_t>(DesyncBundle::Other::kReference) &&
        other != static_cast<std::uint8_t>(DesyncBundle::Other::kNone))
        return malformed("unknown kind of other state " + std::to_string(other));
    b.other = static_cast<DesyncBundle::Other>(other);
    b.other_note = r.string(kMaxNote);
    if (!read_blob(r, b.other_state) || !read_regions(r, b.other_regions))
        return malformed("the other state does not read");
    if (!read_diff(r, b.state_diff)) return malformed("the state's difference does not read");
    const std::size_t diffs = r.u16();
    if (r.failed() || diffs > kMaxRegions) return malformed("truncated");
    b.region_diffs.resize(diffs);
    for (auto& d : b.region_diffs) {
        d.name = r.string();
        d.start = r.u64();
        if (!read_diff(r, d.diff)) return malformed("a region's difference does not read");
    }
    b.inputs_from = r.u32();
    const std::uint32_t frames = r.u32();
    const int players = r.u8();
    if (r.failed() || frames > kBundleInputFrames || players > netplay::kMaxPlayers ||
        r.remaining() != static_cast<std::size_t>(frames) * static_cast<std::size_t>(players) * 2)
        return malformed("its inputs do not read");
    b.inputs.resize(frames);
    for (auto& frame : b.inputs) {
        for (int p = 0; p < players; ++p) frame.pads[static_cast<std::size_t>(p)] = r.u16();
    }
    if (!r.done()) return malformed("bytes after its end");
    return b;
}

Status write_desync_bundle(const std::filesystem::path& path, const DesyncBundle& bundle) {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
        return make_error(ErrorCode::kIo,
                          "cannot create " + path.parent_path().string() + ": " + ec.message());
    return write_file_atomic(path, encode_desync_bundle(bundle));
}

Result<DesyncBundle> read_desync_bundle(const std::filesystem::path& path) {
    auto bytes = read_file(path);
    if (!bytes) return bytes.error();
    auto bundle = decode_desync_bundle(bytes.value());
    if (!bundle)
        return make_error(bundle.error().code, path.string() + ": " + bundle.error().message);
    return bundle;
}

}  // namespace framelock::frontend
