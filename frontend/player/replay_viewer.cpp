#include "frontend/player/replay_viewer.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "netplay/base/safe_text.h"

namespace framelock::frontend {

ReplayViewer::ReplayViewer(std::uint64_t first, std::uint64_t end, double fps)
    : m_first(first), m_end(std::max(end, first + 1)), m_fps(fps > 0 ? fps : 60), m_target(first) {}

void ReplayViewer::go_to(std::uint64_t frame) {
    m_target = std::clamp(frame, m_first, last());
    m_carry = 0;
}

void ReplayViewer::rest_at(std::uint64_t frame) {
    m_playing = false;
    go_to(frame);
}

void ReplayViewer::apply(const ViewerInput& input) {
    const auto seek_frames = static_cast<std::uint64_t>(std::llround(kSeekSeconds * m_fps));
    switch (input.command) {
        case ViewerCommand::kPlayPause:
            // Play on the last frame: from the start again.
            if (!m_playing && m_target == last()) go_to(m_first);
            m_playing = !m_playing;
            m_carry = 0;
            break;
        case ViewerCommand::kStepBack:
            m_playing = false;
            go_to(m_target > m_first ? m_target - 1 : m_first);
            break;
        case ViewerCommand::kStepForward:
            m_playing = false;
            go_to(m_target + 1);
            break;
        case ViewerCommand::kSeekBack:
            go_to(m_target > m_first + seek_frames ? m_target - seek_frames : m_first);
            break;
        case ViewerCommand::kSeekForward:
            go_to(m_target + seek_frames);
            break;
        case ViewerCommand::kSlower:
            if (m_speed > 0) --m_speed;
            break;
        case ViewerCommand::kFaster:
            if (m_speed + 1 < kSpeeds.size()) ++m_speed;
            break;
        case ViewerCommand::kStart:
            go_to(m_first);
            break;
        case ViewerCommand::kEnd:
            go_to(last());
            m_playing = false;
            break;
        case ViewerCommand::kSeekTo: {
            const double f = std::clamp(input.fraction, 0.0, 1.0);
            go_to(m_first + static_cast<std::uint64_t>(
                                std::llround(f * static_cast<double>(last() - m_first))));
            break;
        }
        case ViewerCommand::kPads:
            m_pads = !m_pads;
            break;
        case ViewerCommand::kHelp:
            m_help = !m_help;
            break;
    }
}

std::uint64_t ReplayViewer::tick(netplay::Micros elapsed_us) {
    if (!m_playing || elapsed_us <= 0) return m_target;
    m_carry += static_cast<double>(elapsed_us) * 1e-6 * m_fps * speed();
    const double whole = std::floor(m_carry);
    m_carry -= whole;
    const auto step = static_cast<std::uint64_t>(whole);
    if (step >= last() - m_target) {
        m_target = last();
        m_playing = false;
        m_carry = 0;
    } else {
        m_target += step;
    }
    return m_target;
}

std::string replay_time(std::uint64_t frames, double fps) {
    const auto hundredths = static_cast<std::uint64_t>(
        std::floor(static_cast<double>(frames) / (fps > 0 ? fps : 60) * 100));
    return fmt::format("{}:{:02}.{:02}", hundredths / 6000, hundredths / 100 % 60,
                       hundredths % 100);
}

std::string pad_display(int slot, netplay::InputWord pad) {
    // RETRO_DEVICE_ID_JOYPAD_*: B 0, Y 1, SELECT 2, START 3, UP 4, DOWN 5, LEFT 6, RIGHT 7,
    // A 8, X 9, L 10, R 11; in groups as a pad has them.
    struct Shown {
        int bit;
        const char* name;
    };
    static constexpr Shown kGroups[][4] = {
        {{4, "↑"}, {5, "↓"}, {6, "←"}, {7, "→"}},
        {{0, "B"}, {8, "A"}, {1, "Y"}, {9, "X"}},
        {{10, "L"}, {11, "R"}, {-1, ""}, {-1, ""}},
        {{2, "SEL"}, {3, "START"}, {-1, ""}, {-1, ""}},
    };
    std::string out = fmt::format("P{}", slot);
    for (const auto& group : kGroups) {
        out += ' ';
        for (const Shown& b : group) {
            if (b.bit < 0) break;
            out += ' ';
            if (pad & (1u << b.bit)) {
                out += b.name;
            } else {
                // A dot in the button's place, as wide as its name.
                const std::size_t width = b.bit >= 4 && b.bit <= 7 ? 1 : std::string(b.name).size();
                out += "·";
                out.append(width - 1, ' ');
            }
        }
    }
    return out;
}

ReplayPanel ReplayViewer::panel(const netplay::ReplayContents& contents,
                                std::uint64_t shown) const {
    ReplayPanel p;
    shown = std::clamp(shown, m_first, last());
    const std::string speed_text = speed() == 0.25  ? "1/4x"
                                   : speed() == 0.5 ? "1/2x"
                                                    : fmt::format("{}x", speed());
    p.lines.push_back(
        {fmt::format("replay  {} {}  frame {} of {} .. {}  {} / {}",
                     m_playing ? "playing" : "paused", speed_text, shown, m_first, last(),
                     replay_time(shown - m_first, m_fps), replay_time(last() - m_first, m_fps)),
         Tone::kNormal});
    if (m_pads) {
        const std::size_t index = shown - contents.header.start_frame;
        for (int p_slot = 0; p_slot < contents.header.players; ++p_slot) {
            const netplay::InputWord word =
                index < contents.frames.size() ? contents.frames[index].inputs.pads[p_slot] : 0;
            p.lines.push_back({pad_display(p_slot + 1, word), word ? Tone::kGood : Tone::kDim});
        }
    }
    // The chat said up to this frame in the last kChatSeconds, the newest kChatRows lines
    // (as safe text: a replay file is anyone's).
    const auto window = static_cast<std::uint64_t>(kChatSeconds * m_fps);
    std::vector<const netplay::ChatLine*> said;
    for (const netplay::ChatLine& line : contents.chat) {
        if (line.frame <= shown && line.frame + window >= shown) said.push_back(&line);
    }
    std::stable_sort(said.begin(), said.end(),
                     [](const auto* a, const auto* b) { return a->frame < b->frame; });
    if (said.size() > kChatRows) said.erase(said.begin(), said.end() - kChatRows);
    for (const netplay::ChatLine* line : said) {
        netplay::ChatLine safe = *line;
        safe.from = safe_text(safe.from, netplay::kMaxNameBytes);
        safe.text = safe_text(safe.text, netplay::kMaxChatBytes);
        p.lines.push_back(
            {"chat " +
                 replay_time(line->frame - std::min<std::uint64_t>(line->frame, m_first), m_fps) +
                 "  " + netplay::chat_line_text(safe),
             Tone::kNormal});
    }
    if (m_help) {
        for (std::string& line : viewer_help_lines())
            p.lines.push_back({std::move(line), Tone::kDim});
    } else {
        p.lines.push_back({"H: the keys", Tone::kDim});
    }
    p.position = last() == m_first
                     ? 0.0
                     : static_cast<double>(shown - m_first) / static_cast<double>(last() - m_first);
    return p;
}

}  // namespace framelock::frontend
