// The real transport, watched: stamps the frames of every ClientInput the client flushes and
// of every ServerUpdate it polls into a player's FrameTimes. The client seals its messages
// above this transport, so it reads them where they are plain: watch() hooks it into the
// client's SealedTransport (its sends and what it hands out); the flushes and polls stamp
// the times here, below. Everything passes straight through.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/server_capacity/frame_times.h"
#include "netplay/interfaces/transport.h"
#include "netplay/io/enet_transport.h"
#include "netplay/wire/sealed_transport.h"

namespace framelock::bench::capacity {

class StampingTransport final : public netplay::Transport {
  public:
    // Both must outlive the transport.
    StampingTransport(netplay::EnetTransport& inner, FrameTimes& times)
        : m_inner(inner), m_times(times) {}

    Result<netplay::PeerId> connect(const std::string& address) override;
    void send(netplay::PeerId peer, netplay::Channel channel,
              std::span<const std::uint8_t> data) override;
    std::optional<netplay::TransportEvent> poll() override;
    void flush() override;
    void disconnect(netplay::PeerId peer) override;
    netplay::PeerStats stats(netplay::PeerId peer) const override;
    // ServerUpdates polled so far.
    std::uint64_t updates() const { return m_updates; }

    // Reads the client's messages plain from `sealed`, the client's own SealedTransport over
    // this one (which must outlive it): a ClientInput's frames are stamped as sent at the
    // next flush(), a ServerUpdate's as received now.
    void watch(netplay::SealedTransport& sealed);

  private:
    void sent_plain(netplay::Channel channel, std::span<const std::uint8_t> data);
    void received_plain(const netplay::TransportEvent& event);

    netplay::EnetTransport& m_inner;
    FrameTimes& m_times;
    std::vector<std::uint32_t> m_unflushed;
    std::uint32_t m_sent_reference = 0, m_received_reference = 0;
    std::uint64_t m_updates = 0;
};

}  // namespace framelock::bench::capacity
