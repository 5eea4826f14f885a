// Star Lanes sound: effects are started by the game logic and synthesised from Ram alone, so
// the audio a frame produces is as deterministic as the picture and savestates capture it.
#pragma once

#include <cstdint>

#include "ram.h"

namespace framelock::cores::arcade {

enum class Sfx : uint8_t {
    kTwin,     // A, twin gun
    kSpread,   // A, spread gun
    kMissile,  // B
    kSide,     // L2 / R2
    kHit,      // enemy damaged
    kPop,      // small enemy destroyed
    kBoom,     // brute destroyed
    kShipLost,
    kBomb,      // Y
    kDud,       // Y with no bombs left
    kShield,    // X pressed
    kBlock,     // shield stopped something
    kSelect,    // SELECT toggled the shot pattern
    kBeacon,    // START held
    kHorn,      // R3 held
    kContinue,  // START revived a ship
    kExtraBomb,
};

// Starts `sfx` on a free voice, or steals the one closest to finishing. `player` (0..7) picks
// the stereo position; pass -1 for centre.
void play_sfx(Ram& ram, Sfx sfx, int player);

// Synthesises `frames` stereo frames (interleaved left, right) into `out` and advances the
// audio state in `ram`. `out` may be null: the state then advances exactly as if the samples
// had been written, which keeps runs with audio disabled in sync with runs that play it.
void mix_audio(Ram& ram, int16_t* out, int frames);

}  // namespace framelock::cores::arcade
