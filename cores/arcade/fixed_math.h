// Integer-only helpers for the arcade game: a sine table and an integer square root.
// Floats are avoided on purpose so results never depend on compiler flags or the FPU.
#pragma once

#include <cstdint>

namespace framelock::cores::arcade {

// sin(k * 90deg / 16) * 256 for k = 0..16, rounded.
inline constexpr int16_t kQuarterSine[17] = {0,   25,  50,  74,  98,  121, 142, 162, 181,
                                             198, 213, 226, 237, 245, 251, 255, 256};

// Sine of `phase` / 256 of a turn, Q8 (-256..256), in 64 steps per turn.
constexpr int32_t sin_q8(uint8_t phase) {
    const int step = phase >> 2;  // 0..63
    const int k = step & 15;
    switch (step >> 4) {
        case 0:
            return kQuarterSine[k];
        case 1:
            return kQuarterSine[16 - k];
        case 2:
            return -kQuarterSine[k];
        default:
            return -kQuarterSine[16 - k];
    }
}

constexpr int32_t cos_q8(uint8_t phase) {
    return sin_q8(static_cast<uint8_t>(phase + 64));
}

// floor(sqrt(v)), bit by bit.
constexpr uint32_t isqrt(uint64_t v) {
    uint64_t result = 0;
    uint64_t bit = uint64_t{1} << 62;
    while (bit > v) bit >>= 2;
    while (bit != 0) {
        if (v >= result + bit) {
            v -= result + bit;
            result = (result >> 1) + bit;
        } else {
            result >>= 1;
        }
        bit >>= 2;
    }
    return static_cast<uint32_t>(result);
}

static_assert(sin_q8(0) == 0 && sin_q8(64) == 256 && sin_q8(128) == 0 && sin_q8(192) == -256);
static_assert(isqrt(0) == 0 && isqrt(15) == 3 && isqrt(16) == 4 && isqrt(1000000) == 1000);

}  // namespace framelock::cores::arcade
