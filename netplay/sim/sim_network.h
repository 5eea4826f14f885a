// A deterministic simulated network for unit tests and benchmarks. Endpoints implement
// Transport; messages cross one-way links with latency, jitter, loss, duplication and an
// optional bandwidth cap. One process, one thread, time from a ManualClock: the same seed
// and the same calls give a bit-identical run.
//
// Randomness is keyed by time, not by packet count. Every roll a message gets (jitter, spike,
// loss, duplicate, retransmissions) is a hash of
//     (seed, link, channel, send time, n)
// where `link` is a hash of the two endpoint *names* and `n` counts the messages sent on
// that link and channel at that same microsecond. Nothing is drawn from a shared RNG
// stream, so a message sent at time t on A->B meets the same fate in every run with the
// same seed and link parameters, however many messages other links, other channels or
// other instants carried. A link's bursts of loss are a function of (seed, link, time) alone
// (see kBurstSlotsPerBurst). That is what lets two delay policies be compared "on the same
// trace". What still depends on traffic, by nature rather than through the RNG: a reliable
// message waits behind earlier ones on its channel, and a link with a bandwidth cap queues
// messages behind each other.
//
// Wire model for PeerStats: one message = one datagram costing its payload plus
// kSimWireOverheadBytes (28 UDP/IPv4 + 12 ENet command header). Connection handshakes
// and disconnect notices are not counted.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"

namespace framelock::netplay {

// Bytes added to each message's payload to count wire bytes: 28 (UDP/IPv4) + 12 (ENet).
inline constexpr std::uint64_t kSimWireOverheadBytes = 40;

// One direction of a link.
struct LinkParams {
    Micros latency_us = 0;   // one-way base latency
    Micros jitter_us = 0;    // each message: latency + uniform integer in [-jitter, +jitter], >= 0
    double loss = 0.0;       // probability a message is lost (reliable ones then come late)
    double duplicate = 0.0;  // probability an unreliable message arrives twice
    std::uint32_t bandwidth_bps = 0;  // bits per second of wire bytes; 0 = unlimited
    // Bursty loss (the two-state model below): the share of the time the link spends in its
    // bad state, where every message is lost, and the mean length of a bad period. On top of
    // `loss`, which stays independent per message. burst_loss 0: no bursts.
    double burst_loss = 0.0;
    Micros burst_us = 0;  // > 0 when burst_loss > 0
    // Heavy-tailed spikes: this share of the messages gets, on top of latency and jitter, an
    // extra delay from a Pareto distribution (shape kSpikeShape) starting at spike_us and
    // bounded at kSpikeCap x spike_us. spike 0: none.
    double spike = 0.0;
    Micros spike_us = 0;
};

// Bursts (LinkParams::burst_loss, burst_us), a Gilbert-Elliott style two-state link whose
// state is a function of the link and the time, not of the traffic: time is cut into slots of
// burst_us / kBurstSlotsPerBurst; a bad period starts in a slot with a probability rolled
// from (seed, link, slot) alone, and lasts a geometric number of slots (mean
// kBurstSlotsPerBurst, so a mean of burst_us; at most kBurstMaxSlots) rolled from the same
// hash. A slot is bad when a bad period that began in it or in one of the kBurstMaxSlots - 1
// before covers it; overlapping periods merge. The start probability is chosen so that the
// share of bad slots is burst_loss. Every message sent in a bad slot, on every channel, is
// lost (a reliable one comes late, and its retransmissions meet the state of their own time).
// The grid follows the parameters in force at the time asked about: a bad period running
// across a change of burst_us or burst_loss may end at the change.
inline constexpr int kBurstSlotsPerBurst = 4;
inline constexpr int kBurstMaxSlots = 48;   // P(longer) = 0.75^48 ~ 1e-6
inline constexpr double kSpikeShape = 1.5;  // Pareto: heavier than exponential, finite mean
inline constexpr double kSpikeCap = 10.0;

// Channel semantics:
// - kInput is unreliable: each message gets its own latency + jitter (+ a spike, maybe: so
//   messages reorder when jitter exceeds the send interval), is dropped with probability
//   `loss` or in a burst, and duplicated with probability `duplicate` (the copy gets its own
//   jitter).
// - kControl and kBulk are reliable and ordered per connection and channel: never dropped
//   or duplicated. A message the loss roll would drop arrives late instead, as a
//   retransmission would: + max(2 x current RTT, 50 ms) per lost attempt, each attempt
//   rolled again (at most 16, then it goes through). No message overtakes an earlier one
//   on the same channel.
// - connect(name): the target sees kConnected one one-way delay later (a fresh PeerId on
//   its side, allocated when connect() is called), the caller a round trip later. Both
//   handshake packets travel like reliable control messages (jitter, retransmission).
//   Unknown name: kDisconnected for the returned peer at the next poll(). Messages never
//   arrive before their side's kConnected.
// - disconnect(peer) / destroying an endpoint: the other side gets kDisconnected after a
//   one-way delay, behind every reliable message already sent; anything in flight to a
//   closed side is discarded. Sends to a closed peer are ignored.
// - poll() hands out events due at clock.now_us() in delivery-time order, ties in send
//   order. flush() does nothing.
// - Link parameters in force at a message's send time apply to it. Links are named by
//   endpoint names, so a re-created "client1" keeps its links. A handshake's reply uses
//   the parameters scheduled for the time it is sent.
// - peer_address(peer): "NAME:N", the far endpoint's name and its PeerId for the connection.
//
// Not thread-safe. Endpoints must be destroyed before the SimNetwork (asserted).
class SimNetwork {
  public:
    // Counters over the whole network. Invariant:
    // sent + duplicated == delivered + dropped + discarded + in_flight.
    struct Totals {
        std::uint64_t sent = 0;           // accepted send() calls
        std::uint64_t delivered = 0;      // message events handed out by poll()
        std::uint64_t dropped = 0;        // unreliable messages lost
        std::uint64_t duplicated = 0;     // extra copies created
        std::uint64_t retransmitted = 0;  // reliable messages delayed by at least one loss
        std::uint64_t discarded = 0;      // arrived at a closed connection or dead endpoint
        std::uint64_t in_flight = 0;      // messages queued and not yet handed out
    };

    SimNetwork(std::uint64_t seed, ManualClock& clock);
    ~SimNetwork();
    SimNetwork(const SimNetwork&) = delete;
    SimNetwork& operator=(const SimNetwork&) = delete;

    // A new endpoint named `name` (the address others connect() to). Owned by the caller;
    // must be destroyed before this SimNetwork. Names are unique among live endpoints;
    // a name may be reused once its endpoint is gone.
    std::unique_ptr<Transport> create_endpoint(const std::string& name);

    // Parameters for every direction that has none of its own, from now on.
    void set_default_link(LinkParams params);
    // Parameters for the direction from -> to, from now on (the endpoints need not exist).
    void set_link(const std::string& from, const std::string& to, LinkParams params);
    // Parameters for from -> to for messages sent at or after `at` (microseconds on the
    // clock's timeline). Changes for the same time apply in call order.
    void schedule_link_change(Micros at, const std::string& from, const std::string& to,
                              LinkParams params);
    // The parameters from -> to in force at time `at`.
    LinkParams link_params(const std::string& from, const std::string& to, Micros at) const;

    // The one-way delay an unreliable message sent from -> to at time `send_time` gets on
    // this trace (the first one sent that microsecond: the same roll, spike included),
    // ignoring loss and bandwidth: the path itself, for the path floor (SimResult::path_floor).
    Micros path_delay(const std::string& from, const std::string& to, Micros send_time);
    // Whether the link from -> to is in a burst (its bad state) at time `at`.
    bool in_burst(const std::string& from, const std::string& to, Micros at);

    // Earliest time any live endpoint has something queued (maybe already past; maybe a
    // message poll() will discard because its connection closed), or nullopt. A driver
    // sets the clock to it instead of ticking, and must poll every live endpoint.
    std::optional<Micros> next_delivery_time() const;
    // The same over the endpoints whose next datagram is not due before `now`: a driver that
    // polled every endpoint at `now` leaves only a stopped process's datagrams due earlier
    // (waking for them would spin); one due at `now` itself was sent after its reader polled.
    std::optional<Micros> next_delivery_time_from(Micros now) const;

    Totals totals() const { return m_totals; }

    // Sees every message an endpoint sends on a live connection (before loss is rolled):
    // the send time, sender's and receiver's names, the channel and the payload. For
    // capturing real traffic (tests/fuzz/capture_corpus.cpp); empty by default.
    using Tap = std::function<void(Micros at, const std::string& from, const std::string& to,
                                   Channel, std::span<const std::uint8_t>)>;
    void set_tap(Tap tap) { m_tap = std::move(tap); }

  private:
    class Endpoint;
    friend class Endpoint;

    // Key slots per link: one per channel plus one for handshake/teardown packets, so
    // connection churn never shifts the rolls of data messages.
    static constexpr int kKeySlots = kChannelCount + 1;
    static constexpr int kHandshakeSlot = kChannelCount;

    struct LinkChange {
        Micros at;
        LinkParams params;
    };
    struct LinkState {
        std::vector<LinkChange> changes;  // sorted by `at`; before the first: the default
        std::array<std::uint64_t, kKeySlots> base_key{};  // hash(seed, link names, slot)
        std::uint64_t burst_key = 0;                      // hash(seed, link names): its bursts
        std::array<Micros, kKeySlots> counter_time{};     // send time `counter` counts for
        std::array<std::uint64_t, kKeySlots> counter{};   // messages sent at counter_time
        Micros busy_until = 0;                            // bandwidth queue
    };
    struct Side {
        std::uint32_t endpoint = 0;
        PeerId peer = 0;
        bool closed = false;
        Micros connected_at = 0;  // nothing is delivered to this side earlier
        PeerStats stats;
    };
    struct Connection {
        std::array<Side, 2> side;          // 0 = caller, 1 = target
        std::array<LinkState*, 2> link{};  // [d]: from side d to side 1 - d
        std::array<std::array<Micros, kChannelCount>, 2> last_ordered{};  // per direction
        bool target_exists = true;
    };
    enum class Kind : std::uint8_t { kMessage, kConnected, kDisconnected };
    struct Pending {
        Micros time;
        std::uint64_t seq;  // global send order: breaks ties
        std::uint32_t connection;
        std::uint32_t slot;  // payload slot, messages only
        Kind kind;
        Channel channel;
        std::uint8_t side;  // receiving side of the connection
    };
    struct PeerRef {
        std::uint32_t connection;
        std::uint8_t side;
    };
    struct EndpointState {
        std::string name;
        bool alive = true;
        std::vector<Pending> queue;  // min-heap on (time, seq)
        std::vector<PeerRef> peers;  // PeerId p is peers[p - 1]
    };
    struct Transit {
        Micros arrival = 0;
        bool lost = false;
        int retransmits = 0;
        std::optional<Micros> duplicate_arrival;
    };

    // Called by Endpoint.
    Result<PeerId> connect(std::uint32_t endpoint, const std::string& address);
    void send(std::uint32_t endpoint, PeerId peer, Channel channel,
              std::span<const std::uint8_t> data);
    std::optional<TransportEvent> poll(std::uint32_t endpoint);
    void disconnect(std::uint32_t endpoint, PeerId peer);
    PeerStats stats(std::uint32_t endpoint, PeerId peer) const;
    std::string peer_address(std::uint32_t endpoint, PeerId peer) const;
    void destroy_endpoint(std::uint32_t endpoint);

    LinkState& link_state(const std::string& from, const std::string& to);
    const LinkParams& params_at(const LinkState& link, Micros at) const;
    std::uint64_t message_key(LinkState& link, int slot, Micros send_time);
    bool bad_at(const LinkState& link, Micros at) const;
    Transit plan_transit(LinkState& link, const LinkState& reverse, int slot, Micros send_time,
                         std::uint64_t wire_bytes, bool reliable);
    const PeerRef* find_peer(std::uint32_t endpoint, PeerId peer) const;
    // The connection an endpoint's peer stands for, the endpoint's side of it and the other.
    struct Ends {
        std::uint32_t connection;
        int from, to;
    };
    std::optional<Ends> ends_of(std::uint32_t endpoint, PeerId peer) const;
    PeerId add_peer(std::uint32_t endpoint, std::uint32_t connection, std::uint8_t side);
    void push(std::uint32_t endpoint, const Pending& pending);
    std::uint32_t store_payload(std::span<const std::uint8_t> data);
    void release_payload(std::uint32_t slot);

    std::uint64_t m_seed;
    ManualClock& m_clock;
    LinkParams m_default;
    std::map<std::pair<std::string, std::string>, LinkState> m_links;  // node-stable
    std::map<std::string, std::uint32_t> m_by_name;                    // live endpoints
    std::vector<EndpointState> m_endpoints;  // index = endpoint id, never reused
    std::vector<Connection> m_connections;
    std::vector<std::vector<std::uint8_t>> m_payloads;  // slots keep their capacity
    std::vector<std::uint32_t> m_free_payloads;
    std::uint64_t m_next_seq = 0;
    std::size_t m_live_endpoints = 0;
    Totals m_totals;
    Tap m_tap;
};

}  // namespace framelock::netplay
