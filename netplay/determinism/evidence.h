// Desync evidence: what players hash for the server to compare. A hash that can differ while
// the game is identical is not evidence, so the serialized state is hashed without the bytes
// a load moves (a clock the core reads when a state is loaded, a load counter, padding it
// fills afresh): every player finds those right after loading a state (probe_moved_bytes),
// the server unites what they found into one EvidenceMask, and every report says which mask
// it was computed with. A core whose state is mostly such bytes, or that cannot save at all,
// is compared on the memory it exposes instead (EvidenceKind::kMemory).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "netplay/interfaces/emulator.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

// The share of a state the mask may cover before the evidence falls back to memory: beyond
// it, the state says too little about the game.
inline constexpr std::size_t kMaxMaskedDivisor = 4;  // at most 1/4 of the state

// Right after `emulator` loaded `loaded` (the state of `frame`): which bytes moved. Saves, loads
// that save, saves again, and loads `loaded` once more, so the emulator ends as every other
// player who loaded those bytes does. `before` is the live machine's state before the load
// (a repair; empty after a power-on, whose values a load may reset fields to): a byte that kept
// that value instead of the loaded one was not restored, which is a real difference between
// players, not a moving byte, and is left out. Nothing listed when the core cannot save.
MovedBytes probe_moved_bytes(Emulator& emulator, std::span<const std::uint8_t> loaded,
                             std::uint32_t frame, std::span<const std::uint8_t> before = {});

// Hash of the memory regions, in order (0 when the core exposes none).
std::uint64_t memory_hash(const std::vector<MemoryRegion>& regions);

// The evidence of `emulator`'s machine as it is now, under `mask` (0: none to give, e.g. the
// core could not save). `scratch` is reused between calls.
std::uint64_t evidence_hash(Emulator& emulator, const EvidenceMask& mask,
                            std::vector<std::uint8_t>& scratch);
// Of a state saved earlier (kState only; 0 for kMemory, which needs the machine).
std::uint64_t evidence_hash(std::span<const std::uint8_t> state, const EvidenceMask& mask);

// Widens `mask` by what one player saw move; true when it changed. Past kMaxMaskRanges ranges
// or a quarter of the state, the mask turns to kMemory (and stays so).
bool widen_mask(EvidenceMask& mask, const MovedBytes& moved);

}  // namespace framelock::netplay
