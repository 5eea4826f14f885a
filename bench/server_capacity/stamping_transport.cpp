#include "bench/server_capacity/stamping_transport.h"

#include "netplay/wire/protocol.h"

namespace framelock::bench::capacity {

using netplay::Channel;
using netplay::PeerId;

Result<PeerId> StampingTransport::connect(const std::string& address) {
    return m_inner.connect(address);
}

void StampingTransport::send(PeerId peer, Channel channel, std::span<const std::uint8_t> data) {
    m_inner.send(peer, channel, data);
}

std::optional<netplay::TransportEvent> StampingTransport::poll() {
    return m_inner.poll();
}

void StampingTransport::watch(netplay::SealedTransport& sealed) {
    sealed.rewrite_sends([this](Channel channel, std::vector<std::vector<std::uint8_t>>& messages) {
        for (const auto& message : messages) sent_plain(channel, message);
    });
    sealed.watch_received([this](const netplay::TransportEvent& event) { received_plain(event); });
}

void StampingTransport::sent_plain(Channel channel, std::span<const std::uint8_t> data) {
    if (channel != Channel::kInput) return;
    if (auto input = netplay::decode_client_input(data)) {
        const auto first =
            netplay::expand_frame(input->first_frame, netplay::Frame(m_sent_reference));
        for (std::size_t i = 0; i < input->inputs.size(); ++i)
            m_unflushed.push_back((first + static_cast<std::int32_t>(i)).value());
        if (!input->inputs.empty()) m_sent_reference = first.value();
    }
}

void StampingTransport::received_plain(const netplay::TransportEvent& event) {
    if (event.channel != Channel::kInput) return;
    if (auto update = netplay::decode_server_update(event.data)) {
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
