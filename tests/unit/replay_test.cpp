// The replay format and bounded decompression: round trips, files cut short at every byte,
// corruption, and data crafted to exhaust memory.
#include <catch2/catch.hpp>

#include "netplay/determinism/replay.h"
#include "netplay/wire/compression.h"

using namespace framelock::netplay;

namespace {

ReplayHeader header() {
    ReplayHeader h;
    h.identity = {"framelock-arcade", "1.0", 0x1111, 0x2222, 60000, 2};
    h.players = 2;
    h.start_frame = 0;
    return h;
}

std::vector<ReplayFrame> frames(std::uint32_t first, std::size_t n) {
    std::vector<ReplayFrame> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        out[i].inputs.pads[0] = static_cast<InputWord>(((first + i) / 7) * 0x11);
        out[i].inputs.pads[1] = static_cast<InputWord>(((first + i) / 3) & 0xff0);
        out[i].hash = 0x9e3779b97f4a7c15ull * (first + i + 1);
    }
    return out;
}

std::vector<std::uint8_t> file_with_blocks(int blocks, std::size_t per_block) {
    std::vector<std::uint8_t> file = encode_replay_start(header());
    for (int b = 0; b < blocks; ++b) {
        const auto f = frames(static_cast<std::uint32_t>(b * per_block), per_block);
        const auto bytes = encode_replay_frames(static_cast<std::uint32_t>(b * per_block), f, 2);
        file.insert(file.end(), bytes.begin(), bytes.end());
    }
    return file;
}

}  // namespace

TEST_CASE("inflate_bounded: exact sizes only, a cap before allocating, corrupt data refused",
          "[replay]") {
    std::vector<std::uint8_t> data(100'000);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i / 100);
    const auto packed = deflate_bytes(data);
    CHECK(packed.size() < data.size() / 10);
    auto back = inflate_bounded(packed, data.size(), 1 << 20);
    REQUIRE(back);
    CHECK(back.value() == data);
    // A zlib bomb: 100 KB declared as 1 KB must not inflate past the declaration.
    auto bomb = inflate_bounded(packed, 1000, 1 << 20);
    REQUIRE_FALSE(bomb);
    CHECK_THAT(bomb.error().message, Catch::Contains("more than the declared"));
    // A declared size over the cap is refused before anything is allocated.
    auto huge = inflate_bounded(packed, std::size_t{1} << 40, 1 << 20);
    REQUIRE_FALSE(huge);
    CHECK_THAT(huge.error().message, Catch::Contains("over the limit"));
    CHECK_FALSE(inflate_bounded(packed, data.size() + 1, 1 << 20));  // fewer than declared
    auto corrupt = packed;
    corrupt[corrupt.size() / 2] ^= 0x5a;
    CHECK_FALSE(inflate_bounded(corrupt, data.size(), 1 << 20));
    CHECK_FALSE(inflate_bounded(std::span(packed).first(packed.size() / 2), data.size(), 1 << 20));
}

TEST_CASE("replay: header, inputs and hashes round trip", "[replay]") {
    ReplayHeader h = header();
    h.start_frame = 5000;
    h.start_state = {1, 2, 3, 4, 5};
    std::vector<std::uint8_t> file = encode_replay_start(h);
    const auto f = frames(5000, 200);
    const auto block = encode_replay_frames(5000, f, 2);
    file.insert(file.end(), block.begin(), block.end());
    auto parsed = parse_replay(file);
    REQUIRE(parsed);
    CHECK(parsed.value().stopped.empty());
    CHECK(parsed.value().header.identity == h.identity);
    CHECK(parsed.value().header.start_frame == 5000);
    CHECK(parsed.value().header.start_state == h.start_state);
    REQUIRE(parsed.value().frames.size() == 200);
    for (std::size_t i = 0; i < 200; ++i) {
        CHECK(parsed.value().frames[i].inputs == f[i].inputs);
        CHECK(parsed.value().frames[i].hash == f[i].hash);
    }
}

TEST_CASE("replay: a file cut at any byte keeps every complete block", "[replay]") {
    const auto file = file_with_blocks(3, 60);
    const std::size_t start = encode_replay_start(header()).size();
    std::vector<std::size_t> block_ends;
    {
        std::size_t at = start;
        for (int b = 0; b < 3; ++b) {
            at += encode_replay_frames(static_cast<std::uint32_t>(b * 60),
                                       frames(static_cast<std::uint32_t>(b * 60), 60), 2)
                      .size();
            block_ends.push_back(at);
        }
    }
    REQUIRE(block_ends.back() == file.size());
    for (std::size_t cut = 0; cut <= file.size(); ++cut) {
        auto parsed = parse_replay(std::span(file).first(cut));
        if (cut < start) {
            CHECK_FALSE(parsed);  // no usable header
            continue;
        }
        REQUIRE(parsed);
        std::size_t complete = 0;
        for (std::size_t end : block_ends) complete += cut >= end;
        INFO("cut at " << cut);
        CHECK(parsed.value().frames.size() == complete * 60);
        CHECK(parsed.value().stopped.empty() == (cut == start || cut == block_ends[0] ||
                                                 cut == block_ends[1] || cut == block_ends[2]));
    }
}

TEST_CASE("replay: corruption, wrong magic or version, gaps are refused or end the frames",
          "[replay]") {
    auto file = file_with_blocks(2, 60);
    auto not_replay = file;
    not_replay[0] = 'X';
    CHECK_FALSE(parse_replay(not_replay));
    auto future = file;
    future[4] = 9;
    auto refused = parse_replay(future);
    REQUIRE_FALSE(refused);
    CHECK_THAT(refused.error().message, Catch::Contains("version 9"));
    // A flipped byte in the second block: the first still plays.
    auto damaged = file;
    damaged[damaged.size() - 3] ^= 0x40;
    auto parsed = parse_replay(damaged);
    REQUIRE(parsed);
    CHECK(parsed.value().frames.size() == 60);
    CHECK_THAT(parsed.value().stopped, Catch::Contains("corrupt block"));
    // A block that does not continue where the last one ended.
    std::vector<std::uint8_t> gap = encode_replay_start(header());
    const auto a = encode_replay_frames(0, frames(0, 10), 2);
    const auto b = encode_replay_frames(20, frames(20, 10), 2);
    gap.insert(gap.end(), a.begin(), a.end());
    gap.insert(gap.end(), b.begin(), b.end());
    auto gapped = parse_replay(gap);
    REQUIRE(gapped);
    CHECK(gapped.value().frames.size() == 10);
    CHECK_THAT(gapped.value().stopped, Catch::Contains("frame 10"));
}

TEST_CASE(
    "replay: mask blocks say from which frame the hashes leave bytes out, version 1 "
    "files still read",
    "[replay]") {
    std::vector<std::uint8_t> file = encode_replay_start(header());
    const auto append = [&](const std::vector<std::uint8_t>& bytes) {
        file.insert(file.end(), bytes.begin(), bytes.end());
    };
    append(encode_replay_frames(0, frames(0, 60), 2));
    append(encode_replay_mask(EvidenceMask{1, 60, EvidenceKind::kState, {{16, 8}}}));
    append(encode_replay_frames(60, frames(60, 60), 2));
    append(encode_replay_mask(EvidenceMask{2, 100, EvidenceKind::kMemory, {}}));
    auto parsed = parse_replay(file);
    REQUIRE(parsed);
    const ReplayContents& r = parsed.value();
    CHECK(r.stopped.empty());
    CHECK(r.frames.size() == 120);
    REQUIRE(r.masks.size() == 2);
    CHECK(r.mask_at(59).generation == 0);
    CHECK(r.mask_at(59).ranges.empty());
    CHECK(r.mask_at(60).generation == 1);
    CHECK(r.mask_at(99).ranges == std::vector<ByteRange>{{16, 8}});
    CHECK(r.mask_at(100).kind == EvidenceKind::kMemory);
    // A mask going back in time ends the readable part there.
    append(encode_replay_mask(EvidenceMask{3, 50, EvidenceKind::kState, {}}));
    auto cut = parse_replay(file);
    REQUIRE(cut);
    CHECK_THAT(cut.value().stopped, Catch::Contains("malformed mask block"));
    // A version 1 file (no mask blocks) reads as before.
    auto old = file_with_blocks(2, 60);
    old[4] = 1;
    auto v1 = parse_replay(old);
    REQUIRE(v1);
    CHECK(v1.value().frames.size() == 120);
    CHECK(v1.value().masks.empty());
}

TEST_CASE(
    "replay: chat blocks keep each line with its frame, sender and text, and version 2 files (no "
    "chat) still read",
    "[replay][chat]") {
    std::vector<std::uint8_t> file = encode_replay_start(header());
    const auto append = [&](const std::vector<std::uint8_t>& bytes) {
        file.insert(file.end(), bytes.begin(), bytes.end());
    };
    append(encode_replay_frames(0, frames(0, 60), 2));
    append(encode_replay_chat(ChatLine{42, 1, "ann", "gl hf"}));
    append(encode_replay_chat(ChatLine{58, 0, "sam", "go!"}));
    append(encode_replay_frames(60, frames(60, 60), 2));
    auto parsed = parse_replay(file);
    REQUIRE(parsed);
    const ReplayContents& r = parsed.value();
    CHECK(r.stopped.empty());
    CHECK(r.frames.size() == 120);
    REQUIRE(r.chat.size() == 2);
    CHECK(r.chat[0].frame == 42);
    CHECK(r.chat[0].from_slot == 1);
    CHECK(r.chat[0].from == "ann");
    CHECK(r.chat[0].text == "gl hf");
    CHECK(r.chat[1].from_slot == 0);
    CHECK(r.chat[1].text == "go!");
    // A version 2 file: the same blocks but chat, read as before.
    auto v2 = file_with_blocks(2, 60);
    v2[4] = 2;
    auto old = parse_replay(v2);
    REQUIRE(old);
    CHECK(old.value().frames.size() == 120);
    CHECK(old.value().chat.empty());
}
