// Star Lanes video: draws one frame from Ram alone, so equal states always give equal pictures.
#pragma once

#include <cstdint>

#include "ram.h"

namespace framelock::cores::arcade {

// Draws the frame for `ram` into `pixels`: kScreenWidth x kScreenHeight XRGB8888, rows packed
// (pitch kScreenWidth * 4 bytes). Every pixel is written; `ram` is not modified.
void render(const Ram& ram, uint32_t* pixels);

}  // namespace framelock::cores::arcade
