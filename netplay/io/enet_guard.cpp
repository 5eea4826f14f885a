#include "netplay/io/enet_guard.h"

#include <enet/enet.h>

#include <cstring>
#include <limits>

namespace framelock::netplay {
namespace {

std::string host_text(enet_uint32 host) {
    char ip[64] = {};
    ENetAddress address{};
    address.host = host;
    if (enet_address_get_host_ip(&address, ip, sizeof ip) != 0) return "?";
    return ip;
}

}  // namespace

std::optional<std::uint32_t> EnetGuard::connect_request_id(std::span<const std::uint8_t> datagram,
                                                           bool checksum) {
    if (datagram.size() < 2) return std::nullopt;
    const auto field = static_cast<enet_uint16>(datagram[0] << 8 | datagram[1]);
    const enet_uint16 flags = field & ENET_PROTOCOL_HEADER_FLAG_MASK;
    const enet_uint16 peer_id =
        field & ~(ENET_PROTOCOL_HEADER_FLAG_MASK | ENET_PROTOCOL_HEADER_SESSION_MASK);
    // A compressed datagram: the host has no decompressor, ENet drops it unread.
    if (peer_id != ENET_PROTOCOL_MAXIMUM_PEER_ID || (flags & ENET_PROTOCOL_HEADER_FLAG_COMPRESSED))
        return std::nullopt;
    std::size_t at = (flags & ENET_PROTOCOL_HEADER_FLAG_SENT_TIME)
                         ? sizeof(ENetProtocolHeader)
                         : offsetof(ENetProtocolHeader, sentTime);
    if (checksum) at += sizeof(enet_uint32);
    if (datagram.size() < at + sizeof(ENetProtocolConnect)) return std::nullopt;
    if ((datagram[at] & ENET_PROTOCOL_COMMAND_MASK) != ENET_PROTOCOL_COMMAND_CONNECT)
        return std::nullopt;
    enet_uint32 connect_id = 0;
    std::memcpy(&connect_id, datagram.data() + at + offsetof(ENetProtocolConnect, connectID),
                sizeof connect_id);
    return connect_id;
}

EnetGuard::Verdict EnetGuard::judge(const ENetHost& host, const ENetAddress& from,
                                    std::uint32_t connect_id,
                                    const std::function<bool(const ENetPeer&)>& silent,
                                    const std::function<Micros(const ENetPeer&)>& since) {
    std::size_t free_slots = 0;
    int silent_here = 0;
    for (std::size_t i = 0; i < host.peerCount; ++i) {
        const ENetPeer& slot = host.peers[i];
        if (slot.state == ENET_PEER_STATE_DISCONNECTED) {
            ++free_slots;
            continue;
        }
        if (slot.address.host != from.host) continue;
        // A request ENet already answered, sent again: ENet ignores it, so may we.
        if (slot.address.port == from.port && slot.connectID == connect_id) return {};
        if (silent(slot)) ++silent_here;
    }
    if (silent_here >= m_limit) {
        count(from.host, false);
        return {false, nullptr};
    }
    if (free_slots > 0) return {};
    // Every slot taken: the newcomer gets the slot of a silent peer, from the address that
    // holds the most of them (a flood's), and of equals the oldest.
    std::map<enet_uint32, int> silent_by_host;
    for (std::size_t i = 0; i < host.peerCount; ++i) {
        const ENetPeer& slot = host.peers[i];
        if (slot.state != ENET_PEER_STATE_DISCONNECTED && silent(slot))
            ++silent_by_host[slot.address.host];
    }
    ENetPeer* victim = nullptr;
    int victim_count = 0;
    Micros victim_since = 0;
    for (std::size_t i = 0; i < host.peerCount; ++i) {
        ENetPeer& slot = host.peers[i];
        if (slot.state == ENET_PEER_STATE_DISCONNECTED || !silent(slot)) continue;
        const int n = silent_by_host[slot.address.host];
        const Micros at = since(slot);
        if (victim == nullptr || n > victim_count || (n == victim_count && at < victim_since)) {
            victim = &slot;
            victim_count = n;
            victim_since = at;
        }
    }
    if (victim == nullptr) return {};  // every peer spoke: ENet refuses it as before
    count(victim->address.host, true);
    return {true, victim};
}

void EnetGuard::count(std::uint32_t host, bool evicted) {
    (evicted ? m_totals.evicted : m_totals.refused) += 1;
    std::string key = host_text(host);
    if (m_report.size() >= kMaxAddresses && !m_report.contains(key)) key = "other addresses";
    Counts& counts = m_report[key];
    (evicted ? counts.evicted : counts.refused) += 1;
}

}  // namespace framelock::netplay
