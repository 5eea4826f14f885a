#include "netplay/determinism/synctest.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <utility>

#include "netplay/determinism/state_hash.h"

namespace framelock::netplay {

std::vector<RegionCopy> copy_regions(Emulator& emulator) {
    std::vector<RegionCopy> out;
    for (const auto& region : emulator.memory_regions()) {
        out.push_back({region.name, region.start, {region.bytes.begin(), region.bytes.end()}});
    }
    return out;
}

std::vector<RegionDiff> diff_regions(const std::vector<RegionCopy>& a,
                                     const std::vector<RegionCopy>& b) {
    std::vector<RegionDiff> out;
    const std::size_t count = std::max(a.size(), b.size());
    for (std::size_t i = 0; i < count; ++i) {
        if (i >= a.size() || i >= b.size() || a[i].name != b[i].name) {
            const RegionCopy& present = i < a.size() ? a[i] : b[i];
            RegionDiff d{present.name, present.start, {}};
            d.diff.sizes_differ = true;
            d.diff.range_count = 1;
            d.diff.differing_bytes = present.bytes.size();
            d.diff.ranges.push_back({0, present.bytes.size()});
            out.push_back(std::move(d));
            continue;
        }
        ByteDiff diff = diff_bytes(a[i].bytes, b[i].bytes);
        if (!diff.empty()) out.push_back({a[i].name, a[i].start, std::move(diff)});
    }
    return out;
}

std::string describe_regions(const std::vector<RegionDiff>& diffs) {
    std::string out;
    for (const auto& d : diffs) {
        if (!out.empty()) out += ", ";
        char line[160];
        const std::uint64_t first = d.start + (d.diff.ranges.empty() ? 0 : d.diff.ranges[0].offset);
        const std::uint64_t last = d.diff.ranges.empty() ? first
                                                         : d.start + d.diff.ranges.back().offset +
                                                               d.diff.ranges.back().length - 1;
        const bool one = d.diff.differing_bytes == 1;
        std::snprintf(line, sizeof line,
                      "%s (%zu byte%s differ%s in %zu range%s, 0x%" PRIx64 "..0x%" PRIx64 ")",
                      d.name.empty() ? "(unnamed)" : d.name.c_str(), d.diff.differing_bytes,
                      one ? "" : "s", one ? "s" : "", d.diff.range_count,
                      d.diff.range_count == 1 ? "" : "s", first, last);
        out += line;
    }
    return out.empty() ? "no memory region" : out;
}

const char* round_trip_result_name(RoundTripResult result) {
    static constexpr std::pair<RoundTripResult, const char*> kNames[] = {
        {RoundTripResult::kRunning, "running"},
        {RoundTripResult::kDeterministic, "deterministic"},
        {RoundTripResult::kNoSavestates, "no-savestates"},
        {RoundTripResult::kSerializeTwice, "serialize-twice-differs"},
        {RoundTripResult::kLoadRejected, "load-rejected"},
        {RoundTripResult::kDiverged, "diverged"},
    };
    for (const auto& [value, name] : kNames) {
        if (value == result) return name;
    }
    return "?";
}

RoundTripCheck::RoundTripCheck(Emulator& emulator, RoundTripOptions options)
    : m_emulator(emulator), m_options(options) {
    m_options.check_distance = std::max<std::uint32_t>(1, m_options.check_distance);
}

const RoundTripCheck::Saved* RoundTripCheck::saved(std::uint64_t frame) const {
    if (m_ring.empty() || frame < m_ring.front().frame || frame > m_ring.back().frame)
        return nullptr;
    return &m_ring[frame - m_ring.front().frame];
}

void RoundTripCheck::run(const InputFrame& inputs) {
    if (failed() || rerunning()) return;
    const std::uint64_t f = m_stats.frames;
    m_emulator.run_frame(inputs, true);
    ++m_stats.frames;

    Saved s;
    s.frame = f;
    s.inputs = inputs;
    if (!m_emulator.save_state(s.state) || s.state.empty()) {
        m_verdict.result = RoundTripResult::kNoSavestates;
        m_verdict.frame = f;
        m_verdict.message = "the core could not save its state after frame " + std::to_string(f) +
                            " (retro_serialize_size is 0 or retro_serialize failed): it has no "
                            "usable savestates, so neither rollback nor state transfer can work";
        return;
    }
    const std::size_t size = s.state.size();
    if (m_stats.min_state_size == 0 || size < m_stats.min_state_size) m_stats.min_state_size = size;
    if (!m_ring.empty() && m_ring.back().state.size() != size) {
        if (m_stats.size_changes++ == 0) m_stats.first_size_change = f;
    }
    m_stats.max_state_size = std::max(m_stats.max_state_size, size);

    // Serializing twice without running must give the same bytes.
    if (!m_emulator.save_state(m_scratch) || m_scratch != s.state) {
        m_verdict.result = RoundTripResult::kSerializeTwice;
        m_verdict.frame = f;
        m_verdict.state_diff = diff_bytes(s.state, m_scratch);
        m_verdict.message = "saving twice after frame " + std::to_string(f) +
                            " without running gave different bytes (" +
                            std::to_string(m_verdict.state_diff.differing_bytes) +
                            " bytes differ): the state includes something saving changes";
        m_verdict.state_first = std::move(s.state);
        m_verdict.state_other = m_scratch;
        return;
    }
    s.state_hash = hash_bytes(s.state);
    s.regions = copy_regions(m_emulator);
    m_ring.push_back(std::move(s));
    while (m_ring.size() > 2 * static_cast<std::size_t>(m_options.check_distance) + 1)
        m_ring.pop_front();

    if (f >= m_options.check_distance && f % m_options.check_distance == 0) begin_check();
}

bool RoundTripCheck::moves_again(const Saved& s, const std::vector<std::uint8_t>& again,
                                 const std::vector<ByteRange>& ranges) {
    // Each range must move on the next load too (a value taken at every load), and none may
    // have kept what the machine held before the load (a field the load does not restore).
    std::vector<std::uint8_t> third;
    const bool ok = m_emulator.load_state(again) && m_emulator.save_state(third) &&
                    third.size() == again.size();
    bool moving = ok;
    for (const ByteRange& r : ranges) {
        bool moves = false, restored = true;
        for (std::size_t i = r.offset; i < r.offset + r.length && i < again.size(); ++i) {
            moves |= ok && third[i] != again[i];
            // Kept the machine's value, and keeps it on the next load too: not restored (a
            // value taken anew at each load may come close to the last one by chance).
            restored &= !(i < m_before_load.size() && again[i] == m_before_load[i] &&
                          again[i] != s.state[i] && (!ok || third[i] == again[i]));
        }
        moving = moving && moves && restored;
    }
    // Back to the state being checked, for its re-run.
    return m_emulator.load_state(s.state) && moving;
}

bool RoundTripCheck::load_and_compare(const Saved& s, bool record_failure) {
    if (!m_emulator.save_state(m_before_load)) m_before_load.clear();
    if (!m_emulator.load_state(s.state)) {
        if (record_failure) {
            m_verdict.result = RoundTripResult::kLoadRejected;
            m_verdict.frame = s.frame;
            m_verdict.loaded_frame = s.frame;
            m_verdict.message = "the core refused to load the state it saved after frame " +
                                std::to_string(s.frame) + " (" + std::to_string(s.state.size()) +
                                " bytes; retro_unserialize returned false)";
        }
        return false;
    }
    ++m_stats.loads;
    std::vector<std::uint8_t> again;
    const bool saved_again = m_emulator.save_state(again);
    const std::vector<RegionCopy> regions = copy_regions(m_emulator);
    std::vector<RegionDiff> diffs = diff_regions(s.regions, regions);
    if (saved_again && diffs.empty() && equal_except(again, s.state, m_verdict.reload_bytes))
        return true;
    if (saved_again && diffs.empty() && !s.regions.empty() && again.size() == s.state.size()) {
        // Only bytes of the state moved, not the machine (which must show some memory to say
        // so): a value the core takes when a state is loaded. Compared without them from now
        // on; the re-run shows whether they matter.
        const ByteDiff moved = diff_bytes(s.state, again, kMaxReloadRanges);
        std::vector<ByteRange> wider = unite_ranges(m_verdict.reload_bytes, moved.ranges);
        if (moved.range_count <= kMaxReloadRanges && wider.size() <= kMaxReloadRanges &&
            covered_bytes(wider) * kMaxReloadDivisor <= s.state.size() &&
            moves_again(s, again, moved.ranges)) {
            m_moved_now = moved;
            m_reload_before = m_verdict.reload_bytes;
            m_verdict.reload_bytes = std::move(wider);
            return true;
        }
    }
    if (record_failure) {
        m_verdict.differs_after_load = true;
        m_verdict.frame = s.frame;
        m_verdict.loaded_frame = s.frame;
        m_verdict.state_first = s.state;
        m_verdict.state_diff = diff_bytes(s.state, again);
        m_verdict.state_other = std::move(again);
        m_verdict.regions = std::move(diffs);
    }
    return false;
}

void RoundTripCheck::begin_check() {
    const std::uint64_t now = m_stats.frames - 1;
    const Saved* from = saved(now - m_options.check_distance);
    if (!from) return;  // cannot happen: the ring holds 2 * distance + 1 frames
    m_verdict.loaded_frame = from->frame;
    m_moved_now = {};
    if (!load_and_compare(*from, true) && m_verdict.result == RoundTripResult::kLoadRejected)
        return;
    m_rerun_next = from->frame + 1;
    m_rerun_end = now + 1;
}

void RoundTripCheck::rerun_step() {
    if (!rerunning()) return;
    const std::uint64_t g = m_rerun_next++;
    const Saved* first = saved(g);
    m_emulator.run_frame(first->inputs, true);
    ++m_stats.rerun_frames;
    std::vector<std::uint8_t> state;
    const bool ok = m_emulator.save_state(state);
    const bool state_same =
        ok && (m_verdict.reload_bytes.empty()
                   ? hash_bytes(state) == first->state_hash && state == first->state
                   : equal_except(state, first->state, m_verdict.reload_bytes));
    std::vector<RegionCopy> regions = copy_regions(m_emulator);
    const bool diverged = !state_same || !diff_regions(first->regions, regions).empty();
    if (diverged) {
        m_verdict.rerun_diverged = true;
        m_verdict.rerun_frame = g;
        m_rerun_next = m_rerun_end;
        const std::uint64_t loaded = m_verdict.loaded_frame;
        fail_diverged(*first, std::move(state), regions);
        if (!m_moved_now.empty() && !m_verdict.differs_after_load) {
            // The bytes this load moved were game state after all: the state of the loaded
            // frame does not load back faithfully. Say so, with the bytes, not only the re-run.
            m_verdict.reload_bytes = m_reload_before;
            m_verdict.differs_after_load = true;
            m_verdict.message = "loading the state saved after frame " + std::to_string(loaded) +
                                " changed " + describe_ranges(m_moved_now.ranges) +
                                " of it while every memory region loaded back, and the re-run "
                                "diverged at frame " +
                                std::to_string(g) + " (" + describe_regions(m_verdict.regions) +
                                "): the load does not restore those bytes, and they are game state";
            m_verdict.frame = loaded;
        }
        return;
    }
    if (rerunning()) return;
    // The check point passed. Memory that differed right after loading but came back by
    // itself does not change the game (a cache the core rebuilds); say so, do not fail.
    if (m_verdict.differs_after_load && m_verdict.state_diff.empty()) {
        if (m_verdict.message.empty()) {
            m_verdict.message = "note: right after loading the state of frame " +
                                std::to_string(m_verdict.loaded_frame) + " the memory differed (" +
                                describe_regions(m_verdict.regions) +
                                "), but the re-run matched the first run";
        }
        m_verdict.differs_after_load = false;
        m_verdict.regions.clear();
        m_verdict.state_first.clear();
        m_verdict.state_other.clear();
    } else if (m_verdict.differs_after_load) {
        // The state saved again after loading differs: that alone is a failure.
        m_verdict.result = RoundTripResult::kDiverged;
        m_verdict.message = "loading the state of frame " + std::to_string(m_verdict.frame) +
                            " and saving it again gave different bytes (" +
                            std::to_string(m_verdict.state_diff.differing_bytes) + " bytes differ)";
        return;
    }
    m_last_good_load = m_verdict.loaded_frame;
    m_any_good_load = true;
}

void RoundTripCheck::fail_diverged(const Saved& first, std::vector<std::uint8_t> other_state,
                                   const std::vector<RegionCopy>& other_regions) {
    m_verdict.result = RoundTripResult::kDiverged;
    if (m_verdict.differs_after_load) {
        // The root cause is the state itself; find the first saved state that does not load
        // back faithfully (the check points are `distance` apart, the fault may start between).
        const std::uint64_t rerun_from = m_verdict.loaded_frame;
        narrow_down();
        m_verdict.message =
            "the state saved after frame " + std::to_string(m_verdict.frame) +
            " does not load back faithfully: right after loading it " +
            (m_verdict.regions.empty() ? std::string("the state saved again differs")
                                       : describe_regions(m_verdict.regions) + " differ") +
            "; a re-run from the state of frame " + std::to_string(rerun_from) +
            " diverged at frame " + std::to_string(m_verdict.rerun_frame);
        return;
    }
    m_verdict.frame = first.frame;
    m_verdict.state_first = first.state;
    m_verdict.state_diff = diff_bytes(first.state, other_state);
    m_verdict.state_other = std::move(other_state);
    m_verdict.regions = diff_regions(first.regions, other_regions);
    m_verdict.message = "re-running from the state of frame " +
                        std::to_string(m_verdict.loaded_frame) + " diverged at frame " +
                        std::to_string(first.frame) + ": " + describe_regions(m_verdict.regions) +
                        (m_verdict.state_diff.empty()
                             ? std::string("; the savestates are equal")
                             : "; " + std::to_string(m_verdict.state_diff.differing_bytes) +
                                   " bytes of the savestate differ");
}

void RoundTripCheck::narrow_down() {
    const std::uint64_t first = m_any_good_load ? m_last_good_load + 1 : 0;
    for (std::uint64_t g = first; g < m_verdict.loaded_frame; ++g) {
        const Saved* s = saved(g);
        if (!s) continue;
        RoundTripVerdict keep = m_verdict;
        m_verdict.differs_after_load = false;
        if (!load_and_compare(*s, true) && m_verdict.differs_after_load) {
            m_verdict.rerun_frame = keep.rerun_frame;
            m_verdict.rerun_diverged = keep.rerun_diverged;
            m_verdict.result = keep.result;
            return;  // m_verdict now names frame g
        }
        m_verdict = std::move(keep);
    }
}

const RoundTripVerdict& RoundTripCheck::finish() {
    while (rerunning()) rerun_step();
    if (m_verdict.result == RoundTripResult::kRunning) {
        m_verdict.result = RoundTripResult::kDeterministic;
        const std::string note = m_verdict.message;
        m_verdict.message = std::to_string(m_stats.frames) + " frames, " +
                            std::to_string(m_stats.loads) + " states loaded and " +
                            std::to_string(m_stats.rerun_frames) +
                            " frames re-run: every state loaded back and every re-run matched";
        if (m_stats.size_changes) {
            m_verdict.message += "; the state size changed " +
                                 std::to_string(m_stats.size_changes) + " times (" +
                                 std::to_string(m_stats.min_state_size) + " to " +
                                 std::to_string(m_stats.max_state_size) +
                                 " bytes), each state was saved and loaded at its own size";
        }
        if (!m_verdict.reload_bytes.empty()) {
            m_verdict.message +=
                "; " + describe_ranges(m_verdict.reload_bytes) +
                " of the savestate changed with every load and never affected the game: a value "
                "the core takes when a state is loaded (a clock, a counter). Not a desync: "
                "netplay compares states without the bytes a load moves";
        }
        if (!note.empty()) m_verdict.message += " (" + note + ")";
    }
    return m_verdict;
}

RoundTripVerdict run_round_trip_check(Emulator& emulator, const std::vector<InputFrame>& inputs,
                                      RoundTripOptions options) {
    RoundTripCheck check(emulator, options);
    for (const auto& frame : inputs) {
        check.run(frame);
        while (check.rerunning()) check.rerun_step();
        if (check.failed()) break;
    }
    return check.finish();
}

}  // namespace framelock::netplay
