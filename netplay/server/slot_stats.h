// What the server reports of each player slot (Server::slot_stats()).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"

namespace framelock::netplay {

struct SlotStats {
    int slot = 0;
    std::string name;
    bool connected = false;
    Micros srtt = 0, rttvar = 0, safe_rtt = 0;
    std::uint32_t frames_run = 0, stall_frames = 0;
    std::uint64_t datagrams_received = 0, datagrams_lost_up = 0;
    std::uint64_t malformed = 0;
    // States it uploaded (for a joiner or a repair) that did not hash to what the players
    // agreed on for their frame: refused, sent to nobody.
    std::uint64_t states_refused = 0;
    PeerStats traffic;
    // The server's own measurement of the round trip to this client (echoes of its updates).
    Micros server_srtt = 0, server_rttvar = 0;
    // Its worst one-way trips of the last 10 s as it measured them (ClientStats, 0: none),
    // and its path floor: the slowest player's way up plus its own way down, frames (0: not
    // estimated yet).
    Micros one_way_up = 0, one_way_down = 0;
    int path_floor = 0;
    // Round-trip reports left out of the delay: beyond what the server measured of this
    // client's link (inflated), or covering frames a stalled process held up (hiccups).
    std::uint64_t reports_used = 0, reports_inflated = 0, reports_hiccup = 0;
    // Claims the server refused because what it saw itself contradicts them (the client is
    // named in the log): echoes of an update it did not send this client lately, or not after
    // the one echoed before, or with a hold the client cannot have had; hiccups (late samples)
    // that the input's arrival does not show.
    std::uint64_t echoes_refused = 0, hiccups_refused = 0;
    bool redundant = false;  // datagrams on this link go twice (loss seen lately)
    // Its clock against the server's (clock_check.h): the rate error over the newest window
    // (0.05: 5 % fast; nullopt until measured), samples refused, and whether it is off pace.
    std::optional<double> clock_rate_error;
    long clock_refused = 0;
    // The same rate as its inputs' arrival shows it (their frames' scheduled sampling against
    // when they came), which the client cannot fake without sending them at that pace.
    std::optional<double> input_rate_error;
    bool off_pace = false;  // either rate
};

class DelayMeasurements;
struct ServerSlot;

// Each taken slot's SlotStats (slot numbers from 1) at `now`: its name and life, what
// `measure` holds of its link, what it sent that was malformed or refused, its traffic.
std::vector<SlotStats> slot_stats_of(std::span<const ServerSlot> players,
                                     const DelayMeasurements& measure, const Transport& transport,
                                     Micros now);

}  // namespace framelock::netplay
