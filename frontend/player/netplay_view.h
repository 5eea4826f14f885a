// A netplay session in the player's window: feeds the overlay from the client's statistics
// (and, for `framelock host`, the server's view of every slot), turns session events into
// on-screen messages, shows a progress bar while connecting and waiting for players, and
// draws the window whenever a new picture or a message is due.
#pragma once

#include <optional>
#include <string>

#include "frontend/player/player_window.h"
#include "frontend/session/client_runner.h"
#include "frontend/session/realtime_loop.h"
#include "frontend/session/server_runner.h"

namespace framelock::frontend {

// Builds the overlay's peer list: every slot of the session with its state; with the
// server in this process (`host`), every slot's name and measured round trip too.
std::vector<PeerStatus> session_peers(int own_slot, int players, bool started,
                                      const std::vector<netplay::SlotStats>* server_slots,
                                      std::uint8_t left_slots, std::uint8_t desynced_slots,
                                      const std::string& own_name);

// Passes the core's pictures on to the window, and when the picture of `frame` arrives,
// draws the window at once (picture, overlay, messages) and saves it to `path`: exactly
// that frame, even when the netplay client runs several frames in one step. (A frame run
// without showing it, to catch up, has no picture: then the next one shown is taken;
// --screenshot for the same frame makes the client show it.)
class WindowCaptureAt final : public VideoSink {
  public:
    WindowCaptureAt(PlayerWindow& window, const netplay::Emulator& emulator,
                    const netplay::Clock& clock, std::uint64_t frame, std::string path)
        : m_window(window),
          m_emulator(emulator),
          m_clock(clock),
          m_frame(frame),
          m_path(std::move(path)) {}
    void present(const VideoFrame& picture) override;
    bool done() const { return m_done; }

  private:
    PlayerWindow& m_window;
    const netplay::Emulator& m_emulator;
    const netplay::Clock& m_clock;
    std::uint64_t m_frame;
    std::string m_path;
    bool m_done = false;
};

class NetplayView final : public RealtimeObserver {
  public:
    // All borrowed for the view's lifetime; `server` may be null (`join`). `fps`: the
    // core's frame rate (delays are shown in frames and milliseconds).
    NetplayView(PlayerWindow& window, ClientRunner& client, ServerRunner* server,
                const netplay::Clock& clock, double fps);

    bool before_step() override;
    void after_step() override;
    netplay::Micros next_wakeup(netplay::Micros now) const override;

    // After the loop ended without the player quitting (refused, disconnected): keeps the
    // window up for `duration` so the reason can be read; any quit ends it early.
    void linger(netplay::Micros duration);

  private:
    void take_events(netplay::Micros now);
    // Chat: turned on in the window once the server said whether it relays it; the lines
    // typed there said, the lines heard shown.
    void take_chat(netplay::Micros now);
    void refresh(netplay::Micros now);

    PlayerWindow& m_window;
    ClientRunner& m_client;
    ServerRunner* m_server;
    const netplay::Clock& m_clock;
    double m_frame_ms;
    netplay::Micros m_last_show = -1;
    netplay::Micros m_next_refresh = 0;
    bool m_started = false;
    std::uint8_t m_left_slots = 0, m_desynced_slots = 0;
    std::uint64_t m_desyncs = 0;
    std::optional<std::uint32_t> m_first_desync;
    bool m_chat_set = false;        // the window was told whether chat is on
    std::uint64_t m_chat_seen = 0;  // SessionChat::changes() shown so far
};

}  // namespace framelock::frontend
