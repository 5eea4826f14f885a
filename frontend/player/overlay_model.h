// What the player's window shows over the game: the netplay overlay (ping, input delay,
// stalls, peers and their state, desync warnings, a live graph of RTT and delay), the
// on-screen messages for session events, and a progress bar while something long happens.
// Pure: text, numbers and rectangles in window pixels; the SDL overlay only draws them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "frontend/player/chat_panel.h"
#include "frontend/player/overlay_line.h"
#include "frontend/player/viewport.h"
#include "netplay/interfaces/clock.h"

namespace framelock::frontend {

struct PeerStatus {
    enum class State { kYou, kPlaying, kWaiting, kLeft, kDesynced };
    int slot = 0;  // 1..8
    std::string name;
    State state = State::kPlaying;
    double rtt_ms = -1;  // < 0: not known here
};

// A netplay session as the overlay shows it (refreshed by the session glue).
struct SessionStatus {
    int slot = 0, players = 0;
    bool running = false;  // started, frames being played
    // How the session keeps its players in step ("frame lock", "hybrid", ...), and why when
    // this process chose it (the host: frontend/app/mode_choice.h).
    std::string mode;
    std::string mode_reason;
    double frame_ms = 1000.0 / 60;
    double rtt_ms = 0, rttvar_ms = 0;
    int delay_frames = 0;
    int path_floor = 0;  // frames; 0: not known
    std::uint32_t frame = 0;
    std::uint32_t stall_frames = 0, stall_events = 0;
    std::uint64_t desyncs = 0;
    std::optional<std::uint32_t> first_desync_frame;
    std::vector<PeerStatus> peers;
    // Rollback sessions: corrections so far and how deep this client predicts.
    bool rollback = false;
    double rollbacks_per_s = 0;
    std::uint32_t frames_resimulated = 0, longest_rollback = 0;
    double prediction_right_pct = 100;
    double frame_advantage = 0;
    std::uint32_t correction_depth_p99 = 0;  // frames
    double correction_ms_p99 = 0;
};

// The newest `capacity` samples of one quantity, oldest first.
class GraphSeries {
  public:
    explicit GraphSeries(std::size_t capacity) : m_capacity(capacity) {}
    void push(double value);
    const std::deque<double>& values() const { return m_values; }
    std::size_t capacity() const { return m_capacity; }
    double max() const;

  private:
    std::size_t m_capacity;
    std::deque<double> m_values;
};

// The smallest 1, 2 or 5 x 10^n at or above `value` (at least `floor`): a graph's top.
double nice_ceiling(double value, double floor = 1.0);

struct Point {
    int x = 0, y = 0;
    friend bool operator==(const Point&, const Point&) = default;
};

// The series as a polyline in `area`: the newest sample at the right edge, one sample per
// area.w / (capacity - 1) pixels, 0 at the bottom edge and `top` at the top edge (values
// above are clamped to it).
std::vector<Point> graph_points(const GraphSeries& series, const Rect& area, double top);

// The overlay's text, top to bottom: ping, delay, stalls, frame, a desync warning when
// there was one, then one line per peer.
std::vector<OverlayLine> overlay_lines(const SessionStatus& status);

struct ScreenMessage {
    std::string text;
    Tone tone = Tone::kNormal;
    netplay::Micros until = 0;
};

// Messages for session events (joined, left, mismatch, disconnect), each shown for a
// while; the newest few at once.
class MessageQueue {
  public:
    static constexpr std::size_t kVisible = 4;
    void post(std::string text, Tone tone, netplay::Micros now, netplay::Micros duration);
    // The messages still showing at `now`, oldest first, at most kVisible.
    std::vector<ScreenMessage> visible(netplay::Micros now) const;

  private:
    std::deque<ScreenMessage> m_messages;
};

// Something long under way: waiting for players, receiving a state.
struct Progress {
    std::string label;
    double fraction = -1;  // 0..1; < 0: no known end (an animated bar)
};

// The replay viewer's panel (frontend/player/replay_viewer.h) at the bottom of the window:
// its lines, and the fill of the bar under them (0..1: where in the replay the frame is).
struct ReplayPanel {
    std::vector<OverlayLine> lines;
    double position = 0;
};

// Where everything goes in a window of `win_w` x `win_h` with text `line_h` high and
// characters `char_w` wide (a monospace font).
struct OverlayLayout {
    Rect panel;                   // the overlay's backdrop, top left
    std::vector<Point> lines;     // top-left of each text line
    Rect graph;                   // the RTT/delay graph, under the text
    Point graph_legend;           // its legend line
    Rect progress_bar;            // centred
    Point progress_label;         // above the bar
    std::vector<Point> messages;  // bottom left, oldest first
    std::vector<Point> chat;      // the chat's rows (ChatPanel::rows), above the messages
    // The replay panel: its backdrop across the bottom, its lines, the bar under them (the
    // messages and the chat stand above it).
    Rect replay_panel;
    std::vector<Point> replay;
    Rect timeline;
};

OverlayLayout layout_overlay(int win_w, int win_h, int line_h, int char_w,
                             const std::vector<OverlayLine>& lines, std::size_t messages,
                             std::size_t chat_rows = 0, std::size_t replay_rows = 0);

// Everything the overlay draws, kept by the window and fed by the session glue.
class OverlayModel {
  public:
    // Graph samples every 250 ms: the graph spans the last minute.
    static constexpr netplay::Micros kSampleIntervalUs = 250'000;
    static constexpr std::size_t kGraphSamples = 240;

    OverlayModel() : m_rtt(kGraphSamples), m_delay(kGraphSamples) {}

    void set_status(const SessionStatus& status) { m_status = status; }
    const SessionStatus& status() const { return m_status; }
    bool has_session() const { return m_has_session; }
    void set_has_session(bool has) { m_has_session = has; }

    // Takes a graph sample of the status when one is due. True if it did.
    bool sample(netplay::Micros now);
    const GraphSeries& rtt_ms() const { return m_rtt; }
    const GraphSeries& delay_ms() const { return m_delay; }
    // The graph's top: a round number above both series (at least 20 ms).
    double graph_top() const;

    MessageQueue& messages() { return m_messages; }
    const MessageQueue& messages() const { return m_messages; }

    void set_progress(std::optional<Progress> progress) { m_progress = std::move(progress); }
    const std::optional<Progress>& progress() const { return m_progress; }

    bool visible() const { return m_visible; }
    void set_visible(bool visible) { m_visible = visible; }

    // A full-window list of text lines (the room browser) drawn instead of the panel,
    // with line `highlight` (-1: none) on a bar; nullopt when there is no menu.
    struct Menu {
        std::vector<OverlayLine> lines;
        int highlight = -1;
    };
    void set_menu(std::optional<Menu> menu) { m_menu = std::move(menu); }
    const std::optional<Menu>& menu() const { return m_menu; }

    // The session's chat (chat_panel.h): shown only once a session has it on.
    ChatPanel& chat() { return m_chat; }
    const ChatPanel& chat() const { return m_chat; }
    bool chat_on() const { return m_chat_on; }
    void set_chat_on(bool on) { m_chat_on = on; }

    // The replay viewer's panel (nullopt: no replay).
    void set_replay(std::optional<ReplayPanel> panel) { m_replay = std::move(panel); }
    const std::optional<ReplayPanel>& replay() const { return m_replay; }

  private:
    SessionStatus m_status;
    bool m_has_session = false;
    GraphSeries m_rtt, m_delay;
    netplay::Micros m_next_sample = 0;
    MessageQueue m_messages;
    std::optional<Progress> m_progress;
    bool m_visible = true;
    std::optional<Menu> m_menu;
    ChatPanel m_chat;
    bool m_chat_on = false;
    std::optional<ReplayPanel> m_replay;
};

}  // namespace framelock::frontend
