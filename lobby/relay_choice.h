// Which relay a room runs on: the one that suits its players, not the least loaded.
//
// In a frame lock through a relay the input delay covers the worst player's path through it
// (netplay/timing/path_floor.h), so the relay that minimises the worst player's round trip gives
// every player the lowest delay. Each player's client measures its round trip to every live
// relay with a few UDP probes (frontend/reach/relay_probe.h) and sends them with its create,
// join or list request; the lobby compares them here.
//
// Pure: no store, no clock (the API hands in the live relays it read).
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lobby/store.h"
#include "netplay/timing/path_floor.h"

namespace framelock::lobby {

using netplay::Micros;

// One player's measured round trips: relay server id -> round trip, us.
using RelayProbes = std::map<std::string, Micros>;

// As rooms store them (Room::host_probes): {"server_id": ms, ...}, ms with up to three
// decimals; "" for none. Reading is lenient (what the API wrote): a malformed text or entry
// is left out.
std::string probes_to_text(const RelayProbes& probes);
RelayProbes probes_from_text(const std::string& text);

struct RelayChoice {
    std::string id;
    std::string address;
    std::string server_key;  // what joiners check the relay against (RelayServer::server_key)
    // The worst of the players' round trips to it (worst_round_trip), when every player has
    // a probe for it; nullopt when none did and the relay was chosen by load.
    std::optional<Micros> worst_rtt_us;
};

// Among `live` relays with capacity (load < capacity; `current_id`, the relay the room is on
// now, counts as having room for it), the one minimising the worst round trip of `players`.
// A relay some player has no probe for is not eligible, unless no relay has probes from all
// (or `players` is empty): then the least loaded, as the store picks it. Ties go to
// `current_id` (no needless move), then to the one with the most free capacity, the lower
// load, the lower id. nullopt when no relay is eligible.
std::optional<RelayChoice> choose_relay(const std::vector<RelayServer>& live,
                                        std::span<const RelayProbes> players,
                                        const std::string& current_id = "");

// The relay `room` would run on once a player with `joiner` probes joins it, as the join
// endpoint decides it (and the room list estimates it). Every relay registered with the
// operator's relay key, and a joiner's claims count only where the host measured too: only
// relays the host measured are eligible, the worse of host's and joiner's round trips
// counts, and a relay the joiner left out counts with the host's round trip (so leaving the
// room's own relay out moves nothing, and 0 ms elsewhere cannot beat the host's measure):
//   - the host runs its own server (no server_id): none, unless `want_relay` (the joiner
//     cannot reach the host): then the best such relay; the least loaded when the host
//     measured none (or none of those it measured is live with room);
//   - on a relay with fewer than 2 players (the session has not started): the best such
//     relay; it stays when either sent no probes;
//   - on a relay with 2 or more players: that relay.
// worst_rtt_us: the worst of the host's and the joiner's probes of the relay chosen, when the
// joiner has one (the host's counts when it has one too).
std::optional<RelayChoice> relay_for_join(const Room& room, const RelayProbes& host,
                                          const RelayProbes& joiner,
                                          const std::vector<RelayServer>& live, bool want_relay);

}  // namespace framelock::lobby
