// Star Lanes savestates: an 8-byte header, then every Ram field in declaration order,
// little-endian, one by one (never a memcpy of the struct, so the format does not depend on
// the host's layout or byte order).
//
//   0  "FLARC"
//   5  u8  format version (1)
//   6  u16 payload bytes (kStatePayloadBytes)
//   8  payload
#pragma once

#include <cstddef>
#include <cstdint>

#include "ram.h"

namespace framelock::cores::arcade {

inline constexpr size_t kStateHeaderBytes = 8;
// Ram has no padding, so its fields add up to exactly sizeof(Ram); state_codec.cpp checks
// this against the field list at compile time, which catches a field left out of the codec.
inline constexpr size_t kStatePayloadBytes = sizeof(Ram);
inline constexpr size_t kStateBytes = kStateHeaderBytes + kStatePayloadBytes;

// Writes exactly kStateBytes to `out`. The same Ram always gives the same bytes.
void encode_state(const Ram& ram, uint8_t* out);

// Decodes a state written by encode_state into `out`. Returns false, leaving `out` untouched,
// when `size` is not kStateBytes, the header does not match, or the decoded Ram fails
// is_consistent() (a state from elsewhere must not make the game index out of bounds).
bool decode_state(const uint8_t* data, size_t size, Ram& out);

}  // namespace framelock::cores::arcade
