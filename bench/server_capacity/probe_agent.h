// The baseline's player: every 2 frames one datagram with its two frame numbers to the relay,
// which hands it to the partner. Stamps like StampingTransport: sends at the flush, receipts
// at the poll.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bench/server_capacity/agent.h"
#include "netplay/io/enet_transport.h"

namespace framelock::bench::capacity {

class ProbeAgent final : public Agent {
  public:
    // Connects to the relay's pair on `port`. Throws when the transport cannot be created.
    explicit ProbeAgent(std::uint16_t port);
    int fd() const override;
    // Sends frame 0 at `start` (steady clock), then one datagram every 2 frames.
    void start_at(Micros start) { m_start = start; }
    bool connected() const { return m_connected; }
    void tick() override;
    Micros next_wakeup() const override;
    bool ready() const override;
    Counters counters() const override;
    void leave() override;

  private:
    Micros due(std::uint32_t frame) const;

    std::unique_ptr<netplay::EnetTransport> m_enet;
    netplay::PeerId m_peer = 0;
    bool m_connected = false, m_left = false;
    Micros m_start = -1;
    std::uint32_t m_next_frame = 0;
    std::uint64_t m_received = 0;
    std::vector<std::uint32_t> m_unflushed;
};

}  // namespace framelock::bench::capacity
