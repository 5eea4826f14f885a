// The rendezvous datagrams (netplay/reach/rendezvous.h): each message round-trips, no reply is
// larger than what it answers, and every malformed datagram is refused with its reason.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "netplay/reach/rendezvous.h"

using namespace framelock::netplay;

namespace {

RendezvousMessage round_trip(const RendezvousMessage& message) {
    const std::vector<std::uint8_t> bytes = encode_rendezvous(message);
    REQUIRE(is_rendezvous(bytes));
    auto decoded = decode_rendezvous(bytes);
    REQUIRE(decoded);
    return decoded.value();
}

RendezvousSecret secret(std::uint8_t first) {
    RendezvousSecret s{};
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::uint8_t>(first + i);
    return s;
}

}  // namespace

TEST_CASE("rendezvous: every message survives its encoding", "[rendezvous]") {
    const Endpoint a{0xC6336402, 40001};  // 198.51.100.2
    const Endpoint b{0xCB007106, 7845};   // 203.0.113.6
    CHECK(std::get<Probe>(round_trip(Probe{0x1122334455667788ull})).nonce == 0x1122334455667788ull);
    const auto reply = std::get<ProbeReply>(round_trip(ProbeReply{7, a}));
    CHECK(reply.nonce == 7);
    CHECK(reply.seen == a);
    const auto reg = std::get<HostRegister>(round_trip(HostRegister{secret(3), 0xABCDEF}));
    CHECK(reg.key == secret(3));
    CHECK(reg.nonce == 0xABCDEF);
    const auto registered =
        std::get<HostRegistered>(round_trip(HostRegistered{99, a, {a, b}, "198.51.100.10:7000"}));
    CHECK(registered.nonce == 99);
    CHECK(registered.seen == a);
    CHECK(registered.punch_to == std::vector<Endpoint>{a, b});
    CHECK(registered.move_to == "198.51.100.10:7000");
    CHECK(std::get<JoinerHello>(round_trip(JoinerHello{secret(9)})).ticket == secret(9));
    const auto ack = std::get<JoinerAck>(round_trip(JoinerAck{a, b}));
    CHECK(ack.seen == a);
    CHECK(ack.host == b);
}

TEST_CASE("rendezvous: a probe's reply is no larger than the probe", "[rendezvous]") {
    const auto probe = encode_rendezvous(Probe{1});
    const auto reply = encode_rendezvous(ProbeReply{1, Endpoint{0xFFFFFFFF, 65535}});
    CHECK(reply.size() <= probe.size());
    CHECK(probe.size() == 20);
}

TEST_CASE(
    "rendezvous: a registration and a hello are as large as the largest answer they "
    "can draw",
    "[rendezvous]") {
    HostRegistered largest;
    for (std::uint16_t i = 1; i <= kMaxPunchTargets; ++i) largest.punch_to.push_back({1, i});
    largest.move_to = std::string(kMaxMoveTo, 'r');
    CHECK(encode_rendezvous(largest).size() == kRendezvousRequestBytes);
    CHECK(encode_rendezvous(HostRegister{{}, 1}).size() == kRendezvousRequestBytes);
    CHECK(encode_rendezvous(JoinerHello{}).size() == kRendezvousRequestBytes);
    // An unpadded one is refused: the lobby never answers a short request.
    auto short_register = encode_rendezvous(HostRegister{{}, 1});
    short_register.resize(4 + 1 + 1 + kRendezvousSecretBytes + 8);
    CHECK_FALSE(decode_rendezvous(short_register));
}

TEST_CASE("rendezvous: more punch targets than the limit keep the newest", "[rendezvous]") {
    HostRegistered many;
    for (std::uint16_t i = 1; i <= kMaxPunchTargets + 3; ++i) many.punch_to.push_back({1, i});
    const auto kept = std::get<HostRegistered>(round_trip(many));
    REQUIRE(kept.punch_to.size() == kMaxPunchTargets);
    CHECK(kept.punch_to.front().port == 4);
    CHECK(kept.punch_to.back().port == kMaxPunchTargets + 3);
}

TEST_CASE("rendezvous: malformed datagrams are refused with the reason", "[rendezvous]") {
    const auto error_of = [](std::vector<std::uint8_t> bytes) {
        auto decoded = decode_rendezvous(bytes);
        REQUIRE_FALSE(decoded);
        return decoded.error().message;
    };
    std::vector<std::uint8_t> probe = encode_rendezvous(Probe{5});
    CHECK_THAT(error_of({1, 2, 3}), Catch::Contains("no FLRV magic"));
    auto other_version = probe;
    other_version[4] = 2;
    CHECK_THAT(error_of(other_version), Catch::Contains("version 2, this side speaks 1"));
    auto unknown = probe;
    unknown[5] = 99;
    CHECK_THAT(error_of(unknown), Catch::Contains("unknown type 99"));
    auto short_one = probe;
    short_one.pop_back();
    CHECK_THAT(error_of(short_one), Catch::Contains("too short"));
    auto long_one = probe;
    long_one.push_back(0);
    CHECK_THAT(error_of(long_one), Catch::Contains("trailing bytes"));
    auto too_many = encode_rendezvous(HostRegistered{});
    too_many[4 + 1 + 1 + 8 + 6] = kMaxPunchTargets + 1;
    CHECK_THAT(error_of(too_many), Catch::Contains("punch targets"));
    // Every prefix of a valid datagram is refused, never read past its end.
    const auto full = encode_rendezvous(HostRegistered{5, {1, 2}, {{3, 4}}, "198.51.100.1:1"});
    for (std::size_t n = 0; n < full.size(); ++n) {
        CHECK_FALSE(decode_rendezvous(std::span(full.data(), n)));
    }
}

TEST_CASE("rendezvous: endpoints and secrets as text", "[rendezvous]") {
    auto e = parse_endpoint("203.0.113.6:7845");
    REQUIRE(e);
    CHECK(e.value() == Endpoint{0xCB007106, 7845});
    CHECK(e.value().to_string() == "203.0.113.6:7845");
    for (const char* bad : {"203.0.113.6", "203.0.113:1", "203.0.113.256:1", "a.b.c.d:1",
                            "1.2.3.4:0", "1.2.3.4:65536", "1.2.3.4:12x", " 1.2.3.4:1"}) {
        INFO(bad);
        CHECK_FALSE(parse_endpoint(bad));
    }
    const RendezvousSecret s = secret(0xf0);
    CHECK(secret_to_hex(s).size() == 32);
    CHECK(secret_from_hex(secret_to_hex(s)) == s);
    CHECK_FALSE(secret_from_hex("00"));
    CHECK_FALSE(secret_from_hex(std::string(32, 'g')));
}
