// The replay file format: a session's identity and start, then every frame's inputs and the
// state hash after it, so `framelock replay play --verify` can re-run and check it.
//
//   file  = magic "FLRP" (u32 LE) | version (u16) | block (header) | block (frames, mask)...
//   block = type (u8: 1 header, 2 frames, 3 mask, 4 chat, 5 keyframe) | raw size (u32) |
//           packed size (u32) |
//           CRC-32 of the packed bytes (u32) | packed bytes (zlib)
//   header payload = identity | players (u8) | start frame (u32) | start state size (u32) |
//                    start state bytes (empty: the core's power-on)
//   frames payload = first frame (u32) | count (u16, 1..kReplayFramesPerBlock) |
//                    per player: run-length coded pads | per frame: state hash (u64)
//   mask payload   = an EvidenceMask message (protocol.h) whose from_frame is the first frame
//                    hashed with it here: the frame hashes from then on leave its bytes out
//                    (version 2; a version 1 file has none and is read as ever)
//   chat payload   = a ChatLine message (protocol.h): a line said in the session, at the
//                    server's confirmed frame as it relayed it (version 3)
//   keyframe payload = frame (u32) | state bytes: the core's state before that frame ran,
//                    written after the frames before it, every kReplayKeyframeInterval
//                    frames (version 4), so a viewer seeks from the nearest one
//
// Blocks are written one at a time (a recorder flushes one a second), each checked on its
// own, so a file cut short by a crash reads up to its last complete block. Every size is
// checked against a hard cap before anything is allocated.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/base/types.h"
#include "netplay/wire/protocol.h"

namespace framelock::netplay {

inline constexpr std::uint32_t kReplayMagic = 0x50524c46;  // "FLRP"
inline constexpr std::uint16_t kReplayVersion = 4;
inline constexpr std::uint16_t kReplayOldestVersion = 1;  // still read
inline constexpr std::size_t kReplayFramesPerBlock = 240;
inline constexpr std::size_t kMaxReplayStateBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxReplayBlockBytes = std::size_t{1} << 20;
// A keyframe every 10 s at 60 fps: a seek re-runs at most this many frames from one (and the
// replay's first frame once, the first time it leaves the start).
inline constexpr std::uint32_t kReplayKeyframeInterval = 600;

struct ReplayHeader {
    SessionIdentity identity;
    std::uint8_t players = 0;
    std::uint32_t start_frame = 0;
    std::vector<std::uint8_t> start_state;  // empty: from power-on
};

struct ReplayFrame {
    InputFrame inputs;
    std::uint64_t hash = 0;  // the desync evidence (evidence.h) of the state after the frame
};

// The file's first bytes: magic, version and the header block.
std::vector<std::uint8_t> encode_replay_start(const ReplayHeader& header);
// One frames block: frames first .. first + frames.size() - 1 (at most
// kReplayFramesPerBlock).
std::vector<std::uint8_t> encode_replay_frames(std::uint32_t first,
                                               std::span<const ReplayFrame> frames, int players);

// One mask block: from its from_frame on, hashes leave its bytes out.
std::vector<std::uint8_t> encode_replay_mask(const EvidenceMask& mask);
// One chat block: a line said in the session.
std::vector<std::uint8_t> encode_replay_chat(const ChatLine& line);

// A keyframe as read: kept packed (a long replay of a core with a large state holds many),
// unpacked by keyframe_state() when a seek needs it.
struct ReplayKeyframe {
    std::uint32_t frame = 0;  // the state is the core's before this frame ran
    std::uint32_t raw_size = 0;
    std::vector<std::uint8_t> packed;
};

// One keyframe block: the state before `frame` ran.
std::vector<std::uint8_t> encode_replay_keyframe(std::uint32_t frame,
                                                 std::span<const std::uint8_t> state);
// The state a keyframe holds; kState error when its bytes are not what the block said.
Result<std::vector<std::uint8_t>> keyframe_state(const ReplayKeyframe& keyframe);

struct ReplayContents {
    ReplayHeader header;
    std::vector<ReplayFrame> frames;  // from header.start_frame on, contiguous
    std::vector<EvidenceMask> masks;  // in the order written (from_frame ascending)
    std::vector<ChatLine> chat;       // in the order said (as written: not made safe here)
    // Frame ascending, each within (start_frame, start_frame + frames.size()]; none before
    // version 4.
    std::vector<ReplayKeyframe> keyframes;
    // The mask the hash of `frame` was computed with (the whole state before any).
    EvidenceMask mask_at(std::uint32_t frame) const;
    // Empty when every byte was read; else why reading stopped early (a block cut short by
    // a crash, a corrupt block): the frames before it are complete and usable.
    std::string stopped;
};

// kState error (saying what is wrong) when the file is not a replay or its header is
// unusable; a damaged tail only ends the frames early.
Result<ReplayContents> parse_replay(std::span<const std::uint8_t> bytes);

}  // namespace framelock::netplay
