// Moves an emulator anywhere in a replay. To show frame F it loads the nearest state at or
// before F (a keyframe of the file, the replay's start, or a state it kept while playing) and
// runs the recorded frames from there without picture or sound, then F with them. Playing
// forward keeps a state every `cache_interval` frames (up to `cache_bytes`), so stepping back
// re-runs a few frames, not a keyframe's worth. Threading: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/determinism/replay.h"
#include "netplay/interfaces/emulator.h"

namespace framelock::netplay {

class ReplaySeeker {
  public:
    struct Options {
        std::uint32_t cache_interval = 60;
        std::size_t cache_bytes = std::size_t{256} << 20;
        // Playing forward only (replay play, replay export): no states kept on the way.
        static Options forward_only() { return {UINT32_MAX, 0}; }
    };

    // `emulator` stands at the replay's first frame, its start state loaded (as
    // frontend/app/replay_start.h leaves it); both are borrowed.
    ReplaySeeker(Emulator& emulator, const ReplayContents& contents, Options options);
    ReplaySeeker(Emulator& emulator, const ReplayContents& contents)
        : ReplaySeeker(emulator, contents, Options{}) {}

    std::uint64_t first() const { return m_first; }  // the replay's first frame
    std::uint64_t end() const { return m_end; }      // one past its last
    // The last frame run (shown), or none before the first frame ran.
    bool shown_any() const { return m_next > m_first; }
    std::uint64_t shown() const { return m_next - 1; }
    std::uint64_t next() const { return m_next; }

    // Runs the next recorded frame. false at the end.
    bool advance(bool present);
    // Runs up to `frame` (first() .. end() - 1), it last with picture and sound. Returns the
    // frames it ran (what the seek cost), or a kState error when the state it needed did not
    // load (a core without savestates can only go forward).
    Result<std::uint64_t> show(std::uint64_t frame);
    // The frame whose state the last show() ran from (a keyframe's, a kept one, or where the
    // emulator stood).
    std::uint64_t seek_base() const { return m_seek_base; }

    // The state's evidence hash after the frame shown, as the recording computed it, and the
    // one the recording kept (replay play --verify compares the same two).
    std::uint64_t hash_now();
    std::uint64_t recorded_hash() const;

    std::size_t kept_states() const { return m_kept.size(); }
    std::size_t kept_bytes() const { return m_kept_bytes; }

  private:
    void run(bool present);
    void keep_state();

    Emulator& m_emulator;
    const ReplayContents& m_contents;
    Options m_options;
    std::uint64_t m_first = 0;
    std::uint64_t m_end = 0;
    std::uint64_t m_next = 0;
    std::uint64_t m_seek_base = 0;
    // States this seeker saved, by the frame they were saved before (the start among them).
    std::map<std::uint64_t, std::vector<std::uint8_t>> m_kept;
    std::size_t m_kept_bytes = 0;
    std::vector<std::uint8_t> m_scratch;
};

}  // namespace framelock::netplay
