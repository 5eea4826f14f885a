// Where an IPv4 address lives, as far as reaching a host goes: a router whose own external
// address is private sits behind another NAT, and a port mapping on it reaches no one
// outside.
#pragma once

#include <string_view>

namespace framelock::frontend {

enum class AddressScope {
    kPublic,   // routable on the internet; so are the documentation ranges (192.0.2.0/24,
               // 198.51.100.0/24, 203.0.113.0/24) that the NAT lab's "internet" uses
    kPrivate,  // behind a NAT: 10/8, 172.16/12, 192.168/16, CGNAT 100.64/10, loopback 127/8,
               // link-local 169.254/16, "this network" 0/8
    kInvalid,  // not a dotted-quad IPv4 address
};

// The scope of a dotted-quad IPv4 address ("a.b.c.d", each part 0-255, no leading '+').
AddressScope address_scope(std::string_view ipv4);

}  // namespace framelock::frontend
