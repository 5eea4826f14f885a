#include "netplay/wire/sealed_transport.h"

#include <utility>

namespace framelock::netplay {

void SealedTransport::send(PeerId peer, Channel channel, std::span<const std::uint8_t> data) {
    if (m_rewrite) {
        std::vector<std::vector<std::uint8_t>> messages{{data.begin(), data.end()}};
        m_rewrite(channel, messages);
        const Rewrite rewrite = std::exchange(m_rewrite, nullptr);  // once per message
        for (const auto& message : messages) send(peer, channel, message);
        m_rewrite = rewrite;
        return;
    }
    const auto found = m_peers.find(peer);
    if (found == m_peers.end() || !found->second.seal) return m_inner.send(peer, channel, data);
    if (found->second.seal->seal(static_cast<std::uint8_t>(channel), data, m_sealed))
        m_inner.send(peer, channel, m_sealed);
}

std::optional<TransportEvent> SealedTransport::poll() {
    if (!m_ready.empty()) {
        TransportEvent event = std::move(m_ready.front());
        m_ready.pop_front();
        return handed(std::move(event));
    }
    while (auto event = m_inner.poll()) {
        if (auto taken = take(std::move(*event))) return handed(std::move(taken));
    }
    return std::nullopt;
}

std::optional<TransportEvent> SealedTransport::handed(std::optional<TransportEvent> event) {
    if (m_watch && event && event->type == TransportEvent::Type::kMessage) m_watch(*event);
    return event;
}

std::optional<TransportEvent> SealedTransport::take(TransportEvent event) {
    const auto found = m_peers.find(event.peer);
    if (found == m_peers.end()) return event;
    Peer& peer = found->second;
    if (event.type == TransportEvent::Type::kDisconnected) {
        peer.seal.reset();  // the keys die with the connection; the counts stay
        peer.holding = false;
        peer.held.clear();
        return event;
    }
    if (event.type != TransportEvent::Type::kMessage) return event;
    if (!peer.seal) {
        if (!peer.holding || event.channel == Channel::kControl) return event;
        if (peer.held.size() >= kMaxHeld) peer.held.pop_front();
        peer.held.push_back(std::move(event));
        return std::nullopt;
    }
    return open(peer, std::move(event));
}

std::optional<TransportEvent> SealedTransport::open(Peer& peer, TransportEvent event) {
    if (!peer.seal->open_in_place(static_cast<std::uint8_t>(event.channel), event.data)) {
        ++(peer.seal->refusal() == DatagramSeal::Refusal::kReplayed ? peer.replayed : peer.altered);
        return std::nullopt;
    }
    return event;
}

PeerStats SealedTransport::stats(PeerId peer) const {
    PeerStats stats = m_inner.stats(peer);
    if (const auto found = m_peers.find(peer); found != m_peers.end()) {
        stats.altered += found->second.altered;
        stats.replayed += found->second.replayed;
    }
    return stats;
}

void SealedTransport::seal(PeerId peer, const SealKeys& keys) {
    Peer& entry = m_peers[peer];
    entry.seal = std::make_unique<DatagramSeal>(keys);
    entry.holding = false;
    std::deque<TransportEvent> held = std::move(entry.held);
    entry.held.clear();
    for (TransportEvent& event : held) {
        if (auto opened = open(entry, std::move(event))) m_ready.push_back(std::move(*opened));
    }
}

bool SealedTransport::sealed(PeerId peer) const {
    const auto found = m_peers.find(peer);
    return found != m_peers.end() && found->second.seal != nullptr;
}

void SealedTransport::hold_until_sealed(PeerId peer) {
    m_peers[peer].holding = true;
}

}  // namespace framelock::netplay
