#include "bench/server_capacity/stamping_transport.h"

#include "netplay/wire/protocol.h"

namespace framelock::bench::capacity {

using netplay::Channel;
using netplay::PeerId;

Result<PeerId> StampingTransport::connect(const std::string& address) {
    return m_inner.connect(address);
}

void StampingTransport::send(PeerId peer, Channel channel, std::span<const std::uint8_t> data) {
    if (channel == Channel::kInput) {
        if (auto input = netplay::decode_client_input(data)) {
            const auto first =
                netplay::expand_frame(input->first_frame, netplay::Frame(m_sent_reference));
            for (std::size_t i = 0; i < input->inputs.size(); ++i)
                m_unflushed.push_back((first + static_cast<std::int32_t>(i)).value());
            if (!input->inputs.empty()) m_sent_reference = first.value();
        }
    }
    m_inner.send(peer, channel, data);
}

std::optional<netplay::TransportEvent> StampingTransport::poll() {
    auto event = m_inner.poll();
    if (event && event->type == netplay::TransportEvent::Type::kMessage &&
        event->channel == Channel::kInput) {
        if (auto update = netplay::decode_server_update(event->data)) {
            ++m_updates;
            const Micros now = g_clock.now_us();
            const auto first =
                netplay::expand_frame(update->first_frame, netplay::Frame(m_received_reference));
            for (std::size_t i = 0; i < update->frames.size(); ++i)
                FrameTimes::stamp(m_times.received, (first + static_cast<std::int32_t>(i)).value(),
                                  now);
            if (!update->frames.empty()) m_received_reference = first.value();
        }
    }
    return event;
}

void StampingTransport::flush() {
    m_inner.flush();
    const Micros now = g_clock.now_us();
    for (const std::uint32_t frame : m_unflushed) FrameTimes::stamp(m_times.sent, frame, now);
    m_unflushed.clear();
}

void StampingTransport::disconnect(PeerId peer) {
    m_inner.disconnect(peer);
}

netplay::PeerStats StampingTransport::stats(PeerId peer) const {
    return m_inner.stats(peer);
}

}  // namespace framelock::bench::capacity
