#include "bench/server_capacity/client_agent.h"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace framelock::bench::capacity {

netplay::InputWord Bot::pad_for(std::uint32_t frame) {
    while (m_next <= frame) {
        if (m_next >= m_hold_until) {
            m_state += 0x9e3779b97f4a7c15ull;
            std::uint64_t x = m_state;
            x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
            x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
            x ^= x >> 31;
            m_pad = static_cast<netplay::InputWord>(x & 0x0ff3);
            m_hold_until = m_next + 1 + static_cast<std::uint32_t>((x >> 40) % 8);
        }
        ++m_next;
    }
    return m_pad;
}

ClientAgent::ClientAgent(std::uint16_t port, int slot, std::uint64_t seed, Micros start_at)
    : m_bot(seed), m_start_at(start_at) {
    auto enet = netplay::EnetTransport::client();
    if (!enet) throw std::runtime_error(enet.error().message);
    m_enet = std::move(enet).value();
    m_stamping = std::make_unique<StampingTransport>(*m_enet, times);
    netplay::ClientConfig config;
    config.server_address = "127.0.0.1:" + std::to_string(port);
    config.requested_slot = static_cast<std::uint8_t>(slot);
    config.player_name = fmt::format("bot{}-{}", port, slot);
    config.content_name = "capacity";
    config.identity = {"hashing", "1", 1, 1, kFrameRate * 1000, 2};
    m_client = std::make_unique<netplay::Client>(*m_stamping, g_clock, m_emulator, config);
    m_stamping->watch(m_client->own_transport());
}

int ClientAgent::fd() const {
    return m_enet->socket_fd();
}

void ClientAgent::tick() {
    if (m_client->state() == netplay::Client::State::kIdle) {
        if (g_clock.now_us() < m_start_at) return;
        m_client->start();
    }
    m_client->tick(m_bot.pad_for(m_client->next_sample_frame()));
    using Type = netplay::ClientEvent::Type;
    while (auto event = m_client->poll_event()) {
        if (event->type == Type::kDesync) {
            ++m_desyncs;
        } else if ((event->type == Type::kDisconnected || event->type == Type::kRejected) &&
                   !m_left && m_failure.empty()) {
            m_failure = event->message;
        }
    }
}

Micros ClientAgent::next_wakeup() const {
    if (m_client->state() == netplay::Client::State::kIdle) return m_start_at;
    const Micros wake = m_client->next_wakeup();
    // Before the session runs, the client only keeps a 100 ms heartbeat; traffic wakes it.
    if (m_client->state() != netplay::Client::State::kRunning)
        return std::max(wake, g_clock.now_us() + 10'000);
    return wake;
}

bool ClientAgent::ready() const {
    return m_client->state() == netplay::Client::State::kRunning;
}

Counters ClientAgent::counters() const {
    const auto stats = m_client->stats();
    return {stats.frames_run, stats.stall_frames, m_stamping->updates()};
}

void ClientAgent::leave() {
    m_left = true;
    m_client->leave("benchmark done");
}

}  // namespace framelock::bench::capacity
