#include "netplay/io/enet_transport.h"

#include <arpa/inet.h>
#include <enet/enet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <utility>

#include "netplay/io/enet_address.h"
#include "netplay/io/enet_guard.h"

namespace framelock::netplay {
namespace {

// The longest ENet ping interval (see apply_peer_settings).
constexpr enet_uint32 kMaxPingIntervalMs = 2000;

static_assert(kChannelCount == 3, "one ENet channel per Channel value");
static_assert(static_cast<int>(Channel::kControl) == 0 && static_cast<int>(Channel::kInput) == 1 &&
                  static_cast<int>(Channel::kBulk) == 2,
              "Channel values are the ENet channel numbers");

enet_uint32 packet_flags(Channel channel) {
    // Inputs are unsequenced rather than merely unreliable: ENet drops an unreliable packet
    // that arrives after a newer one, but a late input still fills a hole (the app dedupes by
    // frame number).
    return channel == Channel::kInput ? ENET_PACKET_FLAG_UNSEQUENCED : ENET_PACKET_FLAG_RELIABLE;
}

// enet_initialize once per process; enet_deinitialize at exit.
bool enet_ready() {
    static std::once_flag once;
    static bool ok = false;
    std::call_once(once, [] {
        ok = enet_initialize() == 0;
        if (ok) std::atexit(enet_deinitialize);
    });
    return ok;
}

// The transport inside enet_host_service on this thread. ENet's intercept callback receives
// the host but no user pointer; one transport is serviced at a time per thread.
thread_local EnetTransport* t_servicing = nullptr;

TransportEvent status_event(TransportEvent::Type type, PeerId peer) {
    TransportEvent event;
    event.type = type;
    event.peer = peer;
    return event;
}

void* id_to_data(PeerId id) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(id));
}

}  // namespace

// ---- creation and destruction ----------------------------------------------------------

Result<std::unique_ptr<EnetTransport>> EnetTransport::listen(const std::string& bind_address,
                                                             std::size_t max_peers,
                                                             EnetOptions options) {
    if (max_peers < 1 || max_peers > ENET_PROTOCOL_MAXIMUM_PEER_ID) {
        return make_error(ErrorCode::kUsage, "cannot listen on " + bind_address + " for " +
                                                 std::to_string(max_peers) +
                                                 " peers: ENet allows 1 to 4095");
    }
    if (!enet_ready()) return make_error(ErrorCode::kIo, "enet_initialize failed");
    auto address = parse_enet_address(bind_address, EnetAddressUse::kListen);
    if (!address) return address.error();

    errno = 0;
    ENetHost* host = enet_host_create(&address.value(), max_peers, kChannelCount, 0, 0);
    if (host == nullptr) return enet_listen_error(bind_address, errno);
    return std::unique_ptr<EnetTransport>(new EnetTransport(host, options));
}

Result<std::unique_ptr<EnetTransport>> EnetTransport::client(EnetOptions options) {
    if (!enet_ready()) return make_error(ErrorCode::kIo, "enet_initialize failed");
    errno = 0;
    ENetHost* host = enet_host_create(nullptr, 1, kChannelCount, 0, 0);
    if (host == nullptr) {
        const int error = errno;
        return make_error(ErrorCode::kIo, std::string("cannot create the client's UDP socket: ") +
                                              (error != 0 ? std::strerror(error) : "ENet failed"));
    }
    return std::unique_ptr<EnetTransport>(new EnetTransport(host, options));
}

EnetTransport::EnetTransport(ENetHost* host, EnetOptions options)
    : m_host(host),
      m_options(options),
      m_slot_last_send(host->peerCount, 0),
      m_guard(options.max_silent_per_address) {
    m_options.peer_timeout_us = std::max<Micros>(m_options.peer_timeout_us, 1000);
    m_options.connect_timeout_us = std::max<Micros>(m_options.connect_timeout_us, 1000);
    m_host->intercept = &EnetTransport::intercept;
    // A CRC32 in every datagram's header: ENet drops a datagram whose bytes changed on the way
    // (it catches every single-bit flip) and does not acknowledge it, so a reliable one comes
    // again. The seal refuses every message changed after the Welcome, but only after ENet
    // acknowledged it (a reliable one would be lost for good), and the handshake travels in
    // clear: without the CRC a flipped bit in a Hello was read and refused (the fault test's
    // 1 % corruption). Costs 4 bytes per datagram; both ends must have it.
    m_host->checksum = enet_crc32;
}

EnetTransport::~EnetTransport() {
    // Queued data first: enet_peer_disconnect discards what is still queued for a peer.
    enet_host_flush(m_host);
    for (auto& entry : m_peers) {
        if (entry.second.peer != nullptr) enet_peer_disconnect(entry.second.peer, 0);
    }
    enet_host_flush(m_host);
    enet_host_destroy(m_host);
}

// ---- Transport ----------------------------------------------------------------------------

Result<PeerId> EnetTransport::connect(const std::string& address_text) {
    auto address = parse_enet_address(address_text, EnetAddressUse::kConnect);
    if (!address) return address.error();
    ENetPeer* peer = enet_host_connect(m_host, &address.value(), kChannelCount, 0);
    if (peer == nullptr) {
        return make_error(ErrorCode::kUsage, "cannot connect to " + address_text + ": all " +
                                                 std::to_string(m_host->peerCount) +
                                                 " peer slots of this transport are in use");
    }
    apply_peer_settings(peer, false);
    return new_record(peer);
}

void EnetTransport::send(PeerId peer, Channel channel, std::span<const std::uint8_t> data) {
    PeerRecord* record = find_open(peer);
    if (record == nullptr || record->peer->state != ENET_PEER_STATE_CONNECTED) return;
    ENetPacket* packet = enet_packet_create(data.data(), data.size(), packet_flags(channel));
    if (packet == nullptr) return;
    // On failure ENet leaves the packet to us; on success it owns it.
    if (enet_peer_send(record->peer, static_cast<enet_uint8>(channel), packet) != 0) {
        enet_packet_destroy(packet);
        return;
    }
    record->stats.payload_bytes_sent += data.size();
    m_host_stats.payload_bytes_sent += data.size();
}

std::optional<TransportEvent> EnetTransport::poll() {
    while (m_pending.empty() && service(0)) {
    }
    // Only once ENet has read everything waiting in the socket: a peer whose datagrams sat
    // there while the application was busy is not silent.
    if (m_pending.empty()) tend_peers();
    if (m_pending.empty()) return std::nullopt;
    TransportEvent event = std::move(m_pending.front());
    m_pending.pop_front();
    return event;
}

bool EnetTransport::wait(Micros max_wait) {
    if (!m_pending.empty()) return true;
    const Micros deadline = m_clock.now_us() + std::max<Micros>(max_wait, 0);
    for (;;) {
        const Micros left_ms = std::max<Micros>(deadline - m_clock.now_us(), 0) / 1000;
        const auto timeout_ms = static_cast<std::uint32_t>(
            std::min<Micros>(left_ms, std::numeric_limits<std::uint32_t>::max()));
        const bool had_event = service(timeout_ms);
        if (!m_pending.empty()) return true;
        if (!had_event) break;  // waited the full time (or ENet failed)
    }
    tend_peers();
    return !m_pending.empty();
}

void EnetTransport::flush() {
    enet_host_flush(m_host);
    harvest_sent(nullptr);
}

void EnetTransport::disconnect(PeerId peer) {
    PeerRecord* record = find_open(peer);
    if (record == nullptr) return;
    record->open = false;
    record->closed_at_us = m_clock.now_us();
    if (record->peer->state == ENET_PEER_STATE_CONNECTED) {
        record->closing_since_us = m_clock.now_us();  // tend_peers() takes it from here
        return;
    }
    // Still connecting: ENet resets the peer on the spot (after one disconnect notice).
    enet_peer_disconnect(record->peer, 0);
    harvest_sent(record->peer);
    if (record->peer->state == ENET_PEER_STATE_DISCONNECTED) release(*record);
}

void EnetTransport::disconnect_now(PeerId peer) {
    PeerRecord* record = find_open(peer);
    if (record != nullptr) drop_now(*record);
}

// ---- diagnostics --------------------------------------------------------------------------

PeerStats EnetTransport::stats(PeerId peer) const {
    const auto it = m_peers.find(peer);
    return it == m_peers.end() ? PeerStats{} : it->second.stats;
}

PeerStats EnetTransport::host_stats() const {
    return m_host_stats;
}

std::optional<std::uint32_t> EnetTransport::round_trip_ms(PeerId peer) const {
    const PeerRecord* record = find_live(peer);
    if (record == nullptr) return std::nullopt;
    return record->peer->roundTripTime;
}

std::string EnetTransport::peer_address(PeerId peer) const {
    const PeerRecord* record = find_live(peer);
    if (record == nullptr) return {};
    char ip[64] = {};
    if (enet_address_get_host_ip(&record->peer->address, ip, sizeof ip) != 0) return {};
    return std::string(ip) + ":" + std::to_string(record->peer->address.port);
}

std::uint16_t EnetTransport::local_port() const {
    ENetAddress address{};
    if (enet_socket_get_address(m_host->socket, &address) != 0) return 0;
    return address.port;
}

int EnetTransport::socket_fd() const {
    return static_cast<int>(m_host->socket);
}

void EnetTransport::set_peer_timeout(Micros timeout_us) {
    m_options.peer_timeout_us = std::max<Micros>(timeout_us, 1000);
    for (auto& entry : m_peers) {
        if (entry.second.peer != nullptr)
            apply_peer_settings(entry.second.peer, entry.second.connected);
    }
}

// ---- internals ----------------------------------------------------------------------------

bool EnetTransport::service(std::uint32_t timeout_ms) {
    ENetEvent event{};
    t_servicing = this;
    const int result = enet_host_service(m_host, &event, timeout_ms);
    t_servicing = nullptr;
    // Before translate(): a peer ENet just reset still carries our id for attribution.
    harvest_sent(nullptr);
    harvest_received();
    if (result <= 0) return false;
    translate(event);
    return true;
}

void EnetTransport::translate(const ENetEvent& event) {
    ENetPeer* peer = event.peer;
    switch (event.type) {
        case ENET_EVENT_TYPE_CONNECT: {
            PeerId id = id_of(peer);
            if (id == 0) id = new_record(peer);  // an incoming connection: its id is made now
            PeerRecord& record = m_peers.at(id);
            record.connected = true;
            apply_peer_settings(peer, true);
            record.last_heard_us = m_clock.now_us();
            // Never throttle (drop) unreliable packets when the RTT rises; the default
            // deceleration would. The settings travel to the remote side too.
            enet_peer_throttle_configure(peer, ENET_PEER_PACKET_THROTTLE_INTERVAL,
                                         ENET_PEER_PACKET_THROTTLE_ACCELERATION, 0);
            if (record.open)
                m_pending.push_back(status_event(TransportEvent::Type::kConnected, id));
            break;
        }
        case ENET_EVENT_TYPE_DISCONNECT: {
            const PeerId id = id_of(peer);
            peer->data = nullptr;
            if (id == 0) break;
            PeerRecord& record = m_peers.at(id);
            const bool report = record.open;
            release(record);
            if (report) m_pending.push_back(status_event(TransportEvent::Type::kDisconnected, id));
            break;
        }
        case ENET_EVENT_TYPE_RECEIVE: {
            const PeerId id = id_of(peer);
            ENetPacket* packet = event.packet;
            if (id != 0 && m_peers.at(id).open && event.channelID < kChannelCount) {
                TransportEvent message{
                    TransportEvent::Type::kMessage, id, static_cast<Channel>(event.channelID), {}};
                message.data.assign(packet->data, packet->data + packet->dataLength);
                m_peers.at(id).spoke = true;
                m_peers.at(id).stats.payload_bytes_received += packet->dataLength;
                m_host_stats.payload_bytes_received += packet->dataLength;
                m_pending.push_back(std::move(message));
            }
            enet_packet_destroy(packet);
            break;
        }
        case ENET_EVENT_TYPE_NONE:
            break;
    }
}

void EnetTransport::harvest_sent(ENetPeer* only_peer) {
    // ENet's totals are 32-bit ("user should reset as needed"): move them into ours.
    const std::uint64_t bytes = m_host->totalSentData;
    const std::uint64_t datagrams = m_host->totalSentPackets;
    m_host->totalSentData = 0;
    m_host->totalSentPackets = 0;

    // Which peers did ENet send to? It stamps a peer's lastSendTime with the service time
    // whenever it sends it a datagram.
    m_senders.clear();
    if (only_peer != nullptr) {
        m_senders.push_back(only_peer);
    } else if (m_host->peerCount == 1) {
        m_senders.push_back(&m_host->peers[0]);
    } else {
        for (std::size_t i = 0; i < m_host->peerCount; ++i) {
            ENetPeer& slot = m_host->peers[i];
            const bool stamped = slot.lastSendTime != m_slot_last_send[i] ||
                                 (slot.state != ENET_PEER_STATE_DISCONNECTED &&
                                  slot.lastSendTime == m_host->serviceTime);
            if (stamped) m_senders.push_back(&slot);
        }
        if (m_senders.empty()) {
            for (std::size_t i = 0; i < m_host->peerCount; ++i) {
                if (m_host->peers[i].state != ENET_PEER_STATE_DISCONNECTED) {
                    m_senders.push_back(&m_host->peers[i]);
                }
            }
        }
    }
    for (std::size_t i = 0; i < m_host->peerCount; ++i) {
        m_slot_last_send[i] = m_host->peers[i].lastSendTime;
    }
    if (datagrams == 0) return;

    m_host_stats.datagrams_sent += datagrams;
    m_host_stats.wire_bytes_sent += bytes + kIpUdpHeaderBytes * datagrams;
    const std::uint64_t count = m_senders.size();
    for (std::uint64_t k = 0; k < count; ++k) {
        const PeerId id = id_of(m_senders[k]);
        if (id == 0) continue;  // a slot the application never saw (a connection request)
        // Even shares; the remainders go to the first senders so the shares add up.
        const std::uint64_t share_datagrams = datagrams / count + (k < datagrams % count ? 1 : 0);
        const std::uint64_t share_bytes = bytes / count + (k < bytes % count ? 1 : 0);
        PeerStats& stats = m_peers.at(id).stats;
        stats.datagrams_sent += share_datagrams;
        stats.wire_bytes_sent += share_bytes + kIpUdpHeaderBytes * share_datagrams;
    }
}

void EnetTransport::harvest_received() {
    const std::uint64_t bytes = m_host->totalReceivedData;
    const std::uint64_t datagrams = m_host->totalReceivedPackets;
    m_host->totalReceivedData = 0;
    m_host->totalReceivedPackets = 0;
    m_host_stats.datagrams_received += datagrams;
    m_host_stats.wire_bytes_received += bytes + kIpUdpHeaderBytes * datagrams;
}

// Called by ENet for every datagram it reads, before it parses it. Per-peer receive counters
// and the silence watchdog live here. Returns 0: ENet processes the datagram as usual.
int EnetTransport::intercept(ENetHost* host, ENetEvent* /*event*/) {
    EnetTransport* self = t_servicing;
    if (self == nullptr || self->m_host != host) return 0;
    const ENetAddress& from = host->receivedAddress;
    const std::span<const std::uint8_t> datagram(host->receivedData, host->receivedDataLength);
    if (is_rendezvous(datagram)) {
        self->take_rendezvous(datagram, Endpoint{ntohl(from.host), from.port});
        return 1;  // not ENet's: it never sees it
    }
    if (self->m_options.max_silent_per_address > 0) {
        if (const auto connect_id =
                EnetGuard::connect_request_id(datagram, host->checksum != nullptr);
            connect_id && !self->guard_request(from, *connect_id))
            return 1;  // dropped unread: ENet gives it no slot
    }
    for (std::size_t i = 0; i < host->peerCount; ++i) {
        const ENetPeer& slot = host->peers[i];
        // ENet itself only accepts a peer's datagrams from the peer's address.
        if (slot.state == ENET_PEER_STATE_DISCONNECTED || slot.address.host != from.host ||
            slot.address.port != from.port) {
            continue;
        }
        if (const PeerId id = self->id_of(&slot); id != 0) {
            PeerRecord& record = self->m_peers.at(id);
            record.stats.datagrams_received += 1;
            record.stats.wire_bytes_received += host->receivedDataLength + kIpUdpHeaderBytes;
            record.last_heard_us = self->m_clock.now_us();
        }
        break;
    }
    return 0;
}

bool EnetTransport::silent(const ENetPeer& slot) const {
    const PeerId id = id_of(&slot);
    // No record: a connection ENet is still accepting (the application has not seen it). A
    // closed one is on its way out, whatever it said (a refused client hammering the door).
    return id == 0 || !m_peers.at(id).spoke || !m_peers.at(id).open;
}

bool EnetTransport::guard_request(const ENetAddress& from, std::uint32_t connect_id) {
    const EnetGuard::Verdict verdict = m_guard.judge(
        *m_host, from, connect_id, [this](const ENetPeer& slot) { return silent(slot); },
        [this](const ENetPeer& slot) {
            // One ENet is still accepting is no connection yet: the first to go.
            const PeerId id = id_of(&slot);
            return id == 0 ? std::numeric_limits<Micros>::min() : m_peers.at(id).since_us;
        });
    if (verdict.evict != nullptr) {
        const PeerId id = id_of(verdict.evict);
        // Local only: no datagram goes out from inside ENet's receive loop.
        enet_peer_reset(verdict.evict);
        if (id != 0) {
            PeerRecord& record = m_peers.at(id);
            const bool report = record.open;
            release(record);
            if (report) m_pending.push_back(status_event(TransportEvent::Type::kDisconnected, id));
        }
    }
    return verdict.admit;
}

void EnetTransport::take_rendezvous(std::span<const std::uint8_t> datagram, const Endpoint& from) {
    auto message = decode_rendezvous(datagram);
    if (!message) {
        ++m_malformed_datagrams;
        return;
    }
    if (const auto* probe = std::get_if<Probe>(&message.value())) {
        send_datagram(from, ProbeReply{probe->nonce, from});
        return;
    }
    if (m_datagrams.size() >= kMaxQueuedDatagrams) m_datagrams.pop_front();
    m_datagrams.push_back(Datagram{from, std::move(message).value()});
}

std::optional<EnetTransport::Datagram> EnetTransport::poll_datagram() {
    if (m_datagrams.empty()) return std::nullopt;
    Datagram next = std::move(m_datagrams.front());
    m_datagrams.pop_front();
    return next;
}

void EnetTransport::send_datagram(const Endpoint& to, const RendezvousMessage& message) {
    const std::vector<std::uint8_t> bytes = encode_rendezvous(message);
    ENetAddress address;
    address.host = htonl(to.ipv4);
    address.port = to.port;
    ENetBuffer buffer;
    buffer.data = const_cast<std::uint8_t*>(bytes.data());
    buffer.dataLength = bytes.size();
    if (enet_socket_send(m_host->socket, &address, &buffer, 1) > 0) {
        m_host_stats.datagrams_sent += 1;
        m_host_stats.wire_bytes_sent += bytes.size() + kIpUdpHeaderBytes;
    }
}

void EnetTransport::tend_peers() {
    const Micros now = m_clock.now_us();
    for (auto it = m_peers.begin(); it != m_peers.end();) {
        auto& [id, record] = *it;
        if (record.peer == nullptr) {
            // A server's peer gone without a word: nobody asks for its traffic, and a flood
            // leaves thousands.
            const bool forget = !record.spoke && m_options.max_silent_per_address > 0;
            it = forget ? m_peers.erase(it) : std::next(it);
            continue;
        }
        ++it;
        if (!record.open && record.closed_at_us && now - *record.closed_at_us >= kCloseLimitUs) {
            // Closed and still not gone (it does not acknowledge): its slot is wanted.
            enet_peer_reset(record.peer);
            release(record);
        } else if (now - record.last_heard_us >= silence_limit_us(record.connected)) {
            const bool report = record.open;
            if (record.peer->state == ENET_PEER_STATE_CONNECTED) {
                drop_now(record);
            } else {  // connecting, or closing and no longer answering: nobody to notify
                enet_peer_reset(record.peer);
                release(record);
            }
            if (report) m_pending.push_back(status_event(TransportEvent::Type::kDisconnected, id));
        } else if (record.closing_since_us && now - *record.closing_since_us >= kCloseLingerUs) {
            record.closing_since_us.reset();
            // ENet sends the disconnect once everything queued is acknowledged; its
            // DISCONNECT event for this peer is then swallowed (the record is closed).
            enet_peer_disconnect_later(record.peer, 0);
            if (record.peer->state == ENET_PEER_STATE_DISCONNECTED) release(record);
        }
    }
}

void EnetTransport::drop_now(PeerRecord& record) {
    enet_host_flush(m_host);
    harvest_sent(nullptr);
    ENetPeer* peer = record.peer;
    enet_peer_disconnect_now(peer, 0);
    harvest_sent(peer);
    release(record);
}

Micros EnetTransport::silence_limit_us(bool connected) const {
    return connected ? m_options.peer_timeout_us
                     : std::min(m_options.connect_timeout_us, m_options.peer_timeout_us);
}

void EnetTransport::apply_peer_settings(ENetPeer* peer, bool connected) const {
    // ENet declares a peer dead when a reliable command (data or a ping) stays unacknowledged
    // this long; tend_peers() enforces the same bound on silence to the millisecond, since
    // ENet only checks when a retransmit timer fires.
    const auto timeout_ms = static_cast<enet_uint32>(std::clamp<Micros>(
        silence_limit_us(connected) / 1000, 1, std::numeric_limits<enet_uint32>::max()));
    enet_peer_timeout(peer, 0, timeout_ms, timeout_ms);
    // ENet pings a peer it has not heard an acknowledgement from for this long: often enough
    // that a live, idle peer is heard several times per timeout. Not more often than every
    // kMaxPingIntervalMs: a session's unreliable traffic gets no acknowledgements, so ENet
    // pings on that interval however busy the link is, and every ping and its answer is a
    // datagram of its own (at ENet's 500 ms, 4 of a player's 33 datagrams a second).
    const enet_uint32 ping_ms = std::clamp<enet_uint32>(timeout_ms / 4, 10, kMaxPingIntervalMs);
    enet_peer_ping_interval(peer, ping_ms);
}

void EnetTransport::release(PeerRecord& record) {
    if (record.peer != nullptr) record.peer->data = nullptr;
    record.peer = nullptr;
    record.open = false;
}

PeerId EnetTransport::new_record(ENetPeer* peer) {
    const PeerId id = m_next_id++;
    peer->data = id_to_data(id);
    PeerRecord record;
    record.peer = peer;
    record.since_us = m_clock.now_us();
    record.last_heard_us = record.since_us;
    m_peers.emplace(id, record);
    return id;
}

PeerId EnetTransport::id_of(const ENetPeer* peer) const {
    const auto id = static_cast<PeerId>(reinterpret_cast<std::uintptr_t>(peer->data));
    if (id == 0) return 0;
    const auto it = m_peers.find(id);
    return it != m_peers.end() && it->second.peer == peer ? id : 0;
}

EnetTransport::PeerRecord* EnetTransport::find_open(PeerId id) {
    const auto it = m_peers.find(id);
    if (it == m_peers.end() || !it->second.open || it->second.peer == nullptr) return nullptr;
    return &it->second;
}

const EnetTransport::PeerRecord* EnetTransport::find_live(PeerId id) const {
    const auto it = m_peers.find(id);
    if (it == m_peers.end() || it->second.peer == nullptr) return nullptr;
    return &it->second;
}

}  // namespace framelock::netplay
