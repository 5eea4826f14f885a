#include "netplay/determinism/replay_seeker.h"

#include <algorithm>
#include <string>

#include "netplay/determinism/evidence.h"

namespace framelock::netplay {

ReplaySeeker::ReplaySeeker(Emulator& emulator, const ReplayContents& contents, Options options)
    : m_emulator(emulator),
      m_contents(contents),
      m_options(options),
      m_first(contents.header.start_frame),
      m_end(contents.header.start_frame + contents.frames.size()),
      m_next(contents.header.start_frame) {
    if (m_options.cache_interval == 0) m_options.cache_interval = 1;
    // The start: a replay from power-on has no state of it in the file.
    keep_state();
}

void ReplaySeeker::keep_state() {
    if (m_kept.contains(m_next)) return;
    std::vector<std::uint8_t> state;
    if (!m_emulator.save_state(state)) return;
    m_kept_bytes += state.size();
    m_kept.emplace(m_next, std::move(state));
    // Over the budget: the states farthest from here go first (never the start and the
    // state after the first frame: a replay from power-on cannot get them back otherwise).
    while (m_kept_bytes > m_options.cache_bytes && m_kept.size() > 3) {
        auto far = std::next(m_kept.begin(), 2);
        for (auto it = far; it != m_kept.end(); ++it) {
            const auto distance = [this](std::uint64_t f) {
                return f > m_next ? f - m_next : m_next - f;
            };
            if (distance(it->first) > distance(far->first)) far = it;
        }
        if (far->first == m_next) break;
        m_kept_bytes -= far->second.size();
        m_kept.erase(far);
    }
}

void ReplaySeeker::run(bool present) {
    if (m_next != m_first && (m_next - m_first) % m_options.cache_interval == 0) keep_state();
    m_emulator.run_frame(m_contents.frames[m_next - m_first].inputs, present);
    ++m_next;
    // The state after the first frame: a core may read what is not in its state at its
    // first frame (the arcade core latches its high-score table from save RAM, which frames
    // played since have changed), so no seek runs the first frame again but to show it.
    if (m_next == m_first + 1) keep_state();
}

bool ReplaySeeker::advance(bool present) {
    if (m_next >= m_end) return false;
    run(present);
    return true;
}

Result<std::uint64_t> ReplaySeeker::show(std::uint64_t frame) {
    if (m_end == m_first) return make_error(ErrorCode::kState, "the replay has no frames");
    frame = std::clamp(frame, m_first, m_end - 1);
    if (shown_any() && shown() == frame) {
        m_seek_base = m_next;
        return std::uint64_t{0};
    }
    // Leaving the start for the first time: its first frame runs now, from the state
    // nothing has touched yet (see run()).
    std::uint64_t ran = 0;
    if (frame > m_first && m_next == m_first && !m_kept.contains(m_first + 1)) {
        run(false);
        ran = 1;
    }
    // The nearest state at or before `frame`: one kept, or a keyframe of the file; the
    // emulator itself when it stands between that state and the frame.
    std::uint64_t base = m_first;
    const std::vector<std::uint8_t>* kept = nullptr;
    if (auto it = m_kept.upper_bound(frame); it != m_kept.begin()) {
        --it;
        base = it->first;
        kept = &it->second;
    }
    const ReplayKeyframe* keyframe = nullptr;
    for (const ReplayKeyframe& k : m_contents.keyframes) {
        if (k.frame > frame) break;
        if (k.frame <= m_first || k.frame >= m_end) continue;  // not this replay's
        if (k.frame > base || !kept) {
            base = k.frame;
            keyframe = &k;
        }
    }
    const bool loads = !(m_next <= frame && m_next >= base);
    if (!loads) {
        base = m_next;
    } else if (keyframe) {
        auto state = keyframe_state(*keyframe);
        if (!state || !m_emulator.load_state(state.value())) {
            return make_error(ErrorCode::kState,
                              "the replay's keyframe of frame " + std::to_string(keyframe->frame) +
                                  " did not load" +
                                  (state ? std::string() : ": " + state.error().message));
        }
        m_emulator.rewind_to(base);
    } else if (kept) {
        if (!m_emulator.load_state(*kept)) {
            return make_error(ErrorCode::kState,
                              "the state kept of frame " + std::to_string(base) + " did not load");
        }
        m_emulator.rewind_to(base);
    } else {
        return make_error(ErrorCode::kState,
                          "this core keeps no savestates: the replay plays forward only");
    }
    m_next = base;
    m_seek_base = base;
    ran += frame + 1 - base;
    while (m_next < frame) run(false);
    run(true);
    // The first frame shown again from the start's state: its picture is up, and the state
    // goes on from the one it had the first time (see run()).
    if (frame == m_first && loads) {
        if (const auto after = m_kept.find(m_first + 1); after != m_kept.end()) {
            if (m_emulator.load_state(after->second)) m_emulator.rewind_to(m_first + 1);
        }
    }
    return ran;
}

std::uint64_t ReplaySeeker::hash_now() {
    if (!shown_any()) return 0;
    return evidence_hash(m_emulator, m_contents.mask_at(static_cast<std::uint32_t>(shown())),
                         m_scratch);
}

std::uint64_t ReplaySeeker::recorded_hash() const {
    if (!shown_any()) return 0;
    return m_contents.frames[shown() - m_first].hash;
}

}  // namespace framelock::netplay
