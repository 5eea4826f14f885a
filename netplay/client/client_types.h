// What a Client is given and what it hands out: its configuration, the events poll_event()
// returns, and the statistics stats() returns. Apart from client.h so that the parts a Client
// is made of (netplay/client/) can fill them without seeing the Client.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/crypto/join_proof.h"
#include "netplay/determinism/synctest.h"
#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

struct ClientConfig {
    std::string server_address;
    std::uint8_t requested_slot = 0;  // 0: any
    std::string player_name;
    std::string content_name;
    SessionIdentity identity;
    Micros server_timeout_us = kPeerSilenceTimeoutUs;  // silent this long: the session ends
    int max_catch_up_frames = 8;                       // frames run per tick when behind
    Role role = Role::kPlayer;
    std::string password;  // never sent: the Hello proves it (join_proof.h)
    // The token of the slot this player held before (Welcome::rejoin_token, kept from an
    // earlier process): with it, the server gives that slot back.
    std::optional<RejoinToken> rejoin_token;
    // The server's key (server_identity.h) as the lobby or the host told it: a Welcome not
    // signed by it ends the join. nullopt: any server's (the key is shown to the player).
    std::optional<ServerKey> server_key;
    // The cheapest password key derivation this client does for a server: a hostile one
    // asking for less would get a proof cheap to crack (tests and fuzzing lower it).
    KdfCost min_password_kdf;
    int spectator_buffer_frames = 6;  // a spectator plays this far behind the session
    int snapshots_kept = 8;           // own states kept for joiners and resyncs
    std::uint32_t stop_at_frame = 0;  // runs no frame at or beyond this one (0: no limit)
    // Whether this player's core's savestates pass the rollback check, for a server that asks
    // (Welcome::vouch_savestates): polled from tick() until it answers (nullopt: still
    // checking; the check takes time, so the host runs it elsewhere). Unset: this client
    // cannot tell, and says so (the session then plays frame lock).
    std::function<std::optional<Status>()> savestate_check;
};

struct ClientEvent {
    enum class Type {
        kWelcome,
        kRejected,
        kStarted,
        kDelayChanged,
        kPlayerLeft,
        kDesync,
        kDisconnected,
        kJoining,      // a running session: its state is on the way (frame, message: size)
        kJoined,       // the state is loaded: frame-identical from `frame` on
        kResynced,     // a reference state replaced a divergent one (message: what differed)
        kStateError,   // a state transfer was refused (message says why)
        kStartLoaded,  // before frame 0: the session's start state is loaded (message: size)
        kModeChanged,  // the hybrid turned into the frame lock (frame: the server's; message: why)
    };
    Type type;
    int slot = 0;
    std::uint32_t frame = 0;
    int delay = 0;
    std::uint8_t differing_slots = 0;
    std::string message;
};

// What a repair showed this player (ClientEvent::kResynced): its own state of `frame` and the
// reference state it was sent of it, each with its memory regions as the core exposes them
// once it is loaded. Kept for a frontend that hands a desync on (a desync bundle).
struct ResyncEvidence {
    std::uint32_t frame = 0;              // the states' frame: the next frame to run from them
    std::uint32_t desync_frame = 0;       // the first frame whose hashes disagreed
    std::vector<std::uint8_t> own_state;  // empty: this player held no state of that frame
    std::vector<RegionCopy> own_regions;
    std::vector<std::uint8_t> reference_state;
    std::vector<RegionCopy> reference_regions;
};

struct ClientStatsSnapshot {
    std::uint32_t frames_run = 0;
    std::uint32_t stall_frames = 0;  // frame periods spent waiting for inputs
    std::uint32_t stall_events = 0;  // times a due frame had to wait
    std::uint32_t frames_fast_forwarded = 0;
    // Sum over frames run of how late each ran after its scheduled time: with the delay,
    // the input-to-screen lag a player feels (mean lag = delay + this / frames_run).
    Micros lateness_total_us = 0;
    Micros srtt = 0, rttvar = 0, safe_rtt = 0;
    Micros clock_offset = 0;
    int delay = 0;
    // This player's path floor as the server last said (ServerUpdate::path_floor), frames.
    int path_floor = 0;
    // The worst one-way trips of this client's link over the last 10 s, up and down, on the
    // synchronised clocks (one_way_trips.h); 0: none measured.
    Micros one_way_up = 0, one_way_down = 0;
    std::uint64_t updates_received = 0, updates_lost = 0;
    // Redundancy on a lossy link: second copies of input datagrams sent, and server updates
    // received that were not news (the server's second copies, or a late one).
    std::uint64_t copies_sent = 0, updates_redundant = 0;
    PeerStats traffic;
    // Rollback sessions.
    std::uint32_t rollbacks = 0;           // times a state was loaded to correct a prediction
    std::uint32_t frames_resimulated = 0;  // frames run again after those loads
    std::uint32_t longest_rollback = 0;    // frames, never more than the prediction window
    std::uint32_t predicted_frames = 0;    // frames first run with a predicted input
    std::uint32_t predicted_right = 0;     // of those, predicted exactly
    // Frames run ahead of the newest frame with every player's input, summed per frame run
    // (mean frame advantage = this / frames_run).
    std::uint64_t advantage_total = 0;
    // The corrections' cost (correction_log.h): the 99th percentile of their depth (frames
    // run again) and of their time (loading the state and running again, to 0.1 ms), and the
    // longest time.
    std::uint32_t correction_depth_p99 = 0;
    Micros correction_time_p99_us = 0;
    Micros correction_time_max_us = 0;
};

}  // namespace framelock::netplay
