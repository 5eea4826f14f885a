#include "frontend/player/overlay_model.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "netplay/base/safe_text.h"

namespace framelock::frontend {
namespace {

constexpr int kMargin = 8;   // between the window's edge and anything drawn
constexpr int kPadding = 6;  // inside the panel
constexpr int kMinColumns = 34;
constexpr int kGraphLines = 5;  // the graph is as tall as this many text lines

const char* state_name(PeerStatus::State state) {
    switch (state) {
        case PeerStatus::State::kYou:
            return "you";
        case PeerStatus::State::kPlaying:
            return "playing";
        case PeerStatus::State::kWaiting:
            return "waiting";
        case PeerStatus::State::kLeft:
            return "left";
        case PeerStatus::State::kDesynced:
            return "DESYNC";
    }
    return "";
}

Tone state_tone(PeerStatus::State state) {
    switch (state) {
        case PeerStatus::State::kYou:
        case PeerStatus::State::kPlaying:
            return Tone::kGood;
        case PeerStatus::State::kWaiting:
            return Tone::kDim;
        case PeerStatus::State::kLeft:
            return Tone::kWarning;
        case PeerStatus::State::kDesynced:
            return Tone::kError;
    }
    return Tone::kNormal;
}

}  // namespace

void GraphSeries::push(double value) {
    m_values.push_back(value);
    while (m_values.size() > m_capacity) m_values.pop_front();
}

double GraphSeries::max() const {
    double top = 0;
    for (const double v : m_values) top = std::max(top, v);
    return top;
}

double nice_ceiling(double value, double floor) {
    const double v = std::max(value, floor);
    const double decade = std::pow(10.0, std::floor(std::log10(v)));
    for (const double step : {1.0, 2.0, 5.0, 10.0}) {
        // A hair of tolerance: 20.000000001 is still 20 on a graph.
        if (v <= step * decade * (1 + 1e-9)) return step * decade;
    }
    return 10 * decade;
}

std::vector<Point> graph_points(const GraphSeries& series, const Rect& area, double top) {
    std::vector<Point> points;
    const auto& values = series.values();
    if (values.empty() || area.w <= 0 || area.h <= 0 || !(top > 0)) return points;
    const double step =
        series.capacity() > 1 ? static_cast<double>(area.w - 1) / (series.capacity() - 1) : 0.0;
    const int right = area.x + area.w - 1;
    const int bottom = area.y + area.h - 1;
    const std::size_t n = values.size();
    for (std::size_t i = 0; i < n; ++i) {
        const double age = static_cast<double>(n - 1 - i);  // 0 for the newest
        const double v = std::clamp(values[i], 0.0, top);
        points.push_back({right - static_cast<int>(std::lround(age * step)),
                          bottom - static_cast<int>(std::lround(v / top * (area.h - 1)))});
    }
    return points;
}

std::vector<OverlayLine> overlay_lines(const SessionStatus& s) {
    std::vector<OverlayLine> lines;
    lines.push_back({fmt::format("netplay  slot {} of {}", s.slot, s.players), Tone::kNormal});
    if (!s.mode.empty()) lines.push_back({"mode   " + safe_text(s.mode, 40), Tone::kNormal});
    if (!s.mode_reason.empty()) lines.push_back({safe_text(s.mode_reason, 120), Tone::kDim});
    if (!s.running) {
        lines.push_back({"waiting for the session to start", Tone::kDim});
    } else {
        lines.push_back({fmt::format("ping   {:.1f} ms (var {:.1f} ms)", s.rtt_ms, s.rttvar_ms),
                         Tone::kNormal});
        lines.push_back({s.path_floor > 0
                             ? fmt::format("delay  {} frames ({:.0f} ms), floor {}", s.delay_frames,
                                           s.delay_frames * s.frame_ms, s.path_floor)
                             : fmt::format("delay  {} frames ({:.0f} ms)", s.delay_frames,
                                           s.delay_frames * s.frame_ms),
                         Tone::kNormal});
        lines.push_back(
            {fmt::format("stalls {} frames in {} waits", s.stall_frames, s.stall_events),
             s.stall_frames > 0 ? Tone::kWarning : Tone::kNormal});
        lines.push_back({fmt::format("frame  {}", s.frame), Tone::kNormal});
        if (s.rollback) {
            lines.push_back(
                {fmt::format("rollback {:.1f}/s, {} re-run, longest {}", s.rollbacks_per_s,
                             s.frames_resimulated, s.longest_rollback),
                 Tone::kNormal});
            lines.push_back({fmt::format("predict {:.0f}% right, ahead {:.1f} frames",
                                         s.prediction_right_pct, s.frame_advantage),
                             Tone::kNormal});
            lines.push_back({fmt::format("corrections p99 {} frames, {:.1f} ms",
                                         s.correction_depth_p99, s.correction_ms_p99),
                             Tone::kNormal});
        }
    }
    if (s.desyncs > 0) {
        lines.push_back({fmt::format("DESYNC at frame {} ({} reported)",
                                     s.first_desync_frame.value_or(0), s.desyncs),
                         Tone::kError});
    }
    for (const auto& peer : s.peers) {
        std::string line = fmt::format("P{} {:<10.10} {:<8}", peer.slot, safe_text(peer.name),
                                       state_name(peer.state));
        if (peer.rtt_ms >= 0) line += fmt::format(" {:5.1f} ms", peer.rtt_ms);
        lines.push_back({line, state_tone(peer.state)});
    }
    return lines;
}

void MessageQueue::post(std::string text, Tone tone, netplay::Micros now,
                        netplay::Micros duration) {
    // Messages carry peers' names and reasons: shown as safe text (netplay/base/safe_text.h),
    // whatever a peer or the server sent.
    m_messages.push_back({safe_text(text), tone, now + duration});
    // Old messages are only ever needed while they show.
    while (m_messages.size() > 4 * kVisible) m_messages.pop_front();
}

std::vector<ScreenMessage> MessageQueue::visible(netplay::Micros now) const {
    std::vector<ScreenMessage> out;
    for (const auto& m : m_messages) {
        if (m.until > now) out.push_back(m);
    }
    if (out.size() > kVisible) out.erase(out.begin(), out.end() - kVisible);
    return out;
}

OverlayLayout layout_overlay(int win_w, int win_h, int line_h, int char_w,
                             const std::vector<OverlayLine>& lines, std::size_t messages,
                             std::size_t chat_rows, std::size_t replay_rows) {
    OverlayLayout layout;
    std::size_t columns = kMinColumns;
    for (const auto& line : lines) columns = std::max(columns, line.text.size());
    const int inner_w = std::min(static_cast<int>(columns) * char_w,
                                 std::max(0, win_w - 2 * kMargin - 2 * kPadding));
    const int graph_h = kGraphLines * line_h;
    const int text_h = static_cast<int>(lines.size()) * line_h;
    layout.panel = {kMargin, kMargin, inner_w + 2 * kPadding,
                    kPadding + text_h + kPadding + line_h + graph_h + kPadding};
    for (std::size_t i = 0; i < lines.size(); ++i)
        layout.lines.push_back(
            {kMargin + kPadding, kMargin + kPadding + static_cast<int>(i) * line_h});
    const int below_text = kMargin + kPadding + text_h + kPadding;
    layout.graph_legend = {kMargin + kPadding, below_text};
    layout.graph = {kMargin + kPadding, below_text + line_h, inner_w, graph_h};

    const int bar_w = std::min(480, win_w * 3 / 5);
    const int bar_h = std::max(8, line_h * 2 / 3);
    layout.progress_bar = {(win_w - bar_w) / 2, win_h / 2, bar_w, bar_h};
    layout.progress_label = {(win_w - bar_w) / 2, win_h / 2 - line_h - 4};

    // The replay panel across the bottom: its lines, then the bar.
    int bottom = win_h;
    if (replay_rows > 0) {
        const int timeline_h = std::max(8, line_h / 2);
        const int panel_h =
            kPadding + static_cast<int>(replay_rows) * line_h + kPadding + timeline_h + kPadding;
        layout.replay_panel = {0, win_h - panel_h, win_w, panel_h};
        for (std::size_t i = 0; i < replay_rows; ++i) {
            layout.replay.push_back(
                {kMargin, layout.replay_panel.y + kPadding + static_cast<int>(i) * line_h});
        }
        layout.timeline = {kMargin, win_h - kPadding - timeline_h, std::max(0, win_w - 2 * kMargin),
                           timeline_h};
        bottom = layout.replay_panel.y + kMargin - kPadding;
    }
    const int message_step = line_h + 4;
    for (std::size_t i = 0; i < messages; ++i) {
        layout.messages.push_back(
            {kMargin, bottom - kMargin - static_cast<int>(messages - i) * message_step});
    }
    // The chat's rows above the messages, a line each, a gap between the two.
    const int chat_bottom = bottom - kMargin - static_cast<int>(messages) * message_step -
                            (messages > 0 ? kPadding : 0);
    for (std::size_t i = 0; i < chat_rows; ++i) {
        layout.chat.push_back({kMargin, chat_bottom - static_cast<int>(chat_rows - i) * line_h});
    }
    return layout;
}

bool OverlayModel::sample(netplay::Micros now) {
    if (!m_has_session || !m_status.running || now < m_next_sample) return false;
    m_next_sample = now + kSampleIntervalUs;
    m_rtt.push(m_status.rtt_ms);
    m_delay.push(m_status.delay_frames * m_status.frame_ms);
    return true;
}

double OverlayModel::graph_top() const {
    return nice_ceiling(std::max(m_rtt.max(), m_delay.max()), 20.0);
}

}  // namespace framelock::frontend
