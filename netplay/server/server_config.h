// A session's settings (ServerConfig), their check against the session's limits
// (session_limits.h) and what each mode fixes of them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/crypto/join_proof.h"
#include "netplay/crypto/server_identity.h"
#include "netplay/interfaces/clock.h"
#include "netplay/interfaces/transport.h"
#include "netplay/timing/clock_check.h"
#include "netplay/timing/delay_controller.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

// The hybrid's prediction window where its caller chose none: 12 frames (200 ms at 60 fps)
// keep the local delay at 2 frames up to a round trip of about 200 ms.
inline constexpr std::uint8_t kHybridPredictionWindow = 12;

struct ServerConfig {
    int players = 2;                   // the session starts when this many have joined
    std::uint16_t hash_interval = 60;  // clients report a state hash every N frames
    // Frames between delay decisions: a worse link stalls everyone until the next one (see
    // DelayController); 15 (a quarter second) halves that wait against 30 for a few bytes.
    std::uint16_t keyframe_interval = 15;
    std::uint8_t send_interval = 1;                    // frames between a client's input datagrams
    DelayPolicy delay;                                 // frame_time is set from the session's fps
    Micros client_timeout_us = kPeerSilenceTimeoutUs;  // silent this long: dropped
    // A connection says Hello within hello_timeout_us of connecting or is closed; at most
    // max_joining_per_address connections from one address may be waiting to say it (the
    // next are closed at once), max_joining in all (a newcomer closes the oldest of the
    // address with the most). Connections that never say Hello so cost the players nothing
    // (admission.h); a host's peer table has room for max_joining beside the members.
    Micros hello_timeout_us = 2'000'000;
    int max_joining_per_address = 4;
    int max_joining = 64;
    // Start is sent this long before frame 0 (at least twice the slowest round trip).
    Micros start_lead_us = 250'000;
    Micros max_lobby_rtt_wait_us = 2'000'000;
    std::uint32_t max_frames_ahead = 600;  // inputs further ahead of confirmation: dropped
    // Rollback: the delay is the fixed local input delay (delay.fixed_delay, 0-2 frames),
    // inputs travel every frame, and every update carries each player's unconfirmed
    // inputs so clients can correct their predictions before confirmation.
    // No-wait: the server confirms frame g at its deadline, half the (fixed) delay before
    // g is due, with each player's newest input; an input that arrives later applies from
    // the next frame confirmed. A slow player delays only its own inputs.
    // The hybrid is kRollback with delay.hybrid: the delay adapts as frame lock's does, and
    // prediction covers what the local delay leaves of the path (delay_controller.h).
    SessionMode mode = SessionMode::kFrameLock;
    std::uint8_t prediction_window = 8;
    // The hybrid on a server without a core of its own (`framelock server --mode auto`): it
    // holds while every player vouches for its own savestates (hybrid_guard.h).
    bool hybrid_if_vouched = false;

    // Late join, reconnect, spectators, repair.
    int start_players = 0;  // start when this many have joined (0: every slot)
    int max_spectators = 16;
    std::string password;            // players must give it (empty: none)
    std::string spectator_password;  // spectators must give it (empty: none)
    // What deriving a password's key costs (join_proof.h): the server derives each once, a
    // joining client once, and whoever captured a join, once per guess.
    KdfCost password_kdf;
    // A player silent this long is away: its slot gets neutral input (or, with
    // pause_on_drop, the others wait) until it speaks again or rejoins from a new process
    // that proves the slot's rejoin token; after reconnect_grace_us the slot is given up.
    Micros link_lost_us = 500'000;
    Micros reconnect_grace_us = 60'000'000;
    bool pause_on_drop = false;
    bool repair_desyncs = true;  // send the majority's state to divergent players
    // The slot of the player whose own process runs this server (framelock host), 0 on a
    // dedicated server or relay. When the hash reports of a frame tie (no hash held by more
    // players than any other), that player's state is the reference: it could do anything
    // with its own server anyway. With 0 a tie has no reference: the desync is reported to
    // every player and nobody's state is sent to anyone (docs/netplay.md, "Desync repair").
    int host_slot = 0;
    std::uint16_t snapshot_interval = 0;  // 0: from the hash and keyframe intervals
    std::uint32_t history_frames = 3600;  // confirmed inputs kept for joiners and resyncs
    Micros state_request_timeout_us = 5'000'000;
    // Before frame 0, the first player's state right after power-on (the host's) goes to
    // every player, that one included, and each loads it: everyone starts from the same
    // bytes, whatever a core keeps of its own process (a clock read at load, leftover
    // memory). A core that cannot save its state starts as before, each from its own.
    bool common_start = true;
    // Chat: members' messages relayed to every member (chat_room.h); off: dropped, and the
    // Welcome says so.
    bool chat = true;
    // Clients' clocks (clock_check.h). No-wait mode names a player whose clock is off pace
    // (ServerEvent::kOffPace) and, with this, removes it.
    ClockCheckConfig clock_check;
    bool kick_off_pace = false;
    // The key every Welcome is signed with (server_identity.h): one per server process,
    // shared by its sessions, so the key a lobby publishes names all of them. Null: the
    // session makes its own.
    std::shared_ptr<const ServerIdentity> identity;
};

// Ok, or a kUsage error naming the first setting outside its range and the range
// (session_limits.h). Front ends call it before they start a server.
Status validate(const ServerConfig& config);

// What the server runs with: each setting inside its range (a line in `adjusted` for each one
// that was not, saying what it became) and what the mode fixes (a rollback or no-wait session
// sends every frame and keeps its delay fixed).
ServerConfig normalized(ServerConfig config, std::vector<std::string>& adjusted);

}  // namespace framelock::netplay
