// The replay viewer's model: where in the replay it is, whether it plays and how fast, and
// what its panel says (the position and time, the bar, each player's pad at the frame shown,
// the chat said in the last seconds, the keys). Pure: commands and elapsed time in, the
// frame to show out; frontend/player/replay_window.h moves the emulator there
// (netplay::ReplaySeeker) and draws.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/player/overlay_model.h"
#include "frontend/player/viewer_keys.h"
#include "netplay/determinism/replay.h"
#include "netplay/interfaces/clock.h"

namespace framelock::frontend {

class ReplayViewer {
  public:
    static constexpr std::array<double, 5> kSpeeds = {0.25, 0.5, 1, 2, 4};
    static constexpr double kSeekSeconds = 10;
    static constexpr double kChatSeconds = 10;  // a chat line shows this long after its frame
    static constexpr std::size_t kChatRows = 3;

    // Frames first .. end - 1 (end > first) at `fps`; it starts paused on the first frame.
    ReplayViewer(std::uint64_t first, std::uint64_t end, double fps);

    void apply(const ViewerInput& input);
    // Paused on `frame` (where the emulator is, when a seek could not go where asked).
    void rest_at(std::uint64_t frame);
    // Wall time passed: the frame to show now. Playing moves speed x fps frames a second
    // (fractions carried over), and stops on the last frame.
    std::uint64_t tick(netplay::Micros elapsed_us);
    std::uint64_t target() const { return m_target; }
    bool playing() const { return m_playing; }
    double speed() const { return kSpeeds[m_speed]; }
    bool pads_shown() const { return m_pads; }
    bool help_shown() const { return m_help; }
    // Sound only plays at 1x while playing (other speeds skip or repeat frames).
    bool sound() const { return m_playing && speed() == 1.0; }

    // The panel for the frame shown, `shown` (the seeker's, which may trail the target).
    ReplayPanel panel(const netplay::ReplayContents& contents, std::uint64_t shown) const;

  private:
    std::uint64_t last() const { return m_end - 1; }
    void go_to(std::uint64_t frame);

    std::uint64_t m_first, m_end;
    double m_fps;
    std::uint64_t m_target;
    bool m_playing = false;
    std::size_t m_speed = 2;  // 1x
    double m_carry = 0;       // frames due but not yet whole
    bool m_pads = true;
    bool m_help = false;
};

// "P1  ↑ · ← ·  B · Y ·  L ·  SEL ·": the buttons held, a dot for each not held.
std::string pad_display(int slot, netplay::InputWord pad);
// "1:02.35": minutes, seconds and hundredths of `frames` at `fps`.
std::string replay_time(std::uint64_t frames, double fps);

}  // namespace framelock::frontend
