// Star Lanes core options and how they reach the frontend.
//
//   farcade_players     "2".."8" (default "2")     ships in play
//   farcade_seed        "1".."16", "42", "1941", "1999", "2024", "65535" (default "1")
//   farcade_difficulty  "normal", "easy", "hard" (default "normal")
//
// Players and seed shape the power-on state, so a change made while a game runs is kept for
// the next power-on (retro_reset or the next load). Difficulty is applied on the next frame.
#pragma once

#include <libretro.h>

#include "game.h"

namespace framelock::cores::arcade {

// Offers the options through the newest interface the frontend reports
// (GET_CORE_OPTIONS_VERSION >= 2: SET_CORE_OPTIONS_V2, >= 1: SET_CORE_OPTIONS, else
// SET_VARIABLES) and returns the interface version used. The tables are static, as libretro
// requires them to outlive the call.
unsigned register_core_options(retro_environment_t environment);

// Reads every option through GET_VARIABLE. Missing options take their defaults; unparsable
// values take their defaults too and are reported through `log`.
Config read_core_options(retro_environment_t environment, retro_log_printf_t log);

}  // namespace framelock::cores::arcade
