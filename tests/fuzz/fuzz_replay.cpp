// Replay parsing (netplay/determinism/replay.h). An input that starts with the FLRP magic is a
// replay file as it is on disk (a real recording seeds the corpus); any other input is a list of
// blocks (type u8, then u16 length + payload) the harness frames correctly (zlib, sizes and
// CRC), so mutations reach the header and frame payload parsers instead of dying
// at the CRC.
//
// What parses must survive a round trip: written again block by block, it parses to the
// same header and frames, without stopping early.
#include <algorithm>
#include <vector>

#include <zlib.h>

#include "netplay/determinism/replay.h"
#include "netplay/wire/compression.h"
#include "netplay/wire/wire.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/fuzz_targets.h"

namespace framelock::fuzz {
namespace {

using namespace netplay;
using Bytes = std::vector<std::uint8_t>;

// `raw` as zlib data in stored (uncompressed) deflate blocks: what inflate reads like any
// other, framed without deflate's allocations (this harness frames every input).
Bytes stored_zlib(std::span<const std::uint8_t> raw) {
    Bytes out = {0x78, 0x01};
    std::size_t at = 0;
    do {
        const std::size_t n = std::min<std::size_t>(raw.size() - at, 65535);
        out.push_back(at + n == raw.size() ? 1 : 0);  // BFINAL, BTYPE 00 (stored)
        out.push_back(static_cast<std::uint8_t>(n));
        out.push_back(static_cast<std::uint8_t>(n >> 8));
        out.push_back(static_cast<std::uint8_t>(~n));
        out.push_back(static_cast<std::uint8_t>(~n >> 8));
        out.insert(out.end(), raw.begin() + static_cast<long>(at),
                   raw.begin() + static_cast<long>(at + n));
        at += n;
    } while (at < raw.size());
    const auto adler =
        static_cast<std::uint32_t>(adler32(1, raw.data(), static_cast<uInt>(raw.size())));
    for (int shift = 24; shift >= 0; shift -= 8)
        out.push_back(static_cast<std::uint8_t>(adler >> shift));
    return out;
}

Bytes framed_blocks(FuzzInput& in) {
    WireWriter w;
    w.u32(kReplayMagic);
    w.u16(kReplayVersion);
    while (!in.empty()) {
        const std::uint8_t type = in.u8();
        const Bytes raw = in.blob();
        const Bytes packed = stored_zlib(raw);
        w.u8(type);
        w.u32(static_cast<std::uint32_t>(raw.size()));
        w.u32(static_cast<std::uint32_t>(packed.size()));
        w.u32(crc32_of(packed));
        w.bytes(packed);
    }
    return w.take();
}

void check_round_trip(const ReplayContents& replay) {
    const ReplayHeader& header = replay.header;
    FUZZ_CHECK(header.players >= 1 && header.players <= kMaxPlayers);
    Bytes file = encode_replay_start(header);
    for (std::size_t at = 0; at < replay.frames.size(); at += kReplayFramesPerBlock) {
        const std::size_t n = std::min(kReplayFramesPerBlock, replay.frames.size() - at);
        const Bytes block =
            encode_replay_frames(header.start_frame + static_cast<std::uint32_t>(at),
                                 std::span(replay.frames).subspan(at, n), header.players);
        file.insert(file.end(), block.begin(), block.end());
    }
    const auto again = parse_replay(file);
    FUZZ_CHECK(again.ok());
    const ReplayContents& b = again.value();
    FUZZ_CHECK(b.stopped.empty());
    FUZZ_CHECK(b.header.identity == header.identity);
    FUZZ_CHECK(b.header.players == header.players);
    FUZZ_CHECK(b.header.start_frame == header.start_frame);
    FUZZ_CHECK(b.header.start_state == header.start_state);
    FUZZ_CHECK(b.frames.size() == replay.frames.size());
    for (std::size_t f = 0; f < b.frames.size(); ++f) {
        FUZZ_CHECK(b.frames[f].hash == replay.frames[f].hash);
        FUZZ_CHECK(b.frames[f].inputs == replay.frames[f].inputs);
    }
}

}  // namespace

int fuzz_replay(const std::uint8_t* data, std::size_t size) {
    WireReader magic(std::span(data, std::min<std::size_t>(size, 4)));
    Bytes framed;
    std::span<const std::uint8_t> file(data, size);
    if (magic.u32() != kReplayMagic) {
        FuzzInput in(data, size);
        framed = framed_blocks(in);
        file = framed;
    }
    const auto replay = parse_replay(file);
    if (!replay) {
        FUZZ_CHECK(!replay.error().message.empty());
        return 0;
    }
    // A keyframe unpacks to its state or says why not, within the cap (keyframes are not
    // part of the round trip below).
    for (const ReplayKeyframe& keyframe : replay.value().keyframes) {
        FUZZ_CHECK(keyframe.frame > replay.value().header.start_frame);
        const auto state = keyframe_state(keyframe);
        if (!state) {
            FUZZ_CHECK(!state.error().message.empty());
            continue;
        }
        FUZZ_CHECK(state.value().size() <= kMaxReplayStateBytes);
    }
    check_round_trip(replay.value());
    return 0;
}

}  // namespace framelock::fuzz
