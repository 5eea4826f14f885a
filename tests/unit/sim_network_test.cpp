#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "netplay/sim/sim_network.h"

using namespace framelock::netplay;
using Type = TransportEvent::Type;

namespace {

// Payloads carry an id and the send time, little-endian, so a receiver can measure latency.
std::vector<std::uint8_t> stamp(std::uint64_t id, Micros sent, std::size_t size = 16) {
    std::vector<std::uint8_t> bytes(std::max<std::size_t>(size, 16), 0);
    for (int i = 0; i < 8; ++i) {
        bytes[i] = static_cast<std::uint8_t>(id >> (8 * i));
        bytes[8 + i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(sent) >> (8 * i));
    }
    return bytes;
}
std::uint64_t read_u64(const std::vector<std::uint8_t>& bytes, int at) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{bytes[at + i]} << (8 * i);
    return v;
}
std::uint64_t id_of(const TransportEvent& e) {
    return read_u64(e.data, 0);
}
Micros sent_of(const TransportEvent& e) {
    return static_cast<Micros>(read_u64(e.data, 8));
}

struct Logged {
    Micros at;
    int endpoint;
    TransportEvent event;
};

// Drives a set of endpoints: jumps the clock from delivery to delivery, polling everyone.
class Driver {
  public:
    Driver(SimNetwork& net, ManualClock& clock) : m_net(net), m_clock(clock) {}
    void add(Transport& t) { m_endpoints.push_back(&t); }
    // Call before destroying an endpoint; the others keep their indices.
    void remove(Transport& t) {
        std::replace(m_endpoints.begin(), m_endpoints.end(), &t, static_cast<Transport*>(nullptr));
    }

    void drain() {
        for (std::size_t i = 0; i < m_endpoints.size(); ++i) {
            if (m_endpoints[i] == nullptr) continue;
            while (auto e = m_endpoints[i]->poll()) {
                log.push_back(Logged{m_clock.now_us(), static_cast<int>(i), std::move(*e)});
            }
        }
    }
    // Everything due up to and including `until`; leaves the clock at `until`.
    void run_until(Micros until) {
        drain();
        while (auto next = m_net.next_delivery_time()) {
            if (*next > until) break;
            // Still due after a drain: an endpoint this driver does not poll would stall us.
            if (*next <= m_clock.now_us()) FAIL("an endpoint outside the driver has events due");
            m_clock.set(*next);
            drain();
        }
        m_clock.set(until);
        drain();
    }
    std::vector<Logged> messages_to(int endpoint) const {
        std::vector<Logged> out;
        for (const Logged& l : log) {
            if (l.endpoint == endpoint && l.event.type == Type::kMessage) out.push_back(l);
        }
        return out;
    }

    std::vector<Logged> log;

  private:
    SimNetwork& m_net;
    ManualClock& m_clock;
    std::vector<Transport*> m_endpoints;
};

struct Pair {
    PeerId client_peer;  // the server, as the client sees it
    PeerId server_peer;  // the client, as the server sees it
};

// Connects client (endpoint index 1 in the driver) to "server" (index 0) and runs until
// both sides saw kConnected.
Pair connect(Driver& driver, Transport& client, const char* server = "server") {
    auto peer = client.connect(server);
    REQUIRE(peer.ok());
    const std::size_t start = driver.log.size();
    driver.run_until(10'000'000);
    Pair pair{peer.value(), 0};
    for (std::size_t i = start; i < driver.log.size(); ++i) {
        const Logged& l = driver.log[i];
        if (l.event.type == Type::kConnected && l.endpoint == 0) pair.server_peer = l.event.peer;
    }
    REQUIRE(pair.server_peer != 0);
    return pair;
}

// The usual rig: a client connected to "server" over one link (set before the endpoints
// exist), both driven by `d` (endpoint 0 = server, 1 = client). Tests bind its members by
// name: auto& [clock, net, server, client, d, pair] = rig.
struct ClientServer {
    ClientServer(std::uint64_t seed, LinkParams link) : net(seed, clock) {
        net.set_default_link(link);
        server = net.create_endpoint("server");
        client = net.create_endpoint("client");
        d.add(*server);
        d.add(*client);
        pair = connect(d, *client);
    }
    ManualClock clock;
    SimNetwork net;
    std::unique_ptr<Transport> server, client;  // destroyed before net, as it requires
    Driver d{net, clock};
    Pair pair{};
};

double mean(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// A busy scenario used by the determinism tests: two clients, jitter, loss, duplicates,
// all three channels. Returns the whole event log.
std::vector<Logged> busy_run(std::uint64_t seed) {
    ManualClock clock;
    SimNetwork net(seed, clock);
    net.set_default_link({20'000, 8'000, 0.05, 0.02, 0});
    auto server = net.create_endpoint("server");
    auto c1 = net.create_endpoint("client1");
    auto c2 = net.create_endpoint("client2");
    Driver d(net, clock);
    d.add(*server);
    d.add(*c1);
    d.add(*c2);
    const PeerId p1 = c1->connect("server").value();
    const PeerId p2 = c2->connect("server").value();
    d.run_until(100'000);
    for (int i = 0; i < 600; ++i) {
        const Micros t = 100'000 + i * 16'667;
        d.run_until(t);
        c1->send(p1, Channel::kInput, stamp(i, t));
        c2->send(p2, Channel::kInput, stamp(10'000 + i, t));
        if (i % 10 == 0) c1->send(p1, Channel::kControl, stamp(20'000 + i, t));
        for (PeerId p : {1u, 2u}) server->send(p, Channel::kInput, stamp(30'000 + i, t));
    }
    d.run_until(20'000'000);
    return d.log;
}

bool same_log(const std::vector<Logged>& a, const std::vector<Logged>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].at != b[i].at || a[i].endpoint != b[i].endpoint ||
            a[i].event.type != b[i].event.type || a[i].event.peer != b[i].event.peer ||
            a[i].event.channel != b[i].event.channel || a[i].event.data != b[i].event.data) {
            return false;
        }
    }
    return true;
}

}  // namespace

TEST_CASE("SimNetwork: connect handshake takes one way for the target, a round trip for the caller",
          "[netplay][sim]") {
    ManualClock clock(1'000);
    SimNetwork net(1, clock);
    net.set_link("client", "server", {10'000, 0, 0.0, 0.0, 0});
    net.set_link("server", "client", {30'000, 0, 0.0, 0.0, 0});
    auto server = net.create_endpoint("server");
    auto client = net.create_endpoint("client");

    auto peer = client->connect("server");
    REQUIRE(peer.ok());
    CHECK(peer.value() == 1);
    REQUIRE(net.next_delivery_time() == 11'000);

    clock.set(10'999);
    CHECK_FALSE(server->poll());
    clock.set(11'000);
    auto at_server = server->poll();
    REQUIRE(at_server);
    CHECK(at_server->type == Type::kConnected);
    CHECK(at_server->peer == 1);
    CHECK_FALSE(client->poll());

    REQUIRE(net.next_delivery_time() == 41'000);
    clock.set(40'999);
    CHECK_FALSE(client->poll());
    clock.set(41'000);
    auto at_client = client->poll();
    REQUIRE(at_client);
    CHECK(at_client->type == Type::kConnected);
    CHECK(at_client->peer == peer.value());
    CHECK_FALSE(net.next_delivery_time());
}

TEST_CASE("SimNetwork: PeerIds are per endpoint and count from 1", "[netplay][sim]") {
    ManualClock clock;
    SimNetwork net(1, clock);
    net.set_default_link({5'000, 0, 0.0, 0.0, 0});
    auto server = net.create_endpoint("server");
    std::vector<std::unique_ptr<Transport>> clients;
    Driver d(net, clock);
    d.add(*server);
    for (int i = 1; i <= 8; ++i) {
        clients.push_back(net.create_endpoint("client" + std::to_string(i)));
        d.add(*clients.back());
        CHECK(clients.back()->connect("server").value() == 1);
        clock.advance(1'000);  // connect in order, so they arrive in order
    }
    d.run_until(1'000'000);
    std::vector<PeerId> server_peers;
    for (const Logged& l : d.log) {
        if (l.endpoint == 0 && l.event.type == Type::kConnected)
            server_peers.push_back(l.event.peer);
    }
    CHECK(server_peers == std::vector<PeerId>{1, 2, 3, 4, 5, 6, 7, 8});
}

TEST_CASE("SimNetwork: connecting to an unknown name reports kDisconnected", "[netplay][sim]") {
    ManualClock clock(500);
    SimNetwork net(1, clock);
    auto client = net.create_endpoint("client");
    auto peer = client->connect("nobody");
    REQUIRE(peer.ok());
    auto e = client->poll();
    REQUIRE(e);
    CHECK(e->type == Type::kDisconnected);
    CHECK(e->peer == peer.value());
    client->send(peer.value(), Channel::kInput, stamp(1, 500));
    CHECK(net.totals().sent == 0);
    CHECK_FALSE(client->poll());
}

TEST_CASE("SimNetwork: with zero jitter the latency is exact", "[netplay][sim]") {
    ClientServer rig(7, {25'000, 0, 0.0, 0.0, 0});
    auto& [clock, net, server, client, d, pair] = rig;

    for (int i = 0; i < 100; ++i) {
        const Micros t = clock.now_us();
        client->send(pair.client_peer, Channel::kInput, stamp(i, t));
        if (i == 0) CHECK(net.next_delivery_time() == t + 25'000);
        d.run_until(t + 3'333);
    }
    d.run_until(clock.now_us() + 1'000'000);
    const auto got = d.messages_to(0);
    REQUIRE(got.size() == 100);
    for (std::size_t i = 0; i < got.size(); ++i) {
        CHECK(id_of(got[i].event) == i);
        CHECK(got[i].at - sent_of(got[i].event) == 25'000);
        CHECK(got[i].event.peer == pair.server_peer);
        CHECK(got[i].event.channel == Channel::kInput);
    }
}

TEST_CASE("SimNetwork: jitter stays in bounds with the expected mean", "[netplay][sim]") {
    ClientServer rig(11, {50'000, 10'000, 0.0, 0.0, 0});
    auto& [clock, net, server, client, d, pair] = rig;

    for (int i = 0; i < 10'000; ++i) {
        client->send(pair.client_peer, Channel::kInput, stamp(i, clock.now_us()));
        d.run_until(clock.now_us() + 1'000);
    }
    d.run_until(clock.now_us() + 1'000'000);
    const auto got = d.messages_to(0);
    REQUIRE(got.size() == 10'000);
    std::vector<double> latency;
    for (const Logged& l : got) latency.push_back(static_cast<double>(l.at - sent_of(l.event)));
    const auto [lo, hi] = std::minmax_element(latency.begin(), latency.end());
    CHECK(*lo >= 40'000);
    CHECK(*hi <= 60'000);
    CHECK(*lo < 40'100);  // the whole range is used
    CHECK(*hi > 59'900);
    CHECK(mean(latency) == Approx(50'000).epsilon(0.01));
    // Uniform on [-10 ms, +10 ms]: standard deviation 10 / sqrt(3) ms.
    double var = 0;
    for (double x : latency) var += (x - 50'000) * (x - 50'000);
    CHECK(std::sqrt(var / latency.size()) == Approx(10'000 / std::sqrt(3.0)).epsilon(0.03));
}

TEST_CASE("SimNetwork: jitter larger than the latency clamps at zero", "[netplay][sim]") {
    ClientServer rig(3, {1'000, 5'000, 0.0, 0.0, 0});
    auto& [clock, net, server, client, d, pair] = rig;
    for (int i = 0; i < 2'000; ++i) {
        client->send(pair.client_peer, Channel::kInput, stamp(i, clock.now_us()));
        d.run_until(clock.now_us() + 500);
    }
    d.run_until(clock.now_us() + 100'000);
    int zero = 0;
    for (const Logged& l : d.messages_to(0)) {
        const Micros lat = l.at - sent_of(l.event);
        CHECK(lat >= 0);
        CHECK(lat <= 6'000);
        zero += lat == 0;
    }
    // P(latency == 0) = 4001 / 10001 (every offset <= -1000 ms clamps).
    CHECK(zero == Approx(2'000 * 4'001.0 / 10'001).epsilon(0.1));
}

TEST_CASE("SimNetwork: unreliable loss rate matches the link", "[netplay][sim]") {
    ClientServer rig(99, {10'000, 2'000, 0.02, 0.0, 0});
    auto& [clock, net, server, client, d, pair] = rig;

    for (int i = 0; i < 20'000; ++i) {
        client->send(pair.client_peer, Channel::kInput, stamp(i, clock.now_us()));
        d.run_until(clock.now_us() + 1'000);
    }
    d.run_until(clock.now_us() + 1'000'000);
    const auto got = d.messages_to(0);
    const auto totals = net.totals();
    CHECK(totals.sent == 20'000);
    CHECK(totals.duplicated == 0);
    CHECK(totals.dropped + got.size() == 20'000);
    CHECK(totals.delivered == got.size());
    const double rate = static_cast<double>(totals.dropped) / 20'000.0;
    CHECK(rate > 0.015);
    CHECK(rate < 0.025);
}

TEST_CASE("SimNetwork: unreliable duplicates arrive as extra copies", "[netplay][sim]") {
    ClientServer rig(5, {10'000, 3'000, 0.0, 0.05, 0});
    auto& [clock, net, server, client, d, pair] = rig;

    for (int i = 0; i < 20'000; ++i) {
        client->send(pair.client_peer, Channel::kInput, stamp(i, clock.now_us()));
        d.run_until(clock.now_us() + 1'000);
    }
    d.run_until(clock.now_us() + 1'000'000);
    std::map<std::uint64_t, int> copies;
    for (const Logged& l : d.messages_to(0)) ++copies[id_of(l.event)];
    CHECK(copies.size() == 20'000);  // nothing lost
    int twice = 0;
    for (const auto& [id, n] : copies) {
        CHECK(n <= 2);
        twice += n == 2;
    }
    CHECK(static_cast<std::uint64_t>(twice) == net.totals().duplicated);
    CHECK(twice > 20'000 * 0.04);
    CHECK(twice < 20'000 * 0.06);
    CHECK(net.totals().delivered == 20'000 + static_cast<std::uint64_t>(twice));
}

TEST_CASE("SimNetwork: reliable channels lose nothing, keep order, and come late on loss",
          "[netplay][sim]") {
    ManualClock clock;
    SimNetwork net(2024, clock);
    // 30 ms each way, so a retransmission costs max(2 * 60 ms, 50 ms) = 120 ms.
    net.set_default_link({30'000, 5'000, 0.20, 0.30, 0});
    auto server = net.create_endpoint("server");
    auto client = net.create_endpoint("client");
    Driver d(net, clock);
    d.add(*server);
    d.add(*client);
    const Pair pair = connect(d, *client);

    const int n = 5'000;
    for (int i = 0; i < n; ++i) {
        client->send(pair.client_peer, Channel::kControl, stamp(i, clock.now_us()));
        client->send(pair.client_peer, Channel::kBulk, stamp(100'000 + i, clock.now_us(), 64));
        d.run_until(clock.now_us() + 2'000);
    }
    d.run_until(clock.now_us() + 60'000'000);

    std::vector<std::uint64_t> control, bulk;
    int late = 0;
    Micros worst = 0;
    Micros prev_at = 0;
    for (const Logged& l : d.messages_to(0)) {
        CHECK(l.at >= prev_at);
        prev_at = l.at;
        const Micros lat = l.at - sent_of(l.event);
        CHECK(lat >= 25'000);
        if (l.event.channel == Channel::kControl) control.push_back(id_of(l.event));
        if (l.event.channel == Channel::kBulk) bulk.push_back(id_of(l.event));
        // Later than jitter alone allows: retransmitted, or held behind one that was (2 ms
        // apart, most messages queue behind some 120 ms retransmission: head-of-line).
        late += lat > 35'000;
        worst = std::max(worst, lat);
    }
    std::vector<std::uint64_t> want_control(n), want_bulk(n);
    std::iota(want_control.begin(), want_control.end(), 0);
    std::iota(want_bulk.begin(), want_bulk.end(), 100'000);
    CHECK(control == want_control);
    CHECK(bulk == want_bulk);
    const auto totals = net.totals();
    CHECK(totals.dropped == 0);
    CHECK(totals.duplicated == 0);
    CHECK(totals.delivered == 2 * n);
    // 20 % of messages lose at least their first attempt.
    CHECK(totals.retransmitted > 2 * n * 0.17);
    CHECK(totals.retransmitted < 2 * n * 0.23);
    CHECK(late >= static_cast<int>(totals.retransmitted));
    CHECK(worst >= 25'000 + 120'000);  // at least one retransmission's worth
}

TEST_CASE("SimNetwork: a lost reliable message arrives one retransmission delay late",
          "[netplay][sim]") {
    ClientServer rig(8, {10'000, 0, 0.5, 0.0, 0});
    auto& [clock, net, server, client, d, pair] = rig;
    // Sent 1 s apart so ordering never holds one behind another: each latency is
    // 10 ms + k * max(2 * 20 ms, 50 ms) for k retransmissions.
    for (int i = 0; i < 400; ++i) {
        client->send(pair.client_peer, Channel::kControl, stamp(i, clock.now_us()));
        d.run_until(clock.now_us() + 1'000'000);
    }
    std::map<Micros, int> by_retransmits;
    for (const Logged& l : d.messages_to(0)) {
        const Micros extra = l.at - sent_of(l.event) - 10'000;
        CHECK(extra % 50'000 == 0);
        ++by_retransmits[extra / 50'000];
    }
    // Geometric with p = 1/2: about half on time, a quarter once late, ...
    CHECK(by_retransmits[0] == Approx(200).margin(30));
    CHECK(by_retransmits[1] == Approx(100).margin(25));
    CHECK(by_retransmits[2] == Approx(50).margin(20));
}

TEST_CASE("SimNetwork: unreliable messages reorder when jitter exceeds the send interval",
          "[netplay][sim]") {
    ClientServer rig(17, {20'000, 10'000, 0.0, 0.0, 0});
    auto& [clock, net, server, client, d, pair] = rig;
    for (int i = 0; i < 1'000; ++i) {
        client->send(pair.client_peer, Channel::kInput, stamp(i, clock.now_us()));
        d.run_until(clock.now_us() + 1'000);
    }
    d.run_until(clock.now_us() + 1'000'000);
    const auto got = d.messages_to(0);
    REQUIRE(got.size() == 1'000);
    int inversions = 0;
    for (std::size_t i = 1; i < got.size(); ++i) {
        inversions += id_of(got[i].event) < id_of(got[i - 1].event);
        CHECK(got[i].at >= got[i - 1].at);  // handed out in delivery-time order
    }
    CHECK(inversions > 200);
}

TEST_CASE("SimNetwork: ties in delivery time go in send order", "[netplay][sim]") {
    ClientServer rig(1, {10'000, 0, 0.0, 0.0, 0});
    auto& [clock, net, server, client, d, pair] = rig;
    for (int i = 0; i < 50; ++i) {
        const Channel ch =
            i % 3 == 0 ? Channel::kInput : (i % 3 == 1 ? Channel::kControl : Channel::kBulk);
        client->send(pair.client_peer, ch, stamp(i, clock.now_us()));
    }
    d.run_until(clock.now_us() + 10'000);
    const auto got = d.messages_to(0);
    REQUIRE(got.size() == 50);
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(id_of(got[i].event) == i);
}

TEST_CASE("SimNetwork: same seed gives the same run, another seed another", "[netplay][sim]") {
    const auto a = busy_run(42);
    const auto b = busy_run(42);
    const auto c = busy_run(43);
    CHECK(a.size() > 1'500);
    CHECK(same_log(a, b));
    CHECK_FALSE(same_log(a, c));
}

TEST_CASE("SimNetwork: a message's fate depends on its link and send time, not on other traffic",
          "[netplay][sim]") {
    // Run the same probe messages on client1 -> server twice; the second run adds traffic on
    // other links, on other channels of the same link, at other times, and creates the
    // endpoints in another order. Every probe must get the same latency and loss fate.
    auto run = [](bool extra_traffic) {
        ManualClock clock;
        SimNetwork net(77, clock);
        net.set_default_link({30'000, 15'000, 0.1, 0.1, 0});
        std::unique_ptr<Transport> server, c1, c2;
        if (extra_traffic) {
            c2 = net.create_endpoint("client2");
            server = net.create_endpoint("server");
            c1 = net.create_endpoint("client1");
        } else {
            server = net.create_endpoint("server");
            c1 = net.create_endpoint("client1");
            c2 = net.create_endpoint("client2");
        }
        Driver d(net, clock);
        d.add(*server);
        d.add(*c1);
        d.add(*c2);
        const PeerId p1 = c1->connect("server").value();
        const PeerId p2 = c2->connect("server").value();
        d.run_until(500'000);
        for (int i = 0; i < 2'000; ++i) {
            const Micros t = 500'000 + i * 5'000;
            if (extra_traffic) {
                d.run_until(t - 1'234);
                c1->send(p1, Channel::kInput, stamp(900'000 + i, clock.now_us()));
            }
            d.run_until(t);
            if (extra_traffic) {
                for (int k = 0; k < 1 + i % 3; ++k) {
                    c2->send(p2, Channel::kInput, stamp(800'000 + i, t));
                    c1->send(p1, Channel::kControl, stamp(700'000 + i, t));
                }
                server->send(1, Channel::kInput, stamp(600'000 + i, t));
            }
            // Two probes at the same instant: the per-instant counter tells them apart.
            c1->send(p1, Channel::kInput, stamp(i, t));
            c1->send(p1, Channel::kInput, stamp(10'000 + i, t));
        }
        d.run_until(60'000'000);
        std::multimap<std::uint64_t, Micros> probes;  // id -> latency, duplicates included
        for (const Logged& l : d.messages_to(0)) {
            if (l.event.channel == Channel::kInput && id_of(l.event) < 100'000) {
                probes.emplace(id_of(l.event), l.at - sent_of(l.event));
            }
        }
        return probes;
    };
    const auto quiet = run(false);
    const auto busy = run(true);
    CHECK(quiet.size() > 3'000);  // ~10 % lost, ~10 % duplicated
    CHECK(quiet.size() < 4'500);
    CHECK(quiet == busy);
}

TEST_CASE("SimNetwork: scheduled link changes apply from their time on", "[netplay][sim]") {
    ManualClock clock;
    SimNetwork net(1, clock);
    net.set_default_link({20'000, 0, 0.0, 0.0, 0});
    net.schedule_link_change(1'000'000, "client", "server", {150'000, 0, 0.0, 0.0, 0});
    net.schedule_link_change(2'000'000, "client", "server", {40'000, 0, 0.0, 0.0, 0});
    CHECK(net.link_params("client", "server", 999'999).latency_us == 20'000);
    CHECK(net.link_params("client", "server", 1'000'000).latency_us == 150'000);
    CHECK(net.link_params("server", "client", 1'500'000).latency_us == 20'000);
    auto server = net.create_endpoint("server");
    auto client = net.create_endpoint("client");
    Driver d(net, clock);
    d.add(*server);
    d.add(*client);
    const Pair pair = connect(d, *client);

    std::map<std::uint64_t, Micros> send_at = {
        {1, 999'999}, {2, 1'000'000}, {3, 1'999'999}, {4, 2'000'000}, {5, 2'500'000}};
    for (const auto& [id, t] : send_at) {
        d.run_until(t);
        client->send(pair.client_peer, Channel::kInput, stamp(id, t));
    }
    d.run_until(5'000'000);
    std::map<std::uint64_t, Micros> latency;
    for (const Logged& l : d.messages_to(0)) latency[id_of(l.event)] = l.at - sent_of(l.event);
    CHECK(latency == std::map<std::uint64_t, Micros>{
                         {1, 20'000}, {2, 150'000}, {3, 150'000}, {4, 40'000}, {5, 40'000}});
    // Unreliable: 4 (sent at 2.0 s, 40 ms) overtakes 3 (sent 1 us earlier, 150 ms).
    const auto got = d.messages_to(0);
    CHECK(id_of(got[2].event) == 4);
    CHECK(id_of(got[3].event) == 3);

    // set_link takes effect now and outranks earlier schedule entries.
    net.set_link("client", "server", {5'000, 0, 0.0, 0.0, 0});
    const Micros now = clock.now_us();
    client->send(pair.client_peer, Channel::kInput, stamp(6, now));
    CHECK(net.next_delivery_time() == now + 5'000);
}

TEST_CASE("SimNetwork: disconnect and endpoint destruction notify the other side",
          "[netplay][sim]") {
    ManualClock clock;
    SimNetwork net(1, clock);
    net.set_default_link({20'000, 0, 0.0, 0.0, 0});
    auto server = net.create_endpoint("server");
    auto c1 = net.create_endpoint("client1");
    auto c2 = net.create_endpoint("client2");
    Driver d(net, clock);
    d.add(*server);
    d.add(*c1);
    d.add(*c2);
    const PeerId p1 = c1->connect("server").value();
    const PeerId p2 = c2->connect("server").value();
    d.run_until(1'000'000);
    d.log.clear();

    SECTION("disconnect: the other side hears after one way; later sends go nowhere") {
        // A reliable message sent just before the disconnect still arrives, and first.
        c1->send(p1, Channel::kControl, stamp(1, clock.now_us()));
        c1->disconnect(p1);
        c1->send(p1, Channel::kInput, stamp(2, clock.now_us()));
        server->send(1, Channel::kInput, stamp(3, clock.now_us()));  // in flight, discarded
        d.run_until(1'019'999);
        CHECK(d.log.empty());
        d.run_until(1'020'000);
        REQUIRE(d.log.size() == 2);
        CHECK(d.log[0].event.type == Type::kMessage);
        CHECK(id_of(d.log[0].event) == 1);
        CHECK(d.log[1].event.type == Type::kDisconnected);
        CHECK(d.log[1].endpoint == 0);
        CHECK(d.log[1].event.peer == 1);
        server->send(1, Channel::kControl, stamp(4, clock.now_us()));  // ignored
        d.run_until(2'000'000);
        CHECK(d.log.size() == 2);  // the client got no event of its own
        const auto totals = net.totals();
        CHECK(totals.sent == 2);
        CHECK(totals.delivered == 1);
        CHECK(totals.discarded == 1);
        CHECK(totals.in_flight == 0);
    }
    SECTION("destroying an endpoint disconnects its peers") {
        server->send(2, Channel::kInput, stamp(5, clock.now_us()));
        d.remove(*c2);
        c2.reset();
        d.run_until(1'019'999);
        CHECK(d.log.empty());
        d.run_until(1'020'000);
        REQUIRE(d.log.size() == 1);
        CHECK(d.log[0].event.type == Type::kDisconnected);
        CHECK(d.log[0].event.peer == 2);
        CHECK(net.totals().discarded == 1);
        (void)p2;
    }
    SECTION("a name can be reused after its endpoint is gone") {
        d.remove(*c1);
        c1.reset();
        d.run_until(1'100'000);
        auto again = net.create_endpoint("client1");
        d.add(*again);
        const Pair pair = connect(d, *again);
        CHECK(pair.client_peer == 1);
        CHECK(pair.server_peer == 3);
    }
}

TEST_CASE("SimNetwork: stats count payload plus 40 bytes per datagram", "[netplay][sim]") {
    ClientServer rig(1, {10'000, 0, 0.0, 0.0, 0});
    auto& [clock, net, server, client, d, pair] = rig;
    CHECK(client->stats(pair.client_peer).wire_bytes_sent == 0);  // handshake not counted

    for (int i = 0; i < 10; ++i) client->send(pair.client_peer, Channel::kInput, stamp(i, 0, 20));
    server->send(pair.server_peer, Channel::kBulk, std::vector<std::uint8_t>(1000, 7));
    const PeerStats before = server->stats(pair.server_peer);
    CHECK(before.wire_bytes_received == 0);
    CHECK(before.wire_bytes_sent == 1040);
    d.run_until(clock.now_us() + 100'000);

    const PeerStats c = client->stats(pair.client_peer);
    CHECK(c.datagrams_sent == 10);
    CHECK(c.payload_bytes_sent == 200);
    CHECK(c.wire_bytes_sent == 600);
    CHECK(c.datagrams_received == 1);
    CHECK(c.payload_bytes_received == 1000);
    CHECK(c.wire_bytes_received == 1040);
    const PeerStats s = server->stats(pair.server_peer);
    CHECK(s.datagrams_received == 10);
    CHECK(s.payload_bytes_received == 200);
    CHECK(s.wire_bytes_received == 600);
    CHECK(server->stats(99).wire_bytes_sent == 0);  // unknown peer: zeros
}

TEST_CASE("SimNetwork: a bandwidth cap queues messages behind each other", "[netplay][sim]") {
    ManualClock clock;
    SimNetwork net(1, clock);
    net.set_default_link({10'000, 0, 0.0, 0.0, 0});
    // 100 payload + 40 = 140 bytes = 1120 bits: 17.5 ms each at 64 kbit/s.
    net.set_link("client", "server", {10'000, 0, 0.0, 0.0, 64'000});
    auto server = net.create_endpoint("server");
    auto client = net.create_endpoint("client");
    Driver d(net, clock);
    d.add(*server);
    d.add(*client);
    const Pair pair = connect(d, *client);
    const Micros t = clock.now_us();
    for (int i = 0; i < 3; ++i) client->send(pair.client_peer, Channel::kInput, stamp(i, t, 100));
    d.run_until(t + 1'000'000);
    const auto got = d.messages_to(0);
    REQUIRE(got.size() == 3);
    CHECK(got[0].at - t == 27'500);
    CHECK(got[1].at - t == 45'000);
    CHECK(got[2].at - t == 62'500);
}

TEST_CASE("SimNetwork: totals balance", "[netplay][sim]") {
    ClientServer rig(9, {15'000, 6'000, 0.1, 0.1, 0});
    auto& [clock, net, server, client, d, pair] = rig;
    for (int i = 0; i < 1'000; ++i) {
        client->send(pair.client_peer, static_cast<Channel>(i % 3), stamp(i, clock.now_us()));
        server->send(pair.server_peer, Channel::kInput, stamp(i, clock.now_us()));
        d.run_until(clock.now_us() + 4'000);
    }
    auto t = net.totals();
    CHECK(t.in_flight > 0);
    CHECK(t.sent + t.duplicated == t.delivered + t.dropped + t.discarded + t.in_flight);
    d.run_until(clock.now_us() + 10'000'000);
    t = net.totals();
    CHECK(t.in_flight == 0);
    CHECK(t.sent == 2'000);
    CHECK(t.sent + t.duplicated == t.delivered + t.dropped + t.discarded);
    CHECK(t.delivered == d.messages_to(0).size() + d.messages_to(1).size());
}

TEST_CASE("SimNetwork: throughput, 1 server + 8 clients for 36,000 frames", "[netplay][sim]") {
    ManualClock clock;
    SimNetwork net(123, clock);
    net.set_default_link({25'000, 5'000, 0.01, 0.005, 0});
    auto server = net.create_endpoint("server");
    std::vector<std::unique_ptr<Transport>> clients;
    std::vector<PeerId> to_server;
    std::vector<Transport*> all = {server.get()};
    for (int i = 1; i <= 8; ++i) {
        clients.push_back(net.create_endpoint("client" + std::to_string(i)));
        to_server.push_back(clients.back()->connect("server").value());
        all.push_back(clients.back().get());
    }
    std::uint64_t events = 0;
    auto drain = [&] {
        for (Transport* t : all) {
            while (auto e = t->poll()) events += e->type == Type::kMessage;
        }
    };
    clock.set(1'000'000);
    drain();

    const int frames = 36'000;
    std::vector<std::uint8_t> input(12, 0x11), update(40, 0x22);
    const auto wall_start = std::chrono::steady_clock::now();
    for (int f = 0; f < frames; ++f) {
        const Micros frame_time = 1'000'000 + static_cast<Micros>(f) * 1'000'000 / 60;
        for (std::size_t c = 0; c < clients.size(); ++c) {
            for (int k = 0; k < 2; ++k) clients[c]->send(to_server[c], Channel::kInput, input);
            for (int k = 0; k < 2; ++k)
                server->send(static_cast<PeerId>(c + 1), Channel::kInput, update);
        }
        const Micros next_frame = frame_time + 1'000'000 / 60;
        while (auto next = net.next_delivery_time()) {
            if (*next >= next_frame) break;
            clock.set(std::max(*next, clock.now_us()));
            drain();
        }
        clock.set(next_frame);
        drain();
    }
    clock.advance(10'000'000);
    drain();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

    const auto totals = net.totals();
    CHECK(totals.sent == static_cast<std::uint64_t>(frames) * 8 * 4);
    CHECK(totals.delivered == events);
    CHECK(totals.in_flight == 0);
    CHECK(totals.sent + totals.duplicated == totals.delivered + totals.dropped);
    const double rate = static_cast<double>(totals.sent) / seconds;
    char line[160];
    std::snprintf(line, sizeof line,
                  "SimNetwork throughput: %llu messages sent, %llu delivered in %.3f s wall "
                  "= %.0f messages/s",
                  static_cast<unsigned long long>(totals.sent),
                  static_cast<unsigned long long>(totals.delivered), seconds, rate);
    WARN(line);  // a figure to read, not a pass/fail: speed is the benchmarks' business
}

TEST_CASE("The tap sees every message sent, lost ones too, with both names and the channel",
          "[sim]") {
    ManualClock clock(0);
    SimNetwork net(3, clock);
    net.set_default_link({1'000, 0, 0.5, 0.0, 0});
    struct Seen {
        Micros at;
        std::string from, to;
        Channel channel;
        std::vector<std::uint8_t> bytes;
    };
    std::vector<Seen> seen;
    net.set_tap([&](Micros at, const std::string& from, const std::string& to, Channel channel,
                    std::span<const std::uint8_t> bytes) {
        seen.push_back({at, from, to, channel, {bytes.begin(), bytes.end()}});
    });
    auto a = net.create_endpoint("a");
    auto b = net.create_endpoint("b");
    const PeerId to_b = a->connect("b").value();
    clock.advance(10'000);
    std::optional<PeerId> to_a;
    while (auto e = b->poll()) {
        if (e->type == Type::kConnected) to_a = e->peer;
    }
    REQUIRE(to_a);
    for (std::uint64_t i = 0; i < 20; ++i) a->send(to_b, Channel::kInput, stamp(i, 0));
    clock.advance(500);
    b->send(*to_a, Channel::kBulk, stamp(99, 0, 40));
    REQUIRE(seen.size() == 21);  // half of the unreliable ones are lost: the tap saw them all
    CHECK(net.totals().dropped > 0);
    for (std::uint64_t i = 0; i < 20; ++i) {
        CHECK(seen[i].at == 10'000);
        CHECK(seen[i].from == "a");
        CHECK(seen[i].to == "b");
        CHECK(seen[i].channel == Channel::kInput);
        CHECK(seen[i].bytes == stamp(i, 0));
    }
    CHECK(seen[20].at == 10'500);
    CHECK(seen[20].from == "b");
    CHECK(seen[20].to == "a");
    CHECK(seen[20].channel == Channel::kBulk);
    CHECK(seen[20].bytes.size() == 40);
}
