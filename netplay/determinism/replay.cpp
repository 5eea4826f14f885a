#include "netplay/determinism/replay.h"

#include "netplay/wire/codec.h"
#include "netplay/wire/compression.h"
#include "netplay/wire/wire.h"

namespace framelock::netplay {
namespace {

enum BlockType : std::uint8_t {
    kHeaderBlock = 1,
    kFramesBlock = 2,
    kMaskBlock = 3,
    kChatBlock = 4,
    kKeyframeBlock = 5,
};
constexpr std::size_t kBlockHead = 1 + 4 + 4 + 4;

// Keyframes are packed at zlib's fastest level: the recorder packs one in the session's loop
// every 10 s, and a large state at level 6 takes a frame's time or more.
constexpr int kKeyframeLevel = 1;

std::vector<std::uint8_t> block(BlockType type, const std::vector<std::uint8_t>& raw,
                                int level = 6) {
    const std::vector<std::uint8_t> packed = deflate_bytes(raw, level);
    WireWriter w;
    w.u8(type);
    w.u32(static_cast<std::uint32_t>(raw.size()));
    w.u32(static_cast<std::uint32_t>(packed.size()));
    w.u32(crc32_of(packed));
    w.bytes(packed);
    return w.take();
}

struct Block {
    std::uint8_t type = 0;
    std::vector<std::uint8_t> raw;
    // A keyframe's bytes stay packed (read_block leaves raw empty): unpacked when used.
    std::uint32_t raw_size = 0;
    std::span<const std::uint8_t> packed;
};

// The block at `at`; on success `at` moves past it. An error says what is wrong.
Result<Block> read_block(std::span<const std::uint8_t> bytes, std::size_t& at, std::size_t cap,
                         std::uint16_t version) {
    if (bytes.size() - at < kBlockHead) return make_error(ErrorCode::kState, "a block cut short");
    WireReader r(bytes.subspan(at, kBlockHead));
    Block b;
    b.type = r.u8();
    const std::uint32_t raw_size = r.u32();
    const std::uint32_t packed_size = r.u32();
    const std::uint32_t crc = r.u32();
    const BlockType newest = version >= 4   ? kKeyframeBlock
                             : version >= 3 ? kChatBlock
                             : version >= 2 ? kMaskBlock
                                            : kFramesBlock;
    if (b.type < kHeaderBlock || b.type > newest)
        return make_error(ErrorCode::kState, "an unknown block type " + std::to_string(b.type));
    if (packed_size > bytes.size() - at - kBlockHead)
        return make_error(ErrorCode::kState, "a block cut short");
    const auto packed = bytes.subspan(at + kBlockHead, packed_size);
    if (crc32_of(packed) != crc) return make_error(ErrorCode::kState, "a corrupt block (CRC)");
    if (b.type == kKeyframeBlock) {
        // One over the cap (or too short to name its frame) is passed over: raw_size 0. The
        // frames after it are still the replay's.
        if (raw_size >= 4 && raw_size <= kMaxReplayStateBytes + 4) {
            b.raw_size = raw_size;
            b.packed = packed;
        }
        at += kBlockHead + packed_size;
        return b;
    }
    auto raw = inflate_bounded(packed, raw_size, cap);
    if (!raw) return raw.error();
    b.raw = std::move(raw).value();
    at += kBlockHead + packed_size;
    return b;
}

}  // namespace

std::vector<std::uint8_t> encode_replay_start(const ReplayHeader& header) {
    WireWriter payload;
    write_identity(payload, header.identity);
    payload.u8(header.players);
    payload.u32(header.start_frame);
    payload.u32(static_cast<std::uint32_t>(header.start_state.size()));
    payload.bytes(header.start_state);
    WireWriter w;
    w.u32(kReplayMagic);
    w.u16(kReplayVersion);
    w.bytes(block(kHeaderBlock, payload.take()));
    return w.take();
}

std::vector<std::uint8_t> encode_replay_frames(std::uint32_t first,
                                               std::span<const ReplayFrame> frames, int players) {
    WireWriter payload;
    payload.u32(first);
    payload.u16(static_cast<std::uint16_t>(frames.size()));
    std::vector<InputWord> column(frames.size());
    for (int p = 0; p < players; ++p) {
        for (std::size_t f = 0; f < frames.size(); ++f) column[f] = frames[f].inputs.pads[p];
        write_runs(payload, column);
    }
    for (const auto& f : frames) payload.u64(f.hash);
    return block(kFramesBlock, payload.take());
}

std::vector<std::uint8_t> encode_replay_mask(const EvidenceMask& mask) {
    return block(kMaskBlock, encode(mask));
}

std::vector<std::uint8_t> encode_replay_chat(const ChatLine& line) {
    return block(kChatBlock, encode(line));
}

std::vector<std::uint8_t> encode_replay_keyframe(std::uint32_t frame,
                                                 std::span<const std::uint8_t> state) {
    WireWriter payload;
    payload.u32(frame);
    payload.bytes(state);
    return block(kKeyframeBlock, payload.take(), kKeyframeLevel);
}

Result<std::vector<std::uint8_t>> keyframe_state(const ReplayKeyframe& keyframe) {
    auto raw = inflate_bounded(keyframe.packed, keyframe.raw_size, kMaxReplayStateBytes + 4);
    if (!raw) return raw.error();
    WireReader r(raw.value());
    if (r.u32() != keyframe.frame) {
        return make_error(
            ErrorCode::kState,
            "the keyframe of frame " + std::to_string(keyframe.frame) + " names another frame");
    }
    std::vector<std::uint8_t> state(raw.value().begin() + 4, raw.value().end());
    return state;
}

EvidenceMask ReplayContents::mask_at(std::uint32_t frame) const {
    EvidenceMask in_force;
    for (const EvidenceMask& mask : masks) {
        if (frame >= mask.from_frame) in_force = mask;
    }
    return in_force;
}

Result<ReplayContents> parse_replay(std::span<const std::uint8_t> bytes) {
    WireReader magic(bytes.first(std::min<std::size_t>(bytes.size(), 6)));
    const std::uint32_t m = magic.u32();
    const std::uint16_t version = magic.u16();
    if (magic.failed() || m != kReplayMagic)
        return make_error(ErrorCode::kState, "not a framelock replay (no FLRP magic)");
    if (version < kReplayOldestVersion || version > kReplayVersion) {
        return make_error(ErrorCode::kState, "replay format version " + std::to_string(version) +
                                                 "; this framelock reads versions " +
                                                 std::to_string(kReplayOldestVersion) + " to " +
                                                 std::to_string(kReplayVersion));
    }
    std::size_t at = 6;
    auto header_block = read_block(bytes, at, kMaxReplayStateBytes + 4096, version);
    if (!header_block)
        return make_error(ErrorCode::kState,
                          "replay header unreadable: " + header_block.error().message);
    if (header_block.value().type != kHeaderBlock)
        return make_error(ErrorCode::kState, "replay header missing");
    ReplayContents out;
    {
        WireReader r(header_block.value().raw);
        out.header.identity = read_identity(r);
        out.header.players = r.u8();
        out.header.start_frame = r.u32();
        const std::uint32_t state_size = r.u32();
        if (!r.failed() && state_size <= r.remaining()) {
            const auto state = r.bytes(state_size);
            out.header.start_state.assign(state.begin(), state.end());
        } else {
            r.fail();
        }
        if (!r.done() || out.header.players == 0 || out.header.players > kMaxPlayers)
            return make_error(ErrorCode::kState, "replay header malformed");
    }
    const int players = out.header.players;
    while (at < bytes.size()) {
        auto b = read_block(bytes, at, kMaxReplayBlockBytes, version);
        if (!b) {
            out.stopped = b.error().message + " after frame " +
                          std::to_string(out.header.start_frame + out.frames.size()) +
                          " (the frames before it are complete)";
            break;
        }
        if (b.value().type == kKeyframeBlock) {
            // Written after the frames before it: its frame is the next one to come.
            const std::uint64_t next = out.header.start_frame + std::uint64_t{out.frames.size()};
            // One at the start frame says what the header's state says: not kept; nor one
            // passed over (its size), nor one past the last frame number.
            if (out.frames.empty() || b.value().raw_size == 0 || next > UINT32_MAX) continue;
            out.keyframes.push_back({static_cast<std::uint32_t>(next),
                                     b.value().raw_size,
                                     {b.value().packed.begin(), b.value().packed.end()}});
            continue;
        }
        if (b.value().type == kMaskBlock) {
            auto mask = decode_evidence_mask(b.value().raw);
            if (!mask || (!out.masks.empty() && mask->from_frame < out.masks.back().from_frame)) {
                out.stopped = "a malformed mask block after frame " +
                              std::to_string(out.header.start_frame + out.frames.size());
                break;
            }
            out.masks.push_back(std::move(*mask));
            continue;
        }
        if (b.value().type == kChatBlock) {
            auto line = decode_chat_line(b.value().raw);
            if (!line) {
                out.stopped = "a malformed chat block after frame " +
                              std::to_string(out.header.start_frame + out.frames.size());
                break;
            }
            out.chat.push_back(std::move(*line));
            continue;
        }
        WireReader r(b.value().raw);
        const std::uint32_t first = r.u32();
        const std::size_t count = r.u16();
        // Frame numbers are u32: frames past 4294967295 end the replay (no wrap to 0).
        const std::uint64_t expected = out.header.start_frame + std::uint64_t{out.frames.size()};
        if (b.value().type != kFramesBlock || count == 0 || count > kReplayFramesPerBlock ||
            first != expected || expected + count - 1 > UINT32_MAX) {
            out.stopped =
                "an unexpected block where frame " + std::to_string(expected) + " should follow";
            break;
        }
        std::vector<ReplayFrame> frames(count);
        std::vector<InputWord> column;
        bool ok = true;
        for (int p = 0; p < players && ok; ++p) {
            ok = read_runs(r, count, column);
            for (std::size_t f = 0; ok && f < count; ++f) frames[f].inputs.pads[p] = column[f];
        }
        for (auto& f : frames) f.hash = r.u64();
        if (!ok || !r.done()) {
            out.stopped = "a malformed frames block at frame " + std::to_string(expected);
            break;
        }
        out.frames.insert(out.frames.end(), frames.begin(), frames.end());
    }
    return out;
}

}  // namespace framelock::netplay
