// The save/load round-trip check (GGPO's sync test, stricter): is a core's savestate a
// faithful, repeatable picture of the machine? Frame lock trusts it for late join and
// resync, rollback for every misprediction, so both run this same check before relying
// on it, and `framelock synctest` runs it for a core developer.
//
// Every frame of the first run: save the state, hash it and the core's memory regions,
// and serialize a second time without running (the bytes must be identical). Every
// `check_distance` frames: load the state of `check_distance` frames ago, compare the
// machine right after loading with what it was then (the memory regions, and the state
// saved again must be byte-identical), then re-run to the present with the same inputs;
// every re-run frame's state and memory must equal the first run's.
//
// The check is driven by its caller one frame at a time (run, then rerun_step while a
// re-run is under way), so a frontend can keep each frame's picture between steps; it
// never calls back into its caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "netplay/base/types.h"
#include "netplay/determinism/byte_diff.h"
#include "netplay/interfaces/emulator.h"

namespace framelock::netplay {

// A copy of one memory region, so it can be compared after the emulator moved on.
struct RegionCopy {
    std::string name;
    std::uint64_t start = 0;
    std::vector<std::uint8_t> bytes;
};
std::vector<RegionCopy> copy_regions(Emulator& emulator);

struct RegionDiff {
    std::string name;
    std::uint64_t start = 0;  // the region's address in the core's address space
    ByteDiff diff;            // offsets from the region's start
};
// Regions are matched by name and position; a region present on one side only is reported
// with sizes_differ.
std::vector<RegionDiff> diff_regions(const std::vector<RegionCopy>& a,
                                     const std::vector<RegionCopy>& b);

// A one-line account of the differing regions: "CLOCK (8 bytes at 0x1000..0x1007)".
std::string describe_regions(const std::vector<RegionDiff>& diffs);

struct RoundTripOptions {
    std::uint32_t check_distance = 8;  // frames between a save and its reload (>= 1)
};

enum class RoundTripResult {
    kRunning,         // no verdict yet
    kDeterministic,   // every check passed (set by finish())
    kNoSavestates,    // the core could not save (size 0 or serialize failed)
    kSerializeTwice,  // two saves without running in between gave different bytes
    kLoadRejected,    // the core refused a state it had saved
    kDiverged,        // loading or re-running did not give back the first run
};
const char* round_trip_result_name(RoundTripResult result);

struct RoundTripVerdict {
    RoundTripResult result = RoundTripResult::kRunning;
    // The first divergent frame (0-based, the frame just run, as in hash logs): for
    // kDiverged the frame whose saved state did not load back faithfully, or the first
    // re-run frame that differs; else the frame at which the failure showed.
    std::uint64_t frame = 0;
    std::string message;  // one line, for people
    // kDiverged: the frame whose state was loaded; true when the machine already differed
    // right after loading it (the state leaves something out).
    std::uint64_t loaded_frame = 0;
    bool differs_after_load = false;
    // kDiverged: the first re-run frame whose state or memory differed (the pictures of
    // this frame are the evidence a frontend keeps), if the re-run got that far.
    std::uint64_t rerun_frame = 0;
    bool rerun_diverged = false;
    // The first run's and the other run's serialized state and memory at `frame`.
    std::vector<std::uint8_t> state_first, state_other;
    ByteDiff state_diff;
    std::vector<RegionDiff> regions;  // only regions that differ
    // Bytes of the state that a load changed while every memory region loaded back and the
    // re-runs matched (a value the core takes when a state is loaded): compared without them
    // from then on, listed, and no failure. Not in any verdict but kDeterministic's reasons.
    std::vector<ByteRange> reload_bytes;
};

struct RoundTripStats {
    std::uint64_t frames = 0;        // first-run frames
    std::uint64_t rerun_frames = 0;  // frames run again after a load
    std::uint64_t loads = 0;         // states loaded
    std::size_t min_state_size = 0;  // bytes
    std::size_t max_state_size = 0;
    std::uint64_t size_changes = 0;       // frames whose state size differed from the previous one
    std::uint64_t first_size_change = 0;  // the frame of the first one
};

class RoundTripCheck {
  public:
    // `emulator` is borrowed and must stay at the frame it is at now (frame 0 of the check
    // is the next one it runs).
    RoundTripCheck(Emulator& emulator, RoundTripOptions options);

    // A state reloaded may differ in at most this share of its bytes (and kMaxReloadRanges
    // ranges) to count as reload bytes rather than a state that does not load back.
    static constexpr std::size_t kMaxReloadDivisor = 4;
    static constexpr std::size_t kMaxReloadRanges = 64;

    // Runs the next first-run frame with `inputs`, saves and checks it. Afterwards either a
    // verdict is in (failed()), or rerunning() tells whether a check point started a re-run.
    void run(const InputFrame& inputs);

    bool rerunning() const { return m_rerun_next < m_rerun_end; }
    std::uint64_t rerun_frame() const { return m_rerun_next; }  // the frame rerun_step runs
    // Re-runs one frame of the check under way and compares it with the first run.
    void rerun_step();

    // Ends the check after the frames run so far (any re-run under way is completed first);
    // the verdict is kDeterministic unless something failed.
    const RoundTripVerdict& finish();

    bool failed() const {
        return m_verdict.result != RoundTripResult::kRunning &&
               m_verdict.result != RoundTripResult::kDeterministic;
    }
    const RoundTripVerdict& verdict() const { return m_verdict; }
    const RoundTripStats& stats() const { return m_stats; }
    std::uint64_t frames() const { return m_stats.frames; }

  private:
    struct Saved {
        std::uint64_t frame = 0;
        InputFrame inputs;  // the inputs that frame ran with
        std::vector<std::uint8_t> state;
        std::uint64_t state_hash = 0;
        std::vector<RegionCopy> regions;
    };
    const Saved* saved(std::uint64_t frame) const;
    void begin_check();
    // Loads `s` and compares the machine with it; false (and the verdict) on a failure.
    bool load_and_compare(const Saved& s, bool record_failure);
    // Whether the state bytes `ranges` a load of `s` changed (into `again`) change on every
    // load and were not left as the machine had them; leaves `s` loaded.
    bool moves_again(const Saved& s, const std::vector<std::uint8_t>& again,
                     const std::vector<ByteRange>& ranges);
    void fail_diverged(const Saved& first, std::vector<std::uint8_t> other_state,
                       const std::vector<RegionCopy>& other_regions);
    void narrow_down();

    Emulator& m_emulator;
    RoundTripOptions m_options;
    std::deque<Saved> m_ring;            // the last 2 * distance + 1 first-run frames, oldest first
    std::uint64_t m_last_good_load = 0;  // the newest frame whose state loaded back faithfully
    bool m_any_good_load = false;
    std::uint64_t m_rerun_next = 0, m_rerun_end = 0;
    // This check's load moved state bytes not seen moving before (taken as reload bytes until
    // its re-run says otherwise), and the reload bytes before it.
    ByteDiff m_moved_now;
    std::vector<ByteRange> m_reload_before;
    std::vector<std::uint8_t> m_before_load;  // the machine before the last load_and_compare
    std::vector<std::uint8_t> m_scratch;
    RoundTripVerdict m_verdict;
    RoundTripStats m_stats;
};

// The whole check on `inputs.size()` frames, for callers that need no pictures (a session
// deciding whether to trust savestates).
RoundTripVerdict run_round_trip_check(Emulator& emulator, const std::vector<InputFrame>& inputs,
                                      RoundTripOptions options);

}  // namespace framelock::netplay
