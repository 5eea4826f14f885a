// What the server reports (ServerEvent) and the queue its parts report into (ServerEvents):
// Server::poll_event() hands them out in the order they happened.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "netplay/server/server_tuning.h"

namespace framelock::netplay {

struct ServerEvent {
    enum class Type {
        kPlayerJoined,
        kPlayerLeft,
        kRejected,
        kStarted,
        kDelayChanged,
        kDesync,
        kMalformed,
        kPlayerAway,  // silent or disconnected: neutral input until it is back
        kPlayerBack,  // plays again from `frame`
        kSpectatorJoined,
        kSpectatorLeft,
        kRefused,         // a request refused (spectator input, a bad state upload, ...)
        kStateSent,       // a join/resync state went out: `frame`, `message` has the size
        kResynced,        // a divergent player loaded the reference state (message: regions)
        kEvidence,        // the desync evidence changed (message: which state bytes are left out)
        kOffPace,         // no-wait: a player's clock runs too fast or slow (a speed hack?)
        kConfigAdjusted,  // a setting outside its range was brought inside (message: which)
        kHalfOpen,  // connections closed before their Hello: counts by address (every 10 s at most)
        kPrediction,   // the hybrid predicts fewer (or again more) frames: a player's re-run cost
        kModeChanged,  // the hybrid turned into the frame lock (message: why)
        kChat,         // a member's chat line was relayed (message: "name: text", safe text)
    };
    Type type;
    int slot = 0;  // 1..8 where it applies
    std::uint32_t frame = 0;
    int delay = 0;
    std::uint8_t differing_slots = 0;
    std::string message;
};

// The events not yet polled, oldest first. Every part of the server emits into the one queue.
class ServerEvents {
  public:
    void emit(ServerEvent event) { m_events.push_back(std::move(event)); }
    // Whether an event a peer can cause at will (a malformed datagram, refused input) still
    // fits: past server_tuning::kMaxEvents unpolled ones such events are dropped.
    bool room() const { return m_events.size() < server_tuning::kMaxEvents; }
    std::optional<ServerEvent> poll() {
        if (m_events.empty()) return std::nullopt;
        ServerEvent event = std::move(m_events.front());
        m_events.pop_front();
        return event;
    }

  private:
    std::deque<ServerEvent> m_events;
};

}  // namespace framelock::netplay
