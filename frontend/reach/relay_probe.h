// A player's round trips to the lobby's relays, measured before choosing one: a few small
// UDP probes (netplay/reach/rendezvous.h) to each relay's session socket, which answers them itself
// (EnetTransport), so a probe times the very path the session's inputs will take.
//
// All relays are probed from one socket, interleaved: round k sends probe k to every relay,
// `interval_us` after round k-1, so that a burst of loss or a scheduler hiccup costs each
// relay one probe rather than one relay all of them. It ends when every probe has its reply
// or at `deadline_us`, whichever comes first (about 1 s at most: it runs before a create, a
// join or a room list, where a player is waiting).
//
// Threading: none; blocks the caller for up to the deadline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/interfaces/clock.h"
#include "netplay/io/enet_transport.h"

namespace framelock::frontend {

struct RelayTarget {
    std::string id;       // the lobby's id for it
    std::string address;  // "a.b.c.d:port", as relays register (no names: not resolved)
};

struct RelayProbeOptions {
    int probes = 5;                           // per relay
    netplay::Micros interval_us = 20'000;     // between two rounds
    netplay::Micros deadline_us = 1'000'000;  // from the first send
};

struct RelayProbeResult {
    std::string id;
    // The median of the replies' round trips; nullopt when none came (or the address is not
    // a.b.c.d:port). The median, not the minimum: the session's delay covers the round trips
    // the inputs actually see, not the best one, and with 5 probes the median ignores one
    // delayed by a scheduler or a radio waking up, as the minimum ignores the typical case.
    std::optional<netplay::Micros> rtt_us;
    int replies = 0;
    netplay::Micros min_us = 0;  // of the replies (0 when none), for diagnostics
};

// Probes `relays` from `socket` (a client() transport is fine; events it yields meanwhile,
// which a fresh socket has none of, are dropped). One result per relay, in order.
std::vector<RelayProbeResult> probe_relays(netplay::EnetTransport& socket,
                                           const std::vector<RelayTarget>& relays,
                                           const RelayProbeOptions& options = {});

// The same from a socket of its own (EnetTransport::client()); kIo when none can be opened.
Result<std::vector<RelayProbeResult>> probe_relays(const std::vector<RelayTarget>& relays,
                                                   const RelayProbeOptions& options = {});

}  // namespace framelock::frontend
