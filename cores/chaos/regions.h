// Layout of the chaos core's memory: one block, four named regions.
//
// The whole block is what retro_get_memory_data(RETRO_MEMORY_SYSTEM_RAM) returns; each region is
// also published as its own RETRO_ENVIRONMENT_SET_MEMORY_MAPS descriptor so a determinism checker
// can name the region where two runs first differ.
#pragma once

#include <array>
#include <cstddef>

namespace framelock::cores::chaos {

struct Region {
    const char* name;    // memory-map addrspace, NUL-terminated
    std::size_t offset;  // bytes from the start of the block
    std::size_t size;    // bytes; a power of two because descriptors use select == 0
    std::size_t start;   // address of the first byte in the memory map
};

// MAIN: the game proper (frame counter, inputs, sprites, digests of the other regions).
inline constexpr Region kMain{"MAIN", 0x000, 256, 0x0000};
// CLOCK: zero unless the wallclock fault writes real time into it.
inline constexpr Region kClock{"CLOCK", 0x100, 64, 0x1000};
// SCRATCH: zero unless the uninit fault copies simulated leftover memory into it.
inline constexpr Region kScratch{"SCRATCH", 0x140, 64, 0x2000};
// HIDDEN: evolves every frame; the unsaved fault leaves it out of savestates.
inline constexpr Region kHidden{"HIDDEN", 0x180, 64, 0x3000};

inline constexpr std::array<Region, 4> kRegions{kMain, kClock, kScratch, kHidden};
inline constexpr std::size_t kBlockSize = kHidden.offset + kHidden.size;

// Fields inside MAIN, byte offsets from the start of MAIN. Multi-byte fields are little-endian
// regardless of the host, so the block's bytes (and the savestate) are the same on every machine.
inline constexpr std::size_t kMainFrame = 0x00;          // u32: retro_run calls completed
inline constexpr std::size_t kMainInputHash = 0x04;      // u32: FNV-1a over every pad word so far
inline constexpr std::size_t kMainPad0 = 0x08;           // u16: port 0 buttons, bit n = JOYPAD id n
inline constexpr std::size_t kMainPad1 = 0x0A;           // u16: port 1 buttons
inline constexpr std::size_t kMainSprite0 = 0x0C;        // u8 x, u8 y inside the playfield
inline constexpr std::size_t kMainSprite1 = 0x0E;        // u8 x, u8 y
inline constexpr std::size_t kMainPhaseLeft = 0x10;      // u32: tone oscillator phase
inline constexpr std::size_t kMainPhaseRight = 0x14;     // u32
inline constexpr std::size_t kMainClockDigest = 0x18;    // u32: digest of CLOCK before this frame
inline constexpr std::size_t kMainScratchDigest = 0x1C;  // u32: digest of SCRATCH before this frame
inline constexpr std::size_t kMainHiddenDigest = 0x20;   // u32: digest of HIDDEN before this frame
inline constexpr std::size_t kMainMix = 0x24;            // u32: running hash of all of the above
inline constexpr std::size_t kMainHistory = 0x40;        // u32[48]: kMainMix of recent frames
inline constexpr std::size_t kMainHistoryWords = (kMain.size - kMainHistory) / 4;

}  // namespace framelock::cores::chaos
