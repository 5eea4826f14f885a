#include "frontend/player/netplay_view.h"

#include <fmt/core.h>

#include <algorithm>
#include <thread>

namespace framelock::frontend {
namespace {

using netplay::Micros;

constexpr Micros kRefreshUs = 100'000;    // overlay figures
constexpr Micros kIdleRedrawUs = 33'000;  // redraws without a new picture (bars, messages)
constexpr Micros kShortMessageUs = 4'000'000;
constexpr Micros kLongMessageUs = 10'000'000;

std::string slot_names(std::uint8_t slots) {
    std::string text;
    for (int s = 0; s < netplay::kMaxPlayers; ++s) {
        if (slots & (1u << s)) text += (text.empty() ? "" : ", ") + std::to_string(s + 1);
    }
    return text;
}

}  // namespace

std::vector<PeerStatus> session_peers(int own_slot, int players, bool started,
                                      const std::vector<netplay::SlotStats>* server_slots,
                                      std::uint8_t left_slots, std::uint8_t desynced_slots,
                                      const std::string& own_name) {
    std::vector<PeerStatus> peers;
    for (int slot = 1; slot <= players; ++slot) {
        PeerStatus peer;
        peer.slot = slot;
        peer.state = started ? PeerStatus::State::kPlaying : PeerStatus::State::kWaiting;
        bool known = !server_slots;  // without the server's list, every slot is in the session
        if (server_slots) {
            for (const auto& s : *server_slots) {
                if (s.slot != slot) continue;
                known = true;
                peer.name = s.name;
                if (s.srtt > 0) peer.rtt_ms = static_cast<double>(s.srtt) / 1000.0;
                if (!s.connected) peer.state = PeerStatus::State::kLeft;
                // In the lobby a joined player is there, not awaited.
                if (s.connected && !started) peer.state = PeerStatus::State::kPlaying;
            }
        }
        if (!known) peer.state = PeerStatus::State::kWaiting;
        if (left_slots & (1u << (slot - 1))) peer.state = PeerStatus::State::kLeft;
        if (desynced_slots & (1u << (slot - 1))) peer.state = PeerStatus::State::kDesynced;
        if (slot == own_slot) {
            if (peer.name.empty()) peer.name = own_name;
            if (peer.state != PeerStatus::State::kDesynced) peer.state = PeerStatus::State::kYou;
        }
        if (peer.name.empty()) peer.name = known ? "player" : "-";
        peers.push_back(std::move(peer));
    }
    return peers;
}

void WindowCaptureAt::present(const VideoFrame& picture) {
    m_window.video().present(picture);
    // The emulator counts a frame as run only after its picture: during the picture of
    // frame F, frame_count() is F. A frame the client fast-forwards is not shown: then the
    // first one shown after it is taken.
    if (m_done || m_emulator.frame_count() < m_frame) return;
    m_done = true;
    m_window.capture_next_show(m_path);
    m_window.draw(m_clock.now_us());
}

NetplayView::NetplayView(PlayerWindow& window, ClientRunner& client, ServerRunner* server,
                         const netplay::Clock& clock, double fps)
    : m_window(window),
      m_client(client),
      m_server(server),
      m_clock(clock),
      m_frame_ms(fps > 0 ? 1000.0 / fps : 1000.0 / 60) {
    m_window.overlay().set_has_session(true);
}

bool NetplayView::before_step() {
    m_window.set_next_frame(m_client.client().next_sample_frame());
    m_window.pump_events();
    return m_window.quit_requested();
}

void NetplayView::take_events(Micros now) {
    using CType = netplay::ClientEvent::Type;
    MessageQueue& messages = m_window.overlay().messages();
    const double frame_ms = m_frame_ms;
    while (auto e = m_client.poll_view_event()) {
        switch (e->type) {
            case CType::kWelcome:
                messages.post(
                    fmt::format("joined {}: player {} of {}", m_client.config().server_address,
                                m_client.client().slot(), m_client.client().players()),
                    Tone::kGood, now, kShortMessageUs);
                break;
            case CType::kRejected:
                messages.post("refused: " + e->message, Tone::kError, now, kLongMessageUs);
                break;
            case CType::kStarted:
                m_started = true;
                messages.post(fmt::format("session started: input delay {} frames ({:.0f} ms)",
                                          e->delay, e->delay * frame_ms),
                              Tone::kGood, now, kShortMessageUs);
                break;
            case CType::kDelayChanged:
                messages.post(
                    fmt::format("input delay {} frames from frame {}", e->delay, e->frame),
                    Tone::kNormal, now, kShortMessageUs);
                break;
            case CType::kPlayerLeft:
                if (e->slot >= 1 && e->slot <= netplay::kMaxPlayers)
                    m_left_slots |= static_cast<std::uint8_t>(1u << (e->slot - 1));
                messages.post(fmt::format("player {} left: {}", e->slot, e->message),
                              Tone::kWarning, now, kLongMessageUs);
                break;
            case CType::kDesync:
                ++m_desyncs;
                if (!m_first_desync) m_first_desync = e->frame;
                m_desynced_slots |= e->differing_slots;
                messages.post(fmt::format("DESYNC at frame {}: player(s) {} differ from the others",
                                          e->frame, slot_names(e->differing_slots)),
                              Tone::kError, now, kLongMessageUs);
                break;
            case CType::kJoining:
            case CType::kJoined:
            case CType::kStartLoaded:
                messages.post(e->message, Tone::kNormal, now, kShortMessageUs);
                break;
            case CType::kResynced:
                messages.post(e->message, Tone::kWarning, now, kLongMessageUs);
                break;
            case CType::kModeChanged:
                messages.post(e->message, Tone::kWarning, now, kLongMessageUs);
                break;
            case CType::kStateError:
                messages.post("state transfer: " + e->message, Tone::kError, now, kLongMessageUs);
                break;
            case CType::kDisconnected:
                if (m_window.quit_requested() || m_client.summary().completed) {
                    messages.post("left the session: " + e->message, Tone::kNormal, now,
                                  kShortMessageUs);
                } else {
                    messages.post("disconnected: " + e->message, Tone::kError, now, kLongMessageUs);
                }
                break;
        }
    }
    if (!m_server) return;
    using SType = netplay::ServerEvent::Type;
    while (auto e = m_server->poll_view_event()) {
        // Leaving, desyncs and delay changes reach this player through its own client too.
        if (e->type == SType::kPlayerJoined) {
            messages.post(fmt::format("player {} joined: {}", e->slot, e->message), Tone::kGood,
                          now, kShortMessageUs);
        } else if (e->type == SType::kRejected) {
            messages.post("refused a player: " + e->message, Tone::kWarning, now, kLongMessageUs);
        }
    }
}

void NetplayView::refresh(Micros now) {
    const netplay::Client& client = m_client.client();
    const netplay::ClientStatsSnapshot stats = client.stats();
    SessionStatus status;
    status.slot = client.slot();
    status.players = client.players();
    status.running = client.state() == netplay::Client::State::kRunning;
    status.frame_ms = m_frame_ms;
    status.rtt_ms = static_cast<double>(stats.srtt) / 1000.0;
    status.rttvar_ms = static_cast<double>(stats.rttvar) / 1000.0;
    status.delay_frames = status.running ? client.delay_at(client.next_frame()) : 0;
    status.path_floor = stats.path_floor;
    status.frame = client.next_frame();
    status.stall_frames = stats.stall_frames;
    status.stall_events = stats.stall_events;
    status.desyncs = m_desyncs;
    status.first_desync_frame = m_first_desync;
    if (client.mode() == netplay::SessionMode::kRollback && stats.frames_run > 0) {
        status.rollback = true;
        const double seconds = stats.frames_run * m_frame_ms / 1000.0;
        status.rollbacks_per_s = stats.rollbacks / seconds;
        status.frames_resimulated = stats.frames_resimulated;
        status.longest_rollback = stats.longest_rollback;
        status.prediction_right_pct =
            stats.predicted_frames ? 100.0 * stats.predicted_right / stats.predicted_frames : 100.0;
        status.frame_advantage = static_cast<double>(stats.advantage_total) / stats.frames_run;
        status.correction_depth_p99 = stats.correction_depth_p99;
        status.correction_ms_p99 = static_cast<double>(stats.correction_time_p99_us) / 1000.0;
    }
    status.mode = client.mode() == netplay::SessionMode::kRollback ? "rollback"
                  : client.mode() == netplay::SessionMode::kNoWait ? "no-wait"
                                                                   : "frame lock";

    std::vector<netplay::SlotStats> server_slots;
    bool have_server = false;
    if (m_server) {
        const auto sessions = m_server->summary();
        if (!sessions.empty()) {
            server_slots = sessions.front().slots;
            have_server = true;
            // The host's own server says what it chose and why.
            status.mode = sessions.front().mode;
            status.mode_reason = sessions.front().mode_reason;
        }
    }
    const int players = client.players() > 0 ? client.players() : 0;
    status.peers =
        session_peers(client.slot(), players, m_started, have_server ? &server_slots : nullptr,
                      m_left_slots, m_desynced_slots, m_client.config().player_name);
    m_window.overlay().set_status(status);

    using State = netplay::Client::State;
    std::optional<Progress> progress;
    if (client.state() == State::kIdle || client.state() == State::kConnecting) {
        progress = Progress{"connecting to " + m_client.config().server_address, -1};
    } else if (client.state() == State::kLobby) {
        if (client.receiving_start_state()) {
            progress = Progress{"receiving the session's start state", client.transfer_progress()};
        } else if (have_server && players > 0) {
            const auto joined = std::count_if(server_slots.begin(), server_slots.end(),
                                              [](const auto& s) { return s.connected; });
            progress =
                Progress{fmt::format("waiting for players: {} of {} joined", joined, players),
                         static_cast<double>(joined) / players};
        } else if (client.spectator()) {
            progress = Progress{"watching: waiting for the players", -1};
        } else {
            progress = Progress{fmt::format("joined as player {} of {}: waiting for the others",
                                            client.slot(), players),
                                -1};
        }
    } else if (client.state() == State::kJoining) {
        // A running session: nothing runs until its state has arrived and loaded.
        progress = Progress{"receiving the session's state", client.transfer_progress()};
    }
    m_window.overlay().set_progress(progress);
    m_window.overlay().sample(now);
}

void NetplayView::take_chat(Micros now) {
    const netplay::Client& client = m_client.client();
    if (!m_chat_set && client.state() != netplay::Client::State::kIdle &&
        client.state() != netplay::Client::State::kConnecting) {
        m_chat_set = true;
        m_window.set_chat(client.chat_on());
    }
    ChatPanel& panel = m_window.overlay().chat();
    for (const std::string& typed : m_window.take_chat_lines()) {
        const std::string answer = m_client.say(typed);
        if (!answer.empty()) panel.add(answer, Tone::kWarning, now);
    }
    const SessionChat& chat = m_client.chat();
    const std::uint64_t fresh = chat.changes() - m_chat_seen;
    m_chat_seen = chat.changes();
    const auto& history = chat.history();
    for (std::size_t i = history.size() - std::min<std::size_t>(fresh, history.size());
         i < history.size(); ++i) {
        const netplay::ChatLine& line = history[i].line;
        panel.add(netplay::chat_line_text(line),
                  line.from_slot == netplay::kChatFromServer ? Tone::kWarning
                  : line.from_slot == 0                      ? Tone::kDim
                                                             : Tone::kNormal,
                  now);
    }
}

void NetplayView::after_step() {
    const Micros now = m_clock.now_us();
    take_events(now);
    take_chat(now);
    if (now >= m_next_refresh) {
        refresh(now);
        m_next_refresh = now + kRefreshUs;
    }
    if (m_window.picture_pending() || m_last_show < 0 || now - m_last_show >= kIdleRedrawUs) {
        m_window.show(now);
        m_last_show = now;
    }
}

Micros NetplayView::next_wakeup(Micros now) const {
    const Micros redraw = m_last_show < 0 ? now : m_last_show + kIdleRedrawUs;
    return std::max(now, std::min(redraw, m_next_refresh));
}

void NetplayView::linger(Micros duration) {
    const Micros until = m_clock.now_us() + duration;
    while (m_clock.now_us() < until && !m_window.quit_requested()) {
        m_window.pump_events();
        take_events(m_clock.now_us());
        take_chat(m_clock.now_us());
        m_window.overlay().set_progress(std::nullopt);
        m_window.show(m_clock.now_us());
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
}

}  // namespace framelock::frontend
