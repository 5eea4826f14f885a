#include "bench/server_capacity/probe_agent.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace framelock::bench::capacity {

ProbeAgent::ProbeAgent(std::uint16_t port) {
    auto enet = netplay::EnetTransport::client();
    if (!enet) throw std::runtime_error(enet.error().message);
    m_enet = std::move(enet).value();
    auto peer = m_enet->connect("127.0.0.1:" + std::to_string(port));
    if (!peer) throw std::runtime_error(peer.error().message);
    m_peer = peer.value();
}

int ProbeAgent::fd() const {
    return m_enet->socket_fd();
}

void ProbeAgent::tick() {
    using Type = netplay::TransportEvent::Type;
    while (auto event = m_enet->poll()) {
        if (event->type == Type::kConnected) {
            m_connected = true;
        } else if (event->type == Type::kDisconnected) {
            if (!m_left && m_failure.empty()) m_failure = "the relay dropped a probe";
        } else if (event->data.size() >= 4) {
            ++m_received;
            const Micros now = g_clock.now_us();
            std::uint32_t frame = 0;
            for (int b = 0; b < 4; ++b) frame |= std::uint32_t{event->data[b]} << (8 * b);
            FrameTimes::stamp(times.received, frame, now);
            FrameTimes::stamp(times.received, frame + 1, now);
        }
    }
    if (m_start < 0 || m_left) return;
    const Micros now = g_clock.now_us();
    bool sent = false;
    while (due(m_next_frame + 1) <= now) {
        // As a client's ClientInput: a header and two pads (16 bytes).
        std::vector<std::uint8_t> message(16, 0);
        for (int b = 0; b < 4; ++b) message[b] = static_cast<std::uint8_t>(m_next_frame >> (8 * b));
        m_enet->send(m_peer, netplay::Channel::kInput, message);
        m_unflushed.push_back(m_next_frame);
        m_next_frame += 2;
        sent = true;
    }
    if (!sent) return;
    m_enet->flush();
    const Micros flushed = g_clock.now_us();
    for (const std::uint32_t frame : m_unflushed) {
        FrameTimes::stamp(times.sent, frame, flushed);
        FrameTimes::stamp(times.sent, frame + 1, flushed);
    }
    m_unflushed.clear();
}

Micros ProbeAgent::next_wakeup() const {
    // ENet needs servicing now and then even before the start (acks, pings).
    if (m_start < 0 || m_left) return g_clock.now_us() + 10'000;
    return due(m_next_frame + 1);
}

bool ProbeAgent::ready() const {
    return m_start >= 0 && g_clock.now_us() >= m_start;
}

Counters ProbeAgent::counters() const {
    return {m_next_frame, 0, m_received};
}

void ProbeAgent::leave() {
    m_left = true;
    m_enet->disconnect(m_peer);
}

Micros ProbeAgent::due(std::uint32_t frame) const {
    return m_start + static_cast<Micros>(frame) * kFrameTimeNs / 1000;
}

}  // namespace framelock::bench::capacity
