// The joiner's half of reaching a host that serves its own room: before connecting, make
// sure a datagram gets through, from the very socket the session will use.
//
// Probes go to every address the host may be reached at (the one it announced: a UPnP
// mapping or a public address; the one the lobby saw its socket at). With a punch ticket the
// joiner also says hello to the lobby's rendezvous, which tells the host to probe back: once
// both have sent, each router lets the other's datagrams in, and the first ProbeReply names
// the address that works. A router that gives every destination a port of its own (a
// symmetric NAT) never lets one through; after the timeout the caller falls back to a relay.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/interfaces/clock.h"
#include "netplay/io/enet_transport.h"
#include "netplay/reach/rendezvous.h"

namespace framelock::frontend {

struct ReachPlan {
    std::vector<netplay::Endpoint> candidates;        // where the host may answer
    std::optional<netplay::Endpoint> lobby;           // the rendezvous, with ...
    std::optional<netplay::RendezvousSecret> ticket;  // ... the join's ticket
    netplay::Micros timeout_us = netplay::kPunchTimeoutUs;
};

struct Reached {
    std::unique_ptr<netplay::EnetTransport> socket;  // connect from this one: the way is open
    netplay::Endpoint host;                          // the address that answered
    netplay::Micros round_trip_us = 0;               // the first answer's
    bool punched = false;  // the answer came after the host was told to punch (not direct)
};

// Blocks up to plan.timeout_us (real time). kIo error when no candidate answered, naming them.
Result<Reached> reach_host(const ReachPlan& plan);

}  // namespace framelock::frontend
