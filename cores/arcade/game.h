// Star Lanes game logic: a vertical shooter for 2 to 8 players.
//
// Pure functions over `Ram`: no libretro, no I/O, no clock. The state after N frames is a
// function of the power-on Config, the high score latched from save RAM, and the N pad words
// per port that were stepped, nothing else.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ram.h"

namespace framelock::cores::arcade {

struct Config {
    uint8_t players = 2;                     // 2..8
    uint16_t seed = 1;                       // farcade_seed
    uint8_t difficulty = kDifficultyNormal;  // Difficulty
    uint64_t content_hash = 0;               // FNV-1a of the content bytes, 0 without content
};

// Resets every byte of `ram` to the power-on state for `config`.
void power_on(Ram& ram, const Config& config);

// Takes the best score and the session number from save RAM. Called once per power-on, before
// the first step; sets sys.hs_latched so a loaded savestate is never re-latched.
void latch_high_score(Ram& ram, uint32_t best, uint16_t session);

// Difficulty is the one option a running game takes on immediately (the others wait for the
// next power-on); the value is stored in Ram so savestates and peers carry it.
void set_difficulty(Ram& ram, uint8_t difficulty);

// Advances one frame. `pads` holds one pad word (PadBit) per port; ports beyond the player
// count are still recorded (and shown in the HUD) but drive no ship.
void step(Ram& ram, const uint16_t pads[kMaxPlayers]);

// True when every enum, index and position in `ram` is in the range the game itself produces,
// so a savestate from elsewhere cannot make step() or render() index out of bounds.
bool is_consistent(const Ram& ram);

// FNV-1a, 64-bit: mixes content bytes into the seed.
uint64_t fnv1a64(const uint8_t* data, size_t size);

}  // namespace framelock::cores::arcade
