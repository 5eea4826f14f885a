// Transport over ENet (UDP): the real network behind sessions, servers and spectators.
//
// Channels: kControl = reliable, ordered (ENet channel 0); kInput = unreliable and unsequenced
// (channel 1: a late packet is still delivered, the application dedupes by frame number);
// kBulk = reliable, ordered, its own queue (channel 2). ENet's packet throttle, which would
// drop unreliable packets whenever the RTT rises, is switched off: inputs carry their own
// redundancy, and dropping them on jitter only delays everyone.
//
// Addresses are "host:port" with an IPv4 address or a host name (ENet 1.3 is IPv4 only).
// Host names are resolved with a blocking DNS lookup inside listen()/connect().
//
// Threading: none. One transport belongs to one thread; nothing here locks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"
#include "netplay/io/enet_guard.h"
#include "netplay/io/real_clock.h"
#include "netplay/reach/rendezvous.h"

// ENet's own struct tags; <enet/enet.h> stays out of this header (ENet is a private dependency).
struct _ENetAddress;
struct _ENetHost;
struct _ENetPeer;
struct _ENetEvent;

namespace framelock::netplay {

struct EnetOptions {
    // A connected peer we hear nothing from for this long is dropped (kDisconnected). The
    // default (kPeerSilenceTimeoutUs, 15 s) rides out a network outage of several seconds:
    // sessions mark a silent player away long before (0.5 s) and carry on when it speaks
    // again. A live peer is never silent that long: ENet pings a peer it has not heard from
    // for min(500 ms, timeout / 4). Microseconds, applied in whole milliseconds (at least
    // 1 ms). Poll at least every few hundred ms: after a stall longer than the timeout, ENet
    // may count the stall itself as the peer's silence and drop it.
    Micros peer_timeout_us = kPeerSilenceTimeoutUs;
    // A connect() that gets no answer fails after this long, or after peer_timeout_us if that
    // is shorter: a wrong address is reported in seconds, not after the outage allowance.
    Micros connect_timeout_us = 5'000'000;
    // A server's guard against connections that never speak (a flood of half-open
    // connections), counting per source address the silent peers: those that have delivered
    // no message yet (mid-handshake, or connected and silent) and those disconnect() closed
    // that are still saying goodbye. A connection request from an address that
    // holds this many already is dropped unread (ENet never gives it a peer slot; a real
    // client retries it); and when every peer slot is taken, a request takes the slot of such
    // a silent peer (its kDisconnected follows): the oldest one of the address that holds the
    // most. So a newcomer always finds a slot, and a peer that spoke (and is not closed) is
    // never pushed out. 0: no guard (clients).
    int max_silent_per_address = 0;
};

// How long disconnect() waits before ENet sends the disconnect (see disconnect()).
inline constexpr Micros kCloseLingerUs = 200'000;
// A peer closed by disconnect() that has not finished its goodbye this long after (it does
// not acknowledge) is reset: its slot is free again, whatever the peer timeout.
inline constexpr Micros kCloseLimitUs = 2'000'000;

// IPv4 (20) + UDP (8) header bytes added to every datagram in the wire counters. Link-layer
// framing (Ethernet, Wi-Fi, PPPoE) is not counted.
inline constexpr std::uint64_t kIpUdpHeaderBytes = 28;

class EnetTransport final : public Transport {
  public:
    // A server bound to `bind_address`: "127.0.0.1:7845", ":7845" (all interfaces) or
    // "0.0.0.0:0" (any interface, port picked by the OS; see local_port()). Accepts up to
    // `max_peers` simultaneous connections (1..4095) and can also connect() out.
    // Errors (kUsage) name the address: malformed, unresolvable, or already in use.
    static Result<std::unique_ptr<EnetTransport>> listen(const std::string& bind_address,
                                                         std::size_t max_peers,
                                                         EnetOptions options = {});

    // A client: unbound (the OS picks the local port at the first send), one peer slot.
    static Result<std::unique_ptr<EnetTransport>> client(EnetOptions options = {});

    // Sends what is queued, then a disconnect to every peer (no waiting for acknowledgements),
    // and closes the socket. Remote peers see kDisconnected; a message queued just before may
    // be discarded by the receiver (see disconnect()).
    ~EnetTransport() override;

    EnetTransport(const EnetTransport&) = delete;
    EnetTransport& operator=(const EnetTransport&) = delete;

    // Starts connecting to "host:port". kConnected or kDisconnected (refused, unanswered for
    // the peer timeout) for the returned id follows from poll(). Errors (kUsage): malformed or
    // unresolvable address, no free peer slot.
    Result<PeerId> connect(const std::string& address) override;

    // Copies `data` into an ENet packet and queues it. Does nothing for an unknown,
    // disconnected or not-yet-connected peer, or beyond ENet's 32 MiB packet limit.
    void send(PeerId peer, Channel channel, std::span<const std::uint8_t> data) override;

    // Buffered events first; otherwise services ENet without blocking (sends what is queued,
    // reads what arrived) and hands out the next event. Messages are copies; ENet's packet is
    // already freed. PeerIds count up from 1 and are never reused by this transport.
    std::optional<TransportEvent> poll() override;

    // Blocks up to `max_wait` (rounded down to whole milliseconds, so the caller wakes at most
    // 1 ms early, never late) until an event is ready, servicing ENet meanwhile. Returns true
    // when poll() now has an event. Meant for the frontend loop: sleep until the next frame or
    // the next packet, whichever comes first.
    bool wait(Micros max_wait);

    void flush() override;

    // Graceful: the peer sees kDisconnected after everything already queued for it. This side
    // gets no further event for `peer`, and sends to it do nothing. Keep polling: the transport
    // lingers kCloseLingerUs, then lets ENet send the disconnect once all queued data has been
    // acknowledged. The linger matters because the receiving ENet discards whatever it has
    // not yet handed out when a disconnect arrives: it gives the remote application time to
    // poll out a last message (e.g. the reason for a kick).
    void disconnect(PeerId peer) override;
    // Immediate: sends what is queued, then one unreliable disconnect notice, and forgets the
    // peer (nothing is retransmitted). No event here. A message sent just before may be
    // discarded by the receiver along with the connection; use disconnect() to deliver one.
    void disconnect_now(PeerId peer);

    // Traffic for one peer; zeros for an id never handed out. Kept after the peer disconnects,
    // unless it never delivered a message (a flood's peers are forgotten once gone).
    //   payload_bytes_sent      bytes of the messages send() queued to ENet for this peer
    //   payload_bytes_received  bytes of the kMessage events poll() handed out for this peer
    //   datagrams_received,     exact: every UDP datagram read from the peer's address
    //   wire_bytes_received     (data, acknowledgements, pings, retransmits, disconnect),
    //                           counting UDP payload + kIpUdpHeaderBytes. On a server, the very
    //                           first datagram of a connection (the request, before ENet has a
    //                           peer for it) is only in host_stats().
    //   datagrams_sent,         exact on a transport with one peer slot (client()): everything
    //   wire_bytes_sent         the socket sent, UDP payload + kIpUdpHeaderBytes per datagram.
    //                           With several peers ENet does not say which datagram went where,
    //                           so each service call's sent totals are split evenly among the
    //                           peers ENet sent to during it (an estimate; exact when traffic
    //                           per peer is alike, e.g. a broadcast update); host_stats() has
    //                           the exact sum.
    PeerStats stats(PeerId peer) const override;

    // Exact totals for the whole socket, all peers, including connection requests.
    // payload_* are the sums over peers.
    PeerStats host_stats() const;

    // ENet's smoothed round-trip time to `peer` in milliseconds: ENet's default of 500 until
    // the first acknowledgement (a few ms after kConnected on a LAN), then the measured mean.
    // nullopt for an unknown or disconnected peer. For diagnostics; the session measures its
    // own RTT.
    std::optional<std::uint32_t> round_trip_ms(PeerId peer) const;

    // "a.b.c.d:port" of a peer, empty for an unknown or disconnected one. For logs.
    std::string peer_address(PeerId peer) const override;

    // The bound UDP port (the OS's pick after listen("…:0")); 0 for a client before it sent.
    std::uint16_t local_port() const;

    // The UDP socket's file descriptor, for a loop that sleeps on many transports at once
    // (poll/epoll for readability, then poll() the transports that woke). Owned by the
    // transport: never read, write or close it.
    int socket_fd() const;

    // Rendezvous datagrams (netplay/reach/rendezvous.h) share the socket with ENet. A Probe is
    // answered at once, inside the service call that reads it (its round trip includes no
    // loop of ours); the others wait in a queue of at most kMaxQueuedDatagrams (older ones
    // are dropped) for poll_datagram(). Datagrams arrive while poll() or wait() service the
    // socket. Anything else that is not ENet's is dropped by ENet as before.
    struct Datagram {
        Endpoint from;
        RendezvousMessage message;
    };
    static constexpr std::size_t kMaxQueuedDatagrams = 64;
    std::optional<Datagram> poll_datagram();
    // Sends one rendezvous datagram from this socket, now (not queued behind ENet's traffic).
    void send_datagram(const Endpoint& to, const RendezvousMessage& message);
    // Rendezvous datagrams read that were not well-formed (dropped, counted).
    std::uint64_t malformed_datagrams() const { return m_malformed_datagrams; }

    // What the guard (EnetOptions::max_silent_per_address) did, per source address
    // ("a.b.c.d"): connection requests dropped unread, and silent peers whose slot went to a
    // newcomer. take_guard_report() hands out the counts since its last call (at most
    // kMaxGuardAddresses addresses; the rest are summed under "other addresses").
    using GuardCounts = EnetGuard::Counts;
    static constexpr std::size_t kMaxGuardAddresses = EnetGuard::kMaxAddresses;
    std::map<std::string, GuardCounts> take_guard_report() { return m_guard.take_report(); }
    // The totals since the transport opened.
    GuardCounts guard_totals() const { return m_guard.totals(); }

    // Changes the peer timeout for current and future peers (connected ones; a connect in
    // progress keeps min(connect timeout, new peer timeout) from its next retransmission).
    void set_peer_timeout(Micros timeout_us);

  private:
    struct PeerRecord {
        _ENetPeer* peer = nullptr;  // null once ENet has released the slot
        bool open = true;           // false after disconnect(): no sends, no further events
        bool connected = false;     // ENet's CONNECT came: the peer timeout applies, not the
                                    // connect timeout
        bool spoke = false;         // it delivered a message: not silent to the guard while open
        Micros since_us = 0;        // steady clock; when the record was made
        Micros last_heard_us = 0;   // steady clock; last datagram from the peer (or connect)
        std::optional<Micros> closing_since_us;  // disconnect() called, ENet not yet told
        std::optional<Micros> closed_at_us;      // disconnect() called (kCloseLimitUs)
        PeerStats stats;
    };

    EnetTransport(_ENetHost* host, EnetOptions options);

    // One enet_host_service call; what it yields for the application lands in m_pending.
    // False when ENet had no event (or failed).
    bool service(std::uint32_t timeout_ms);
    void translate(const _ENetEvent& event);
    // Moves ENet's 32-bit host counters into ours and attributes sent datagrams to peers
    // (to `only_peer` when given).
    void harvest_sent(_ENetPeer* only_peer);
    void harvest_received();
    // After ENet has read everything waiting: drops silent peers, closes lingering ones.
    void tend_peers();
    // Sends what is queued (for everyone), then one unreliable disconnect notice, then
    // forgets the peer.
    void drop_now(PeerRecord& record);
    void apply_peer_settings(_ENetPeer* peer, bool connected) const;
    // The silence after which a peer is given up: the peer timeout once connected, before
    // that the (shorter) connect timeout.
    Micros silence_limit_us(bool connected) const;
    void release(PeerRecord& record);
    PeerId new_record(_ENetPeer* peer);
    PeerId id_of(const _ENetPeer* peer) const;  // 0 when the slot is not ours
    PeerRecord* find_open(PeerId id);
    const PeerRecord* find_live(PeerId id) const;

    // ENet's intercept: counts a peer's datagrams, and takes the rendezvous ones out.
    static int intercept(_ENetHost* host, _ENetEvent* event);
    void take_rendezvous(std::span<const std::uint8_t> datagram, const Endpoint& from);
    // The guard, for a connection request (ENet's CONNECT, `connect_id` raw) from `from`:
    // false to drop it unread; true to let ENet have it, after freeing a slot if none is.
    bool guard_request(const _ENetAddress& from, std::uint32_t connect_id);
    // To the guard: no message yet (or no record: ENet is still accepting it), or closed.
    bool silent(const _ENetPeer& slot) const;

    _ENetHost* m_host;
    EnetOptions m_options;
    SteadyClock m_clock;
    PeerId m_next_id = 1;
    std::map<PeerId, PeerRecord> m_peers;
    std::deque<TransportEvent> m_pending;         // events taken from ENet, not yet handed out
    std::vector<std::uint32_t> m_slot_last_send;  // ENet's lastSendTime per slot, last harvest
    std::vector<_ENetPeer*> m_senders;            // scratch for harvest_sent
    PeerStats m_host_stats;
    std::deque<Datagram> m_datagrams;
    std::uint64_t m_malformed_datagrams = 0;
    EnetGuard m_guard;
};

}  // namespace framelock::netplay
