// The lobby's rendezvous (lobby/rendezvous.h) without sockets: who may register, what a
// joiner's hello tells both sides, and how long the lobby remembers.
#include <catch2/catch.hpp>

#include <vector>

#include "lobby/rendezvous.h"

using namespace framelock;
using namespace framelock::lobby;
using netplay::Endpoint;

namespace {

const Endpoint kHost{0xCB007102, 40000};    // 203.0.113.2, the host's router
const Endpoint kJoiner{0xCB007106, 51000};  // 203.0.113.6
const Endpoint kStranger{0xC6336463, 9};    // 198.51.100.99

template <class T>
T decode_as(const Datagram& d) {
    auto message = netplay::decode_rendezvous(d.bytes);
    REQUIRE(message);
    REQUIRE(std::holds_alternative<T>(message.value()));
    return std::get<T>(message.value());
}

std::vector<Datagram> send(Rendezvous& r, const Endpoint& from, const netplay::RendezvousMessage& m,
                           std::int64_t now) {
    return r.handle(from, netplay::encode_rendezvous(m), now);
}

}  // namespace

TEST_CASE("rendezvous: a host registers with its room's key and is seen as it comes",
          "[lobby][rendezvous]") {
    Rendezvous r;
    const auto key = r.add_room("room1", 1000);
    CHECK_FALSE(r.host_endpoint("room1", 1000));
    CHECK_FALSE(r.issue_ticket("room1", "203.0.113.6", 1000));  // nobody to punch to yet

    // A key the lobby never handed out gets no answer at all.
    CHECK(send(r, kStranger, netplay::HostRegister{}, 1100).empty());
    CHECK(r.refused() == 1);

    const auto replies = send(r, kHost, netplay::HostRegister{key, 4242}, 1200);
    REQUIRE(replies.size() == 1);
    CHECK(replies[0].to == kHost);
    const auto registered = decode_as<netplay::HostRegistered>(replies[0]);
    CHECK(registered.nonce == 4242);  // the host believes only an echo of its own
    CHECK(registered.seen == kHost);
    CHECK(registered.punch_to.empty());
    CHECK(registered.move_to.empty());
    CHECK(replies[0].bytes.size() <= netplay::encode_rendezvous(netplay::HostRegister{key}).size());
    CHECK(r.host_endpoint("room1", 1200) == kHost);
}

TEST_CASE(
    "rendezvous: a joiner's hello tells the joiner where the host is and the host where "
    "the joiner is, at once",
    "[lobby][rendezvous]") {
    Rendezvous r;
    const auto key = r.add_room("room1", 0);
    send(r, kHost, netplay::HostRegister{key}, 10);
    const auto ticket = r.issue_ticket("room1", "203.0.113.6", 20);
    REQUIRE(ticket);
    CHECK(ticket->host == kHost);

    CHECK(send(r, kJoiner, netplay::JoinerHello{}, 30).empty());  // no such ticket
    // A ticket counts from the address it was handed to only: nobody else can have the host
    // probe a third party.
    CHECK(send(r, kStranger, netplay::JoinerHello{ticket->secret}, 35).empty());
    CHECK_FALSE(r.issue_ticket("room1", "::1", 36));
    const auto replies = send(r, kJoiner, netplay::JoinerHello{ticket->secret}, 40);
    REQUIRE(replies.size() == 2);
    CHECK(replies[0].to == kJoiner);
    const auto ack = decode_as<netplay::JoinerAck>(replies[0]);
    CHECK(ack.seen == kJoiner);
    CHECK(ack.host == kHost);
    CHECK(replies[1].to == kHost);
    CHECK(decode_as<netplay::HostRegistered>(replies[1]).punch_to == std::vector{kJoiner});
    // Never more bytes out than in, the push to the host included.
    for (const auto& reply : replies) CHECK(reply.bytes.size() <= netplay::kRendezvousRequestBytes);

    // The host's next registration still names the joiner (the push may have been lost) ...
    auto again = send(r, kHost, netplay::HostRegister{key}, 1040);
    CHECK(decode_as<netplay::HostRegistered>(again.at(0)).punch_to == std::vector{kJoiner});
    // ... until the joiner has stopped punching, a punch timeout and a second later.
    again = send(r, kHost, netplay::HostRegister{key}, 40 + netplay::kPunchTimeoutUs / 1000 + 1001);
    CHECK(decode_as<netplay::HostRegistered>(again.at(0)).punch_to.empty());
}

TEST_CASE("rendezvous: a moved room says so to its host", "[lobby][rendezvous]") {
    Rendezvous r;
    const auto key = r.add_room("room1", 0);
    r.move_room("room1", "198.51.100.10:7000");
    const auto replies = send(r, kHost, netplay::HostRegister{key}, 10);
    CHECK(decode_as<netplay::HostRegistered>(replies.at(0)).move_to == "198.51.100.10:7000");
    CHECK(r.take_pushes().empty());  // it was not registered when it moved
    // A registered host is told at once, once.
    r.move_room("room1", "198.51.100.11:7000");
    const auto pushes = r.take_pushes();
    REQUIRE(pushes.size() == 1);
    CHECK(pushes[0].to == kHost);
    CHECK(decode_as<netplay::HostRegistered>(pushes[0]).move_to == "198.51.100.11:7000");
    CHECK(r.take_pushes().empty());
}

TEST_CASE("rendezvous: a room remembers a bounded number of joiners", "[lobby][rendezvous]") {
    Rendezvous r;
    const auto key = r.add_room("room1", 0);
    send(r, kHost, netplay::HostRegister{key, 1}, 0);
    const auto ticket = r.issue_ticket("room1", "203.0.113.6", 0);
    REQUIRE(ticket);
    for (std::uint16_t port = 1; port <= 3 * Rendezvous::kMaxJoiners; ++port)
        send(r, {kJoiner.ipv4, port}, netplay::JoinerHello{ticket->secret}, port);
    const auto again = send(r, kHost, netplay::HostRegister{key, 2}, 100);
    const auto listed = decode_as<netplay::HostRegistered>(again.at(0)).punch_to;
    REQUIRE(listed.size() == netplay::kMaxPunchTargets);
    CHECK(listed.back().port == 3 * Rendezvous::kMaxJoiners);
}

TEST_CASE("rendezvous: tickets and rooms are forgotten in time", "[lobby][rendezvous]") {
    RendezvousLimits limits;
    limits.max_hellos = 3;
    Rendezvous r(limits);
    const auto key = r.add_room("room1", 0);
    send(r, kHost, netplay::HostRegister{key}, 0);
    const auto ticket = r.issue_ticket("room1", "203.0.113.6", 0);
    REQUIRE(ticket);
    for (int i = 0; i < 3; ++i)
        CHECK(send(r, kJoiner, netplay::JoinerHello{ticket->secret}, 10).size() == 2);
    CHECK(send(r, kJoiner, netplay::JoinerHello{ticket->secret}, 10).empty());  // used up

    const auto late = r.issue_ticket("room1", "203.0.113.6", 100);
    REQUIRE(late);
    CHECK(send(r, kJoiner, netplay::JoinerHello{late->secret}, 100 + limits.ticket_ms + 1001)
              .empty());

    // A host that stopped registering: no tickets, then forgotten; a removed room likewise.
    CHECK_FALSE(r.issue_ticket("room1", "203.0.113.6", limits.room_silence_ms + 1));
    r.handle(kStranger, {}, 2 * limits.room_silence_ms);  // a sweep
    CHECK(r.rooms() == 0);
    CHECK(send(r, kHost, netplay::HostRegister{key}, 2 * limits.room_silence_ms + 1).empty());
    const auto key2 = r.add_room("room2", 0);
    r.remove_room("room2");
    CHECK(send(r, kHost, netplay::HostRegister{key2}, 1).empty());
}

TEST_CASE("rendezvous: the lobby answers probes with the address they came from",
          "[lobby][rendezvous]") {
    Rendezvous r;
    const auto replies = send(r, kJoiner, netplay::Probe{77}, 0);
    REQUIRE(replies.size() == 1);
    const auto reply = decode_as<netplay::ProbeReply>(replies[0]);
    CHECK(reply.nonce == 77);
    CHECK(reply.seen == kJoiner);
    // Garbage and replies meant for players are dropped.
    CHECK(r.handle(kJoiner, std::vector<std::uint8_t>{'F', 'L', 'R', 'V', 1}, 0).empty());
    CHECK(send(r, kJoiner, netplay::JoinerAck{}, 0).empty());
    CHECK(r.refused() == 2);
}
