#include <catch2/catch.hpp>

#include "frontend/reach/address_scope.h"

using namespace framelock::frontend;

TEST_CASE("address scope: the ranges behind a NAT are private", "[frontend][reach]") {
    for (const char* address : {"10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.254",
                                "192.168.0.1", "192.168.255.255", "100.64.0.1", "100.127.255.254",
                                "127.0.0.1", "169.254.3.4", "0.0.0.0", "0.1.2.3"}) {
        INFO(address);
        CHECK(address_scope(address) == AddressScope::kPrivate);
    }
}

TEST_CASE("address scope: the documentation ranges and the rest are public", "[frontend][reach]") {
    // The NAT lab's "internet" uses TEST-NET-2 and -3: a mapping there reaches its players.
    for (const char* address :
         {"198.51.100.1", "203.0.113.7", "192.0.2.1", "8.8.8.8", "172.15.255.255", "172.32.0.0",
          "100.63.255.255", "100.128.0.0", "192.169.0.1", "11.0.0.1", "255.255.255.255"}) {
        INFO(address);
        CHECK(address_scope(address) == AddressScope::kPublic);
    }
}

TEST_CASE("address scope: what is no dotted quad", "[frontend][reach]") {
    for (const char* text : {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.4 ", " 1.2.3.4",
                             "a.b.c.d", "1..2.3", "1.2.3.", "0001.2.3.4", "-1.2.3.4", "::1"}) {
        INFO(text);
        CHECK(address_scope(text) == AddressScope::kInvalid);
    }
}
