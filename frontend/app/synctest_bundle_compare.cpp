#include "frontend/app/synctest_bundle_compare.h"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>

#include "frontend/app/command_error.h"
#include "netplay/determinism/byte_diff.h"
#include "netplay/determinism/state_hash.h"

namespace framelock::frontend {
namespace {

// The frames of differing inputs named one by one, at most.
constexpr std::size_t kInputFramesNamed = 8;

const char* mode_name(netplay::SessionMode mode) {
    switch (mode) {
        case netplay::SessionMode::kFrameLock:
            return "frame lock";
        case netplay::SessionMode::kRollback:
            return "rollback";
        case netplay::SessionMode::kNoWait:
            return "no-wait";
    }
    return "?";
}

// One side of the comparison: a state and the memory the core showed with it.
struct Side {
    std::string name;  // "A (slot 2)"
    const std::vector<std::uint8_t>* state = nullptr;
    const std::vector<netplay::RegionCopy>* regions = nullptr;
};

const netplay::RegionCopy* find_region(const std::vector<netplay::RegionCopy>& regions,
                                       const std::string& name, std::uint64_t start) {
    for (const auto& r : regions) {
        if (r.name == name && r.start == start) return &r;
    }
    return nullptr;
}

std::string byte_at(const std::vector<std::uint8_t>& bytes, std::size_t at) {
    return at < bytes.size() ? fmt::format("0x{:02x}", bytes[at]) : std::string("none");
}

// The two bundles' values that must agree, each differing one named with both values.
std::vector<std::string> mismatches(const DesyncBundle& a, const DesyncBundle& b) {
    std::vector<std::string> out;
    const auto check = [&](bool same, const char* what, const std::string& x,
                           const std::string& y) {
        if (!same) out.push_back(fmt::format("{}: {} (A) vs {} (B)", what, x, y));
    };
    check(a.session == b.session, "session", netplay::hash_to_hex(a.session),
          netplay::hash_to_hex(b.session));
    check(a.desync_frame == b.desync_frame, "desync frame", std::to_string(a.desync_frame),
          std::to_string(b.desync_frame));
    check(a.state_frame == b.state_frame, "states' frame", std::to_string(a.state_frame),
          std::to_string(b.state_frame));
    check(a.identity.core_name == b.identity.core_name, "core", a.identity.core_name,
          b.identity.core_name);
    check(a.identity.core_version == b.identity.core_version, "core version",
          a.identity.core_version, b.identity.core_version);
    check(a.identity.content_hash == b.identity.content_hash, "content",
          netplay::hash_to_hex(a.identity.content_hash),
          netplay::hash_to_hex(b.identity.content_hash));
    return out;
}

// The frames both bundles hold whose input words differ.
void compare_inputs(const DesyncBundle& a, const DesyncBundle& b, BundleComparison& out) {
    const std::uint64_t from = std::max<std::uint64_t>(a.inputs_from, b.inputs_from);
    const std::uint64_t end =
        std::min<std::uint64_t>(a.inputs_from + a.inputs.size(), b.inputs_from + b.inputs.size());
    if (end <= from) {
        out.lines.push_back("inputs: the bundles hold no frame in common");
        return;
    }
    const int players = std::min<int>(a.players, b.players);
    std::vector<std::string> named;
    std::size_t differing = 0;
    for (std::uint64_t f = from; f < end; ++f) {
        const auto& x = a.inputs[f - a.inputs_from];
        const auto& y = b.inputs[f - b.inputs_from];
        for (int p = 0; p < players; ++p) {
            const auto px = x.pads[static_cast<std::size_t>(p)];
            const auto py = y.pads[static_cast<std::size_t>(p)];
            if (px == py) continue;
            ++differing;
            if (named.size() < kInputFramesNamed)
                named.push_back(
                    fmt::format("frame {} slot {}: 0x{:04x} vs 0x{:04x}", f, p + 1, px, py));
        }
    }
    if (!differing) {
        out.lines.push_back(fmt::format(
            "inputs: identical on the {} frames both hold (frames {}..{}), every player's",
            end - from, from, end - 1));
        return;
    }
    out.differ = true;
    std::string list;
    for (const auto& n : named) list += (list.empty() ? "" : "; ") + n;
    out.lines.push_back(fmt::format("inputs: {} words differ on the frames {}..{} both hold: {}{}",
                                    differing, from, end - 1, list,
                                    differing > named.size() ? "; ..." : ""));
}

void compare_states(const Side& x, const Side& y, std::uint32_t frame, BundleComparison& out) {
    const netplay::ByteDiff state = netplay::diff_bytes(*x.state, *y.state);
    // A side without memory (the core exposes none, or it was not kept) compares states only.
    const bool memory = !x.regions->empty() && !y.regions->empty();
    const auto regions =
        memory ? netplay::diff_regions(*x.regions, *y.regions) : std::vector<netplay::RegionDiff>{};
    if (!memory && (!x.regions->empty() || !y.regions->empty()))
        out.lines.push_back(fmt::format("memory: {} holds none of its state: states compared only",
                                        x.regions->empty() ? x.name : y.name));
    if (state.empty() && regions.empty()) {
        out.lines.push_back(fmt::format(
            "the states of frame {} are identical ({} bytes), and so is the memory ({} regions)",
            frame, x.state->size(), x.regions->size()));
        return;
    }
    out.differ = true;
    out.lines.push_back(
        fmt::format("the states of frame {} differ: {} ({} and {} bytes)", frame,
                    state.empty() ? std::string("no byte") : netplay::describe_ranges(state.ranges),
                    x.state->size(), y.state->size()));
    if (!regions.empty() && !regions.front().diff.ranges.empty()) {
        const netplay::RegionDiff& first = regions.front();
        const std::size_t offset = first.diff.ranges.front().offset;
        const auto* rx = find_region(*x.regions, first.name, first.start);
        const auto* ry = find_region(*y.regions, first.name, first.start);
        out.lines.push_back(fmt::format(
            "first differing byte: {} at 0x{:x} (offset {} in the region): {} in {}, {} in {}",
            first.name.empty() ? "(unnamed)" : first.name, first.start + offset, offset,
            rx ? byte_at(rx->bytes, offset) : "none", x.name,
            ry ? byte_at(ry->bytes, offset) : "none", y.name));
        out.lines.push_back("memory that differs: " + netplay::describe_regions(regions));
    } else if (!state.empty()) {
        const std::size_t at = state.ranges.front().offset;
        out.lines.push_back(fmt::format(
            "first differing byte: state offset {}, in no memory region the core exposes{}: {} in "
            "{}, {} in {}",
            at, memory ? "" : " (or in memory not compared)", byte_at(*x.state, at), x.name,
            byte_at(*y.state, at), y.name));
    }
}

}  // namespace

bool file_is_desync_bundle(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::uint8_t head[8] = {};
    if (!in.read(reinterpret_cast<char*>(head), sizeof head)) return false;
    return is_desync_bundle(head);
}

Result<BundleComparison> compare_bundles(const DesyncBundle& a, const DesyncBundle* b) {
    BundleComparison out;
    if (b) {
        if (const auto bad = mismatches(a, *b); !bad.empty()) {
            std::string list;
            for (const auto& m : bad) list += (list.empty() ? "" : "; ") + m;
            return make_error(ErrorCode::kUsage, "the bundles are not of the same desync: " + list);
        }
    }
    out.lines.push_back(fmt::format(
        "session {}: {} {} ({}), {}, input delay {} frames, {} players",
        netplay::hash_to_hex(a.session), a.identity.core_name, a.identity.core_version,
        a.content_name.empty() && !a.identity.content_hash
            ? std::string("no content")
            : fmt::format("content {}{}", a.content_name.empty() ? "" : a.content_name + " ",
                          netplay::hash_to_hex(a.identity.content_hash)),
        mode_name(a.mode), a.delay, a.players));
    out.lines.push_back(fmt::format(
        "desync: the hashes first disagreed at frame {}; states compared: frame {} (the state "
        "after frame {})",
        a.desync_frame, a.state_frame, a.state_frame - 1));
    Side x, y;
    if (b) {
        x = {fmt::format("A (slot {})", a.slot), &a.own_state, &a.own_regions};
        y = {fmt::format("B (slot {})", b->slot), &b->own_state, &b->own_regions};
        if (a.own_state.empty() || b->own_state.empty())
            return make_error(ErrorCode::kUsage,
                              fmt::format("bundle {} holds no state of its own (no longer held "
                                          "when it was written): nothing to compare",
                                          a.own_state.empty() ? "A" : "B"));
    } else {
        if (a.other != DesyncBundle::Other::kReference || a.other_state.empty())
            return make_error(ErrorCode::kUsage, "this bundle holds one state only (" +
                                                     a.other_note +
                                                     "): give the other player's bundle too");
        if (a.own_state.empty())
            return make_error(ErrorCode::kUsage, "this bundle holds no state of its own");
        x = {fmt::format("slot {}'s own", a.slot), &a.own_state, &a.own_regions};
        y = {"the reference", &a.other_state, &a.other_regions};
    }
    compare_states(x, y, a.state_frame, out);
    if (b) {
        compare_inputs(a, *b, out);
    } else {
        out.lines.push_back(fmt::format(
            "inputs: slot {}'s {} frames ({}..), nothing to compare them with in one bundle",
            a.slot, a.inputs.size(), a.inputs_from));
    }
    return out;
}

int run_bundle_compare(const std::vector<std::string>& paths) {
    std::vector<DesyncBundle> bundles;
    for (const auto& path : paths) {
        auto bundle = read_desync_bundle(path);
        if (!bundle) return fail(bundle.error());
        bundles.push_back(std::move(bundle).value());
    }
    if (bundles.empty() || bundles.size() > 2)
        return fail(make_error(ErrorCode::kUsage, "--compare takes one bundle or two"));
    for (std::size_t i = 0; i < bundles.size(); ++i) {
        const DesyncBundle& b = bundles[i];
        fmt::print("{}: {} (slot {}, {})\n",
                   bundles.size() == 1 ? "bundle"
                   : i == 0            ? "A"
                                       : "B",
                   paths[i], b.slot,
                   b.other == DesyncBundle::Other::kReference ? "its own state and the reference"
                                                              : "its own state");
    }
    auto compared = compare_bundles(bundles[0], bundles.size() == 2 ? &bundles[1] : nullptr);
    if (!compared) return fail(compared.error());
    for (const auto& line : compared.value().lines) fmt::print("{}\n", line);
    fmt::print("{}\n", compared.value().differ ? "DIFFERENT" : "IDENTICAL");
    return compared.value().differ ? 1 : 0;
}

}  // namespace framelock::frontend
