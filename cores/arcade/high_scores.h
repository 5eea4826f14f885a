// The save-RAM high-score table: 64 bytes the frontend keeps between sessions.
//
// Layout, little-endian:
//    0  "FLHS"
//    4  u8  version (1)
//    5  u8  entry count (6)
//    6  u16 session counter, bumped at every power-on; tags the entries of one session
//    8  6 entries of 8 bytes, best first: u32 score, u16 session, u8 player (1..8), u8 run
//   56  u32 reserved, 0
//   60  u32 FNV-1a of bytes 0..59
// A run is one life of a port from power-on or a continue: (session, player, run) names it, so
// a running score raises its own entry instead of filling the table with copies of itself.
#pragma once

#include <cstddef>
#include <cstdint>

namespace framelock::cores::arcade {

inline constexpr size_t kHighScoreBytes = 64;
inline constexpr int kHighScoreEntries = 6;

struct HighScoreEntry {
    uint32_t score = 0;  // 0 = empty
    uint16_t session = 0;
    uint8_t player = 0;  // 1..8
    uint8_t run = 0;
};

struct HighScores {
    uint16_t session = 0;
    HighScoreEntry entries[kHighScoreEntries] = {};
};

// Reads `bytes` (kHighScoreBytes long). Returns false, leaving `out` untouched, when the magic,
// version, count, checksum or best-first order is wrong: the frontend may hand us anything.
bool decode_high_scores(const uint8_t* bytes, HighScores& out);

// Writes `table` to `bytes` (kHighScoreBytes long), checksum included.
void encode_high_scores(const HighScores& table, uint8_t* bytes);

// Raises the entry of run (session, player, run) to `score`, or enters the run when it beats
// the last entry. Keeps best-first order. Returns true when the table changed.
bool submit_high_score(HighScores& table, uint32_t score, uint16_t session, uint8_t player,
                       uint8_t run);

}  // namespace framelock::cores::arcade
