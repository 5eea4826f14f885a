// Desync bundles: what one player holds of a desync, in one file a player hands to a core
// developer (docs/desync.md): the core and content, the session's mode and delay, the first
// frame whose hashes disagreed, this player's state of the first snapshot frame from there and,
// as far as this player has it, the other side's (the reference state a repair sent), each
// with the memory regions the core exposed once it was loaded, the byte differences between
// the two, and the last inputs of every player.
//
// The format, every integer little-endian:
//   "FLDESYNC" (8 bytes), u16 version (kDesyncBundleVersion)
//   identity (netplay/wire/codec.h: core name and version, content hash, options hash,
//     fps x 1000, ports), string content name, u64 session, u8 mode (SessionMode),
//     u8 delay, u8 slot, u8 players, u32 desync frame, u8 differing slots (bit s-1: slot s),
//     u32 state frame
//   own side: blob state, regions
//   u8 other (DesyncBundle::Other), string note (<= 1023 bytes), other side: blob, regions
//   the state's difference: diff; u16 count, then per differing region: string name,
//     u64 start, diff
//   inputs: u32 first frame, u32 frames, u8 players, then frames x players u16 words
//   u32 CRC-32 of every byte before it
// where a string is a u16 length and its bytes; a blob u32 size, u32 zlib size, the zlib
// bytes; regions a u16 count, then per region a string name, u64 start and a blob; a diff
// u8 sizes differ, u64 differing bytes, u32 range count, u16 ranges listed, then per range
// u64 offset and u64 length.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/base/types.h"
#include "netplay/determinism/byte_diff.h"
#include "netplay/determinism/synctest.h"
#include "netplay/wire/protocol.h"

namespace framelock::frontend {

inline constexpr std::uint16_t kDesyncBundleVersion = 1;
// The first bytes of every bundle (how `synctest --compare` tells one from a hash log).
inline constexpr char kDesyncBundleMagic[] = "FLDESYNC";  // 8 bytes, without the NUL
// A bundle's input words: at most this many frames, the newest.
inline constexpr std::uint32_t kBundleInputFrames = 600;

struct DesyncBundle {
    netplay::SessionIdentity identity;
    std::string content_name;
    std::uint64_t session = 0;  // the same for every player of a session (desync_bundles.h)
    netplay::SessionMode mode = netplay::SessionMode::kFrameLock;
    std::uint8_t delay = 0;  // input delay at the desync frame, frames
    std::uint8_t slot = 0;   // the player who wrote it
    std::uint8_t players = 0;
    std::uint32_t desync_frame = 0;  // the first frame whose hashes disagreed
    std::uint8_t differing_slots = 0;
    // Both states are of this frame (the next frame to run from them): the first snapshot at
    // or after the desync, the one a repair sends.
    std::uint32_t state_frame = 0;

    std::vector<std::uint8_t> own_state;  // empty: not held any more
    std::vector<netplay::RegionCopy> own_regions;
    // What the other side is.
    enum class Other : std::uint8_t {
        kReference = 1,  // the reference state a repair sent this player
        kNone = 2,       // none here: `other_note` says why
    };
    Other other = Other::kNone;
    std::string other_note;
    std::vector<std::uint8_t> other_state;
    std::vector<netplay::RegionCopy> other_regions;

    // Own against other (empty when there is no other).
    netplay::ByteDiff state_diff;
    std::vector<netplay::RegionDiff> region_diffs;

    // Every player's pad words of frames [inputs_from, inputs_from + inputs.size()), as run.
    std::uint32_t inputs_from = 0;
    std::vector<netplay::InputFrame> inputs;
};

std::vector<std::uint8_t> encode_desync_bundle(const DesyncBundle& bundle);
// kState errors: not a bundle, another version, truncated, a CRC that does not match, a
// state or region beyond netplay::kMaxStateBytes.
Result<DesyncBundle> decode_desync_bundle(std::span<const std::uint8_t> bytes);
// Whether `bytes` begin like a bundle.
bool is_desync_bundle(std::span<const std::uint8_t> bytes);

// Written atomically (frontend/files/atomic_file.h); the directory is created.
Status write_desync_bundle(const std::filesystem::path& path, const DesyncBundle& bundle);
// Errors name the path.
Result<DesyncBundle> read_desync_bundle(const std::filesystem::path& path);

}  // namespace framelock::frontend
