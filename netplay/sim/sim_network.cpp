#include "netplay/sim/sim_network.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace framelock::netplay {
namespace {

// splitmix64's finaliser: bijective and well mixed, so nearby inputs (consecutive send
// times, counters) give unrelated outputs.
std::uint64_t mix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// Order-sensitive: combine(combine(s, a), b) != combine(combine(s, b), a).
std::uint64_t combine(std::uint64_t h, std::uint64_t value) {
    return mix64(h ^ mix64(value));
}

// Uniform in [0, 1) from the top 53 bits.
double unit_interval(std::uint64_t h) {
    return static_cast<double>(h >> 11) * 0x1.0p-53;
}

// FNV-1a over "from\0to", mixed. Names, not endpoint indices, so the key of a link does
// not depend on the order endpoints were created in.
std::uint64_t hash_link_names(const std::string& from, const std::string& to) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    auto feed = [&h](unsigned char c) {
        h ^= c;
        h *= 0x100000001b3ULL;
    };
    for (char c : from) feed(static_cast<unsigned char>(c));
    feed(0);
    for (char c : to) feed(static_cast<unsigned char>(c));
    return mix64(h);
}

// Which roll a hash value feeds; each message key is split into independent rolls.
enum DrawSalt : std::uint64_t {
    kJitterSalt = 1,
    kLossSalt = 2,
    kDuplicateSalt = 3,
    kDuplicateJitterSalt = 4,
    kSpikeSalt = 5,
    kSpikeSizeSalt = 6,
    kRetransmitSalt = 16,  // + attempt number
};

constexpr Micros kMinRetransmitDelay = 50'000;
constexpr int kMaxRetransmits = 16;

Micros one_way_delay(const LinkParams& p, std::uint64_t roll) {
    Micros delay = p.latency_us;
    if (p.jitter_us > 0) {
        const auto span = static_cast<std::uint64_t>(p.jitter_us) * 2 + 1;
        delay += static_cast<Micros>(roll % span) - p.jitter_us;
    }
    return std::max<Micros>(delay, 0);
}

// The spike a message with this key gets (LinkParams::spike): mostly none; else a Pareto
// draw from spike_us up, bounded.
Micros spike_delay(const LinkParams& p, std::uint64_t key) {
    if (p.spike <= 0 || p.spike_us <= 0) return 0;
    if (unit_interval(combine(key, kSpikeSalt)) >= p.spike) return 0;
    const double u = unit_interval(combine(key, kSpikeSizeSalt));
    const double scale = std::min(std::pow(1.0 - u, -1.0 / kSpikeShape), kSpikeCap);
    return static_cast<Micros>(static_cast<double>(p.spike_us) * scale);
}

// Latency, jitter and spike of an unreliable message with this key.
Micros path_of(const LinkParams& p, std::uint64_t key) {
    return one_way_delay(p, combine(key, kJitterSalt)) + spike_delay(p, key);
}

Micros floor_div(Micros a, Micros b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

bool is_reliable(Channel channel) {
    return channel != Channel::kInput;
}

}  // namespace

// The Transport handed to callers: a handle that forwards to the network's tables.
class SimNetwork::Endpoint final : public Transport {
  public:
    Endpoint(SimNetwork& network, std::uint32_t index) : m_network(network), m_index(index) {}
    ~Endpoint() override { m_network.destroy_endpoint(m_index); }
    Endpoint(const Endpoint&) = delete;
    Endpoint& operator=(const Endpoint&) = delete;

    Result<PeerId> connect(const std::string& address) override {
        return m_network.connect(m_index, address);
    }
    void send(PeerId peer, Channel channel, std::span<const std::uint8_t> data) override {
        m_network.send(m_index, peer, channel, data);
    }
    std::optional<TransportEvent> poll() override { return m_network.poll(m_index); }
    void flush() override {}
    void disconnect(PeerId peer) override { m_network.disconnect(m_index, peer); }
    PeerStats stats(PeerId peer) const override { return m_network.stats(m_index, peer); }
    std::string peer_address(PeerId peer) const override {
        return m_network.peer_address(m_index, peer);
    }

  private:
    SimNetwork& m_network;
    std::uint32_t m_index;
};

SimNetwork::SimNetwork(std::uint64_t seed, ManualClock& clock) : m_seed(seed), m_clock(clock) {}

SimNetwork::~SimNetwork() {
    // Endpoints hold a reference to this network.
    assert(m_live_endpoints == 0 && "destroy every SimNetwork endpoint before the network");
}

std::unique_ptr<Transport> SimNetwork::create_endpoint(const std::string& name) {
    assert(m_by_name.find(name) == m_by_name.end() && "endpoint names must be unique");
    const auto index = static_cast<std::uint32_t>(m_endpoints.size());
    m_endpoints.push_back(EndpointState{name, true, {}, {}});
    m_by_name[name] = index;
    ++m_live_endpoints;
    return std::make_unique<Endpoint>(*this, index);
}

void SimNetwork::set_default_link(LinkParams params) {
    m_default = params;
}

void SimNetwork::set_link(const std::string& from, const std::string& to, LinkParams params) {
    schedule_link_change(m_clock.now_us(), from, to, params);
}

void SimNetwork::schedule_link_change(Micros at, const std::string& from, const std::string& to,
                                      LinkParams params) {
    auto& changes = link_state(from, to).changes;
    const auto pos = std::upper_bound(changes.begin(), changes.end(), at,
                                      [](Micros t, const LinkChange& c) { return t < c.at; });
    changes.insert(pos, LinkChange{at, params});
}

LinkParams SimNetwork::link_params(const std::string& from, const std::string& to,
                                   Micros at) const {
    const auto it = m_links.find({from, to});
    return it == m_links.end() ? m_default : params_at(it->second, at);
}

Micros SimNetwork::path_delay(const std::string& from, const std::string& to, Micros send_time) {
    LinkState& link = link_state(from, to);
    const int slot = static_cast<int>(Channel::kInput);
    const std::uint64_t key =
        combine(combine(link.base_key[slot], static_cast<std::uint64_t>(send_time)), 0);
    return path_of(params_at(link, send_time), key);
}

bool SimNetwork::in_burst(const std::string& from, const std::string& to, Micros at) {
    return bad_at(link_state(from, to), at);
}

bool SimNetwork::bad_at(const LinkState& link, Micros at) const {
    const LinkParams& p = params_at(link, at);
    if (p.burst_loss <= 0 || p.burst_us <= 0) return false;
    const Micros slot_us = std::max<Micros>(1, p.burst_us / kBurstSlotsPerBurst);
    const Micros slot = floor_div(at, slot_us);
    // A period covers d slots past its start with probability stay^d; `reach` is the slots one
    // covers on average, and starts in each slot with probability `start` leave a slot
    // uncovered with probability prod(1 - start stay^d) ~ exp(-start reach) = 1 - burst_loss.
    constexpr double stay = 1.0 - 1.0 / kBurstSlotsPerBurst;
    const double reach = (1.0 - std::pow(stay, kBurstMaxSlots)) / (1.0 - stay);
    const double start = -std::log1p(-std::min(p.burst_loss, 0.999)) / reach;
    const std::uint64_t key = combine(link.burst_key, static_cast<std::uint64_t>(slot_us));
    for (int d = 0; d < kBurstMaxSlots; ++d) {
        const double u = unit_interval(combine(key, static_cast<std::uint64_t>(slot - d)));
        if (u >= start) continue;
        // Given a start, u / start is uniform in [0, 1): the same hash gives the length, and
        // the period still covers this slot with probability stay^d.
        if (d == 0 || std::log(u / start) < d * std::log(stay)) return true;
    }
    return false;
}

std::optional<Micros> SimNetwork::next_delivery_time() const {
    return next_delivery_time_from(std::numeric_limits<Micros>::min());
}

std::optional<Micros> SimNetwork::next_delivery_time_from(Micros now) const {
    std::optional<Micros> earliest;
    for (const EndpointState& e : m_endpoints) {
        if (!e.alive || e.queue.empty() || e.queue.front().time < now) continue;
        const Micros t = e.queue.front().time;
        if (!earliest || t < *earliest) earliest = t;
    }
    return earliest;
}

SimNetwork::LinkState& SimNetwork::link_state(const std::string& from, const std::string& to) {
    auto [it, inserted] = m_links.try_emplace({from, to});
    LinkState& link = it->second;
    if (inserted) {
        const std::uint64_t link_key = combine(m_seed, hash_link_names(from, to));
        for (int slot = 0; slot < kKeySlots; ++slot) {
            link.base_key[slot] = combine(link_key, static_cast<std::uint64_t>(slot));
            link.counter_time[slot] = std::numeric_limits<Micros>::min();
        }
        link.burst_key = combine(link_key, ~std::uint64_t{0});
    }
    return link;
}

const LinkParams& SimNetwork::params_at(const LinkState& link, Micros at) const {
    const auto& changes = link.changes;
    auto it = std::upper_bound(changes.begin(), changes.end(), at,
                               [](Micros t, const LinkChange& c) { return t < c.at; });
    return it == changes.begin() ? m_default : std::prev(it)->params;
}

std::uint64_t SimNetwork::message_key(LinkState& link, int slot, Micros send_time) {
    // n = how many messages this link and slot already carried at this very microsecond.
    if (link.counter_time[slot] != send_time) {
        link.counter_time[slot] = send_time;
        link.counter[slot] = 0;
    }
    const std::uint64_t n = link.counter[slot]++;
    return combine(combine(link.base_key[slot], static_cast<std::uint64_t>(send_time)), n);
}

SimNetwork::Transit SimNetwork::plan_transit(LinkState& link, const LinkState& reverse, int slot,
                                             Micros send_time, std::uint64_t wire_bytes,
                                             bool reliable) {
    const LinkParams p = params_at(link, send_time);
    const std::uint64_t key = message_key(link, slot, send_time);

    Micros departed = send_time;  // last bit on the wire
    if (p.bandwidth_bps > 0 && wire_bytes > 0) {
        const std::uint64_t bits_us = wire_bytes * 8 * 1'000'000;
        const auto serialise =
            static_cast<Micros>((bits_us + p.bandwidth_bps - 1) / p.bandwidth_bps);
        departed = std::max(send_time, link.busy_until) + serialise;
        link.busy_until = departed;
    }

    Transit transit;
    transit.arrival = departed + path_of(p, key);
    const bool lost = unit_interval(combine(key, kLossSalt)) < p.loss || bad_at(link, send_time);
    if (reliable) {
        if (lost) {
            const Micros rtt = p.latency_us + params_at(reverse, send_time).latency_us;
            const Micros retransmit_delay = std::max(2 * rtt, kMinRetransmitDelay);
            bool lost_again = true;
            while (lost_again && transit.retransmits < kMaxRetransmits) {
                ++transit.retransmits;
                transit.arrival += retransmit_delay;
                const auto salt = kRetransmitSalt + static_cast<std::uint64_t>(transit.retransmits);
                lost_again = unit_interval(combine(key, salt)) < p.loss ||
                             bad_at(link, send_time + transit.retransmits * retransmit_delay);
            }
        }
        return transit;
    }
    transit.lost = lost;
    if (!lost && unit_interval(combine(key, kDuplicateSalt)) < p.duplicate) {
        transit.duplicate_arrival = departed + one_way_delay(p, combine(key, kDuplicateJitterSalt));
    }
    return transit;
}

const SimNetwork::PeerRef* SimNetwork::find_peer(std::uint32_t endpoint, PeerId peer) const {
    const auto& peers = m_endpoints[endpoint].peers;
    if (peer == 0 || peer > peers.size()) return nullptr;
    return &peers[peer - 1];
}

std::optional<SimNetwork::Ends> SimNetwork::ends_of(std::uint32_t endpoint, PeerId peer) const {
    const PeerRef* ref = find_peer(endpoint, peer);
    if (ref == nullptr) return std::nullopt;
    return Ends{ref->connection, ref->side, 1 - ref->side};
}

PeerId SimNetwork::add_peer(std::uint32_t endpoint, std::uint32_t connection, std::uint8_t side) {
    auto& peers = m_endpoints[endpoint].peers;
    peers.push_back(PeerRef{connection, side});
    return static_cast<PeerId>(peers.size());
}

namespace {
struct LaterFirst {
    template <class P>
    bool operator()(const P& a, const P& b) const {
        return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
};
}  // namespace

void SimNetwork::push(std::uint32_t endpoint, const Pending& pending) {
    EndpointState& e = m_endpoints[endpoint];
    if (!e.alive) {
        if (pending.kind == Kind::kMessage) {
            release_payload(pending.slot);
            ++m_totals.discarded;
        }
        return;
    }
    if (pending.kind == Kind::kMessage) ++m_totals.in_flight;
    e.queue.push_back(pending);
    std::push_heap(e.queue.begin(), e.queue.end(), LaterFirst{});
}

std::uint32_t SimNetwork::store_payload(std::span<const std::uint8_t> data) {
    std::uint32_t slot;
    if (!m_free_payloads.empty()) {
        slot = m_free_payloads.back();
        m_free_payloads.pop_back();
    } else {
        slot = static_cast<std::uint32_t>(m_payloads.size());
        m_payloads.emplace_back();
    }
    m_payloads[slot].assign(data.begin(), data.end());  // reuses the slot's capacity
    return slot;
}

void SimNetwork::release_payload(std::uint32_t slot) {
    m_free_payloads.push_back(slot);
}

Result<PeerId> SimNetwork::connect(std::uint32_t endpoint, const std::string& address) {
    const Micros now = m_clock.now_us();
    const auto index = static_cast<std::uint32_t>(m_connections.size());
    m_connections.emplace_back();
    Connection& c = m_connections.back();
    c.side[0].endpoint = endpoint;
    const PeerId peer = add_peer(endpoint, index, 0);
    c.side[0].peer = peer;

    const auto target = m_by_name.find(address);
    if (target == m_by_name.end()) {
        c.target_exists = false;
        push(endpoint,
             Pending{now, m_next_seq++, index, 0, Kind::kDisconnected, Channel::kControl, 0});
        return peer;
    }

    const std::string& from = m_endpoints[endpoint].name;
    c.link[0] = &link_state(from, address);
    c.link[1] = &link_state(address, from);
    c.side[1].endpoint = target->second;
    c.side[1].peer = add_peer(target->second, index, 1);

    // Request, then reply sent the moment the request lands; both are reliable control.
    const auto control = static_cast<std::size_t>(Channel::kControl);
    const Micros request =
        plan_transit(*c.link[0], *c.link[1], kHandshakeSlot, now, 0, true).arrival;
    const Micros reply =
        plan_transit(*c.link[1], *c.link[0], kHandshakeSlot, request, 0, true).arrival;
    c.side[1].connected_at = request;
    c.side[0].connected_at = reply;
    c.last_ordered[0][control] = request;
    c.last_ordered[1][control] = reply;
    push(c.side[1].endpoint,
         Pending{request, m_next_seq++, index, 0, Kind::kConnected, Channel::kControl, 1});
    push(endpoint, Pending{reply, m_next_seq++, index, 0, Kind::kConnected, Channel::kControl, 0});
    return peer;
}

void SimNetwork::send(std::uint32_t endpoint, PeerId peer, Channel channel,
                      std::span<const std::uint8_t> data) {
    const std::optional<Ends> ends = ends_of(endpoint, peer);
    if (!ends) return;
    const auto [index, from, to] = *ends;
    Connection& c = m_connections[index];
    if (c.side[from].closed || !c.target_exists) return;

    const Micros now = m_clock.now_us();
    if (m_tap) {
        m_tap(now, m_endpoints[endpoint].name, m_endpoints[c.side[to].endpoint].name, channel,
              data);
    }
    const std::uint64_t wire_bytes = data.size() + kSimWireOverheadBytes;
    PeerStats& sender = c.side[from].stats;
    sender.wire_bytes_sent += wire_bytes;
    sender.datagrams_sent += 1;
    sender.payload_bytes_sent += data.size();
    ++m_totals.sent;

    const bool reliable = is_reliable(channel);
    const auto ch = static_cast<std::size_t>(channel);
    const Transit transit =
        plan_transit(*c.link[from], *c.link[to], static_cast<int>(ch), now, wire_bytes, reliable);
    if (transit.lost) {
        ++m_totals.dropped;
        return;
    }
    const Micros floor = c.side[to].connected_at;
    Micros arrival = std::max(transit.arrival, floor);
    if (reliable) {
        // Ordered: never before the previous message on this channel (ties go by seq).
        arrival = std::max(arrival, c.last_ordered[from][ch]);
        c.last_ordered[from][ch] = arrival;
        if (transit.retransmits > 0) ++m_totals.retransmitted;
    }
    const auto side = static_cast<std::uint8_t>(to);
    const std::uint32_t receiver = c.side[to].endpoint;
    push(receiver,
         Pending{arrival, m_next_seq++, index, store_payload(data), Kind::kMessage, channel, side});
    if (transit.duplicate_arrival) {
        ++m_totals.duplicated;
        const Micros again = std::max(*transit.duplicate_arrival, floor);
        push(receiver, Pending{again, m_next_seq++, index, store_payload(data), Kind::kMessage,
                               channel, side});
    }
}

std::optional<TransportEvent> SimNetwork::poll(std::uint32_t endpoint) {
    EndpointState& e = m_endpoints[endpoint];
    const Micros now = m_clock.now_us();
    while (!e.queue.empty() && e.queue.front().time <= now) {
        std::pop_heap(e.queue.begin(), e.queue.end(), LaterFirst{});
        const Pending p = e.queue.back();
        e.queue.pop_back();
        Side& side = m_connections[p.connection].side[p.side];
        if (p.kind == Kind::kMessage) --m_totals.in_flight;
        if (side.closed) {
            if (p.kind == Kind::kMessage) {
                release_payload(p.slot);
                ++m_totals.discarded;
            }
            continue;
        }
        TransportEvent event;
        event.peer = side.peer;
        event.channel = p.channel;
        switch (p.kind) {
            case Kind::kConnected:
                event.type = TransportEvent::Type::kConnected;
                break;
            case Kind::kDisconnected:
                event.type = TransportEvent::Type::kDisconnected;
                side.closed = true;
                break;
            case Kind::kMessage: {
                event.type = TransportEvent::Type::kMessage;
                const std::vector<std::uint8_t>& payload = m_payloads[p.slot];
                event.data.assign(payload.begin(), payload.end());
                release_payload(p.slot);
                side.stats.wire_bytes_received += payload.size() + kSimWireOverheadBytes;
                side.stats.datagrams_received += 1;
                side.stats.payload_bytes_received += payload.size();
                ++m_totals.delivered;
                break;
            }
        }
        return event;
    }
    return std::nullopt;
}

void SimNetwork::disconnect(std::uint32_t endpoint, PeerId peer) {
    const std::optional<Ends> ends = ends_of(endpoint, peer);
    if (!ends) return;
    const auto [index, from, to] = *ends;
    Connection& c = m_connections[index];
    if (c.side[from].closed) return;
    c.side[from].closed = true;
    if (!c.target_exists || c.side[to].closed) return;

    // Like ENet's disconnect: the notice goes out behind every reliable message queued.
    Micros arrival =
        plan_transit(*c.link[from], *c.link[to], kHandshakeSlot, m_clock.now_us(), 0, true).arrival;
    for (Micros last : c.last_ordered[from]) arrival = std::max(arrival, last);
    arrival = std::max(arrival, c.side[to].connected_at);
    push(c.side[to].endpoint, Pending{arrival, m_next_seq++, index, 0, Kind::kDisconnected,
                                      Channel::kControl, static_cast<std::uint8_t>(to)});
}

PeerStats SimNetwork::stats(std::uint32_t endpoint, PeerId peer) const {
    const PeerRef* ref = find_peer(endpoint, peer);
    if (ref == nullptr) return {};
    return m_connections[ref->connection].side[ref->side].stats;
}

std::string SimNetwork::peer_address(std::uint32_t endpoint, PeerId peer) const {
    const PeerRef* ref = find_peer(endpoint, peer);
    if (ref == nullptr) return {};
    // The far side's name as the host, its connection number there as the port: several
    // connections from one endpoint share a host, as several from one machine do.
    const Side& other = m_connections[ref->connection].side[1 - ref->side];
    return m_endpoints[other.endpoint].name + ":" + std::to_string(other.peer);
}

void SimNetwork::destroy_endpoint(std::uint32_t endpoint) {
    EndpointState& e = m_endpoints[endpoint];
    for (PeerId peer = 1; peer <= e.peers.size(); ++peer) disconnect(endpoint, peer);
    for (const Pending& p : e.queue) {
        if (p.kind != Kind::kMessage) continue;
        release_payload(p.slot);
        --m_totals.in_flight;
        ++m_totals.discarded;
    }
    e.queue.clear();
    e.queue.shrink_to_fit();
    e.alive = false;
    const auto it = m_by_name.find(e.name);
    if (it != m_by_name.end() && it->second == endpoint) m_by_name.erase(it);
    --m_live_endpoints;
}

}  // namespace framelock::netplay
