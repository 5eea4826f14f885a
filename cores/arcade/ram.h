// Star Lanes: the whole mutable state of the bundled arcade game.
//
// Everything that can change while the game runs lives in one trivially-copyable `Ram` of
// fixed-width integers: no pointers, no floats, no implicit padding. That makes the game a pure
// function of (power-on config, per-frame pads), lets a savestate capture all of it, and lets a
// host hash the raw bytes (retro_get_memory_data) without tripping over uninitialised padding.
// Positions and velocities are Q8 fixed point (1/256 pixel) unless a field says otherwise.
#pragma once

#include <cstdint>
#include <type_traits>

namespace framelock::cores::arcade {

inline constexpr int kScreenWidth = 320;
inline constexpr int kScreenHeight = 224;
// Two rows of four player panels on top, a one-line status bar at the bottom.
inline constexpr int kHudHeight = 24;
inline constexpr int kFieldTop = kHudHeight;
inline constexpr int kFieldBottom = 216;  // exclusive
inline constexpr int kFieldHeight = kFieldBottom - kFieldTop;

inline constexpr int kMaxPlayers = 8;
inline constexpr int kMaxShots = 128;
inline constexpr int kMaxEnemies = 48;
inline constexpr int kMaxBullets = 64;
inline constexpr int kMaxExplosions = 48;
inline constexpr int kVoices = 8;

inline constexpr int kSampleRate = 48000;
inline constexpr int kFramesPerSecond = 60;
inline constexpr int kSamplesPerFrame = kSampleRate / kFramesPerSecond;  // stereo frames

// Gameplay constants the renderer needs too.
inline constexpr uint16_t kShieldMax = 180;  // shield energy when full
inline constexpr int kBombGrowth = 3;        // bomb ring radius in pixels per frame of bomb age

// Pad word bits. The positions equal RETRO_DEVICE_ID_JOYPAD_* (the glue static_asserts this),
// so a libretro joypad mask can be stored unchanged.
enum PadBit : uint16_t {
    kPadB = 1u << 0,
    kPadY = 1u << 1,
    kPadSelect = 1u << 2,
    kPadStart = 1u << 3,
    kPadUp = 1u << 4,
    kPadDown = 1u << 5,
    kPadLeft = 1u << 6,
    kPadRight = 1u << 7,
    kPadA = 1u << 8,
    kPadX = 1u << 9,
    kPadL = 1u << 10,
    kPadR = 1u << 11,
    kPadL2 = 1u << 12,
    kPadR2 = 1u << 13,
    kPadL3 = 1u << 14,
    kPadR3 = 1u << 15,
};

enum Difficulty : uint8_t { kDifficultyEasy = 0, kDifficultyNormal = 1, kDifficultyHard = 2 };

enum ShipState : uint8_t {
    kShipInactive = 0,  // port beyond the configured player count
    kShipAlive = 1,
    kShipDown = 2,  // exploded, waiting to respawn
    kShipOut = 3,   // no lives left: START continues
};

enum ShotKind : uint8_t { kShotTwin = 0, kShotSpread = 1, kShotMissile = 2, kShotSide = 3 };
enum EnemyKind : uint8_t { kEnemyDart = 0, kEnemySwoop = 1, kEnemyBrute = 2 };
enum VoiceKind : uint8_t { kVoiceSquare = 0, kVoiceNoise = 1 };

// Explosion colours: 0..7 are the player colours, then these.
inline constexpr uint8_t kColorEnemyBase = 8;  // + EnemyKind
inline constexpr uint8_t kColorSpark = 11;
inline constexpr uint8_t kColorCount = 12;

struct System {
    uint64_t rng;           // xorshift64* state; the only source of randomness
    uint64_t content_hash;  // FNV-1a of the loaded content, 0 without content
    uint32_t frame;         // frames stepped since power-on
    uint32_t hi_score;      // latched from save RAM at power-on, then raised live
    uint16_t seed;          // farcade_seed at power-on
    uint16_t spawn_timer;   // frames until the next wave
    uint16_t hs_session;    // save-RAM session number latched at power-on (tags table entries)
    uint16_t waves;         // waves spawned since power-on
    uint8_t players;        // active ships, 2..8
    uint8_t difficulty;     // Difficulty; the one option applied mid-game
    uint8_t hs_latched;     // 1 once hi_score/hs_session were taken from save RAM
    uint8_t level;          // 1..9, rises every 30 seconds
    // Every pad word of every port, folded in each frame. A tap that one emulator saw and
    // another did not stays visible in the state forever, so netplay's hash comparison
    // catches a misplaced input even when the game itself ignored it.
    uint32_t input_digest;
};

struct Ship {
    int32_t x, y;  // centre, Q8
    uint32_t score;
    uint32_t next_bomb_at;   // score that awards the next bomb
    uint16_t pad;            // this frame's buttons (kept for every port, active or not)
    uint16_t prev_pad;       // last frame's buttons, for press edges
    uint16_t shield;         // shield energy, 0..kShieldMax
    uint16_t timer;          // kShipDown: frames to respawn; kShipAlive: invulnerable frames
    uint16_t bomb_age;       // frames since this ship's bomb went off, 0 = none
    int16_t bomb_x, bomb_y;  // bomb centre, whole pixels
    uint16_t start_held;     // frames START has been held (beacon animation)
    uint8_t state;           // ShipState
    uint8_t lives;
    uint8_t bombs;
    uint8_t shot_mode;                  // 0 twin, 1 spread; SELECT toggles
    uint8_t cool_a, cool_b, cool_side;  // fire cooldowns in frames
    uint8_t continues;  // how often START revived this port; tags high-score entries
};

struct Shot {
    int32_t x, y;
    int16_t vx, vy;
    uint8_t active;
    uint8_t owner;  // player index
    uint8_t kind;   // ShotKind
    uint8_t damage;
};

struct Enemy {
    int32_t x, y;
    int32_t base_x;  // centre line the wobble swings around
    int16_t vx, vy;
    uint16_t timer;  // age in frames; drives firing and leaving
    uint8_t active;
    uint8_t kind;  // EnemyKind
    uint8_t hp;
    uint8_t flash;      // frames left of the hit flash
    uint8_t phase;      // wobble phase, 1/256 turn
    uint8_t amp;        // wobble amplitude, whole pixels
    uint8_t hover;      // brute: field row (pixels) where it stops descending
    uint8_t bomb_hits;  // bit per player whose current bomb already hit it
    uint8_t reserved[2];
};

struct Bullet {
    int32_t x, y;
    int16_t vx, vy;
    uint8_t active;
    uint8_t age;
    uint8_t reserved[2];
};

struct Explosion {
    int16_t x, y;  // whole pixels
    uint8_t active;
    uint8_t age;
    uint8_t color;  // player index, kColorEnemyBase + kind, or kColorSpark
    uint8_t size;   // 0 spark, 1 enemy, 2 ship or brute
};

struct Objects {
    Shot shots[kMaxShots];
    Enemy enemies[kMaxEnemies];
    Bullet bullets[kMaxBullets];
    Explosion explosions[kMaxExplosions];
};

struct Voice {
    uint32_t phase;      // oscillator phase (square) or clock accumulator (noise)
    uint32_t step;       // phase increment per sample
    int32_t sweep;       // added to step every sample (pitch slide)
    uint32_t lfsr;       // noise shift register
    uint16_t remaining;  // samples left, 0 = silent
    uint16_t length;     // total samples, for the linear decay
    int16_t volume;      // peak amplitude
    uint8_t kind;        // VoiceKind
    uint8_t pan;         // 0 left .. 255 right
};

struct Audio {
    Voice voices[kVoices];
    uint32_t bass_phase;
    uint32_t sample_clock;  // samples produced since power-on; drives the bass line
    uint8_t reserved[8];
};

struct Ram {
    System sys;
    Ship ships[kMaxPlayers];
    Objects objects;
    Audio audio;
};

static_assert(std::is_trivially_copyable_v<Ram>);
static_assert(std::has_unique_object_representations_v<Ram>,
              "Ram must have no padding: hosts hash its raw bytes");

}  // namespace framelock::cores::arcade
