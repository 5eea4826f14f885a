// A real netplay::Client with a HashingEmulator and a bot's pad, over its own EnetTransport
// (watched by a StampingTransport), against one session's port of `framelock server`.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bench/server_capacity/agent.h"
#include "bench/server_capacity/stamping_transport.h"
#include "netplay/client/client.h"
#include "netplay/io/enet_transport.h"
#include "netplay/sim/sim_session.h"

namespace framelock::bench::capacity {

// A bot's pad: a fresh random word held 1-8 frames, a function of the frame only.
class Bot {
  public:
    explicit Bot(std::uint64_t seed) : m_state(seed) {}
    // Frames are asked for in increasing order.
    netplay::InputWord pad_for(std::uint32_t frame);

  private:
    std::uint64_t m_state;
    std::uint32_t m_next = 0, m_hold_until = 0;
    netplay::InputWord m_pad = 0;
};

class ClientAgent final : public Agent {
  public:
    // Says Hello at `start_at` (steady clock), so sessions can start out of step. Throws when
    // the transport cannot be created.
    ClientAgent(std::uint16_t port, int slot, std::uint64_t seed, Micros start_at);
    int fd() const override;
    void tick() override;
    Micros next_wakeup() const override;
    bool ready() const override;
    Counters counters() const override;
    void leave() override;
    // Desyncs the server reported to this player.
    std::uint64_t desyncs() const { return m_desyncs; }
    // The emulator's state goes its own way from `frame` on (the sync check's check).
    void diverge_at(std::uint64_t frame) { m_emulator.set_divergence(frame); }
    // The emulator's state hash after every frame it ran.
    const std::vector<std::uint64_t>& hash_log() const { return m_emulator.hash_log(); }

  private:
    std::unique_ptr<netplay::EnetTransport> m_enet;
    std::unique_ptr<StampingTransport> m_stamping;
    netplay::HashingEmulator m_emulator;
    std::unique_ptr<netplay::Client> m_client;
    Bot m_bot;
    Micros m_start_at;
    bool m_left = false;
    std::uint64_t m_desyncs = 0;
};

}  // namespace framelock::bench::capacity
