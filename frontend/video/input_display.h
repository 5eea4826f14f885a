// The input display burnt into an exported video (`replay export --input-display`): at the
// bottom of the picture, one small pad per player, each button a box lit in the player's
// colour while it is held. Pure pixel code on an Image, no font but the player's digit.
//
// A pad (65 x 24 pixels on a dark panel): the player's number (1-8) at its left; then, on the
// top row, L and L2 at the left, R2 and R at the right; below, the cross (up, left, right,
// down), SELECT and START in the middle, and the face buttons as a diamond: X at the top, Y at
// the left, A at the right, B at the bottom (the RetroPad's, i.e. the SNES pad's, layout).
// L3 and R3 are not shown. Pads go left to right (P1 first) and wrap onto rows above when the
// picture is too narrow; parts outside a small picture are clipped.
#pragma once

#include "frontend/host/image.h"
#include "netplay/base/types.h"

namespace framelock::frontend {

// One pad's size on the picture, its panel included.
inline constexpr unsigned kInputPadWidth = 65;
inline constexpr unsigned kInputPadHeight = 24;

// Draws the pads of ports 0 .. ports-1 (at most netplay::kMaxPlayers) onto `picture`.
void draw_input_display(Image& picture, const netplay::InputFrame& inputs, unsigned ports);

// The colour a held button of player `port` (0-based) is lit in.
std::uint32_t input_display_color(unsigned port);

}  // namespace framelock::frontend
