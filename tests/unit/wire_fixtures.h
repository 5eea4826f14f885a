// Messages tests send as a server or client would (netplay/wire/protocol.h).
#pragma once

#include <cstdint>

#include "netplay/interfaces/clock.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

// A Welcome to `slot` of `players` (hash every 60 frames, keyframes every 30, inputs every
// second frame), the server's clock at `server_time_us`.
inline Welcome test_welcome(std::uint8_t slot, std::uint8_t players, Micros server_time_us,
                            SessionMode mode = SessionMode::kFrameLock) {
    Welcome w;
    w.slot = slot;
    w.players = players;
    w.hash_interval = 60;
    w.keyframe_interval = 30;
    w.send_interval = 2;
    w.server_time_us = server_time_us;
    w.mode = mode;
    return w;
}

}  // namespace framelock::netplay
