// Seeking in a replay (netplay/determinism/replay_seeker.h) on the simulator's HashingEmulator:
// a recording with keyframes, written and read back through the file format; every frame
// shown by a seek or a step has the state the recording had; a replay without keyframes
// (versions 1 to 3) still seeks; a damaged keyframe says which.
#include <catch2/catch.hpp>

#include <random>

#include "netplay/determinism/evidence.h"
#include "netplay/determinism/replay.h"
#include "netplay/determinism/replay_seeker.h"
#include "netplay/sim/sim_session.h"

using namespace framelock::netplay;

namespace {

constexpr std::uint32_t kFrames = 3000;

InputFrame pads_of(std::uint32_t frame) {
    InputFrame in;
    in.pads[0] = static_cast<InputWord>((frame / 7) * 0x11);
    in.pads[1] = static_cast<InputWord>((frame / 5) & 0xff0);
    return in;
}

// A recording of kFrames frames from `start` as a recorder writes it: a keyframe before
// every kReplayKeyframeInterval-th frame (when `keyframes`), the state hash after each frame.
std::vector<std::uint8_t> record(std::uint32_t start, bool keyframes) {
    HashingEmulator emu;
    emu.rewind_to(start);
    ReplayHeader header;
    header.identity = {"hashing", "1", 1, 2, 60000, 2};
    header.players = 2;
    header.start_frame = start;
    if (start != 0) REQUIRE(emu.save_state(header.start_state));
    std::vector<std::uint8_t> file = encode_replay_start(header);
    std::vector<ReplayFrame> pending;
    std::uint32_t block_first = start;
    const auto flush = [&] {
        if (pending.empty()) return;
        const auto bytes = encode_replay_frames(block_first, pending, 2);
        file.insert(file.end(), bytes.begin(), bytes.end());
        block_first += static_cast<std::uint32_t>(pending.size());
        pending.clear();
    };
    std::vector<std::uint8_t> state;
    for (std::uint32_t f = start; f < start + kFrames; ++f) {
        if (keyframes && f != start && f % kReplayKeyframeInterval == 0) {
            flush();
            REQUIRE(emu.save_state(state));
            const auto bytes = encode_replay_keyframe(f, state);
            file.insert(file.end(), bytes.begin(), bytes.end());
        }
        emu.run_frame(pads_of(f), false);
        // As a recorder hashes: the evidence of the state (no mask: all of it).
        pending.push_back({pads_of(f), evidence_hash(emu, EvidenceMask{}, state)});
        if (pending.size() == 60) flush();
    }
    flush();
    return file;
}

}  // namespace

TEST_CASE(
    "replay keyframes: written every 600 frames, read back packed, each the state before "
    "its frame",
    "[replay][seek]") {
    const auto file = record(0, true);
    auto parsed = parse_replay(file);
    REQUIRE(parsed);
    ReplayContents* contents = &parsed.value();
    CHECK(contents->stopped.empty());
    REQUIRE(contents->frames.size() == kFrames);
    REQUIRE(contents->keyframes.size() == 4);  // 600, 1200, 1800, 2400
    HashingEmulator check;
    for (std::uint32_t i = 0; i < contents->keyframes.size(); ++i) {
        const ReplayKeyframe& k = contents->keyframes[i];
        CHECK(k.frame == (i + 1) * kReplayKeyframeInterval);
        CHECK(k.packed.size() < k.raw_size + 16);
        auto state = keyframe_state(k);
        REQUIRE(state);
        REQUIRE(check.load_state(state.value()));
        check.run_frame(contents->frames[k.frame].inputs, false);
        std::vector<std::uint8_t> scratch;
        CHECK(evidence_hash(check, EvidenceMask{}, scratch) == contents->frames[k.frame].hash);
    }
    // A keyframe whose bytes name another frame is refused by name.
    ReplayKeyframe wrong = contents->keyframes[1];
    wrong.frame = 601;
    auto refused = keyframe_state(wrong);
    REQUIRE_FALSE(refused);
    CHECK_THAT(refused.error().message, Catch::Contains("keyframe of frame 601 names another"));
}

TEST_CASE(
    "replay seeker: random seeks and steps both ways across a keyframe show the recorded "
    "states, each seek re-running at most a keyframe interval",
    "[replay][seek]") {
    const std::uint32_t start = GENERATE(0u, 130u);
    const auto file = record(start, true);
    auto parsed = parse_replay(file);
    REQUIRE(parsed);
    ReplayContents* contents = &parsed.value();
    HashingEmulator emu;
    if (!contents->header.start_state.empty())
        REQUIRE(emu.load_state(contents->header.start_state));
    emu.rewind_to(start);
    ReplaySeeker seeker(emu, *contents);
    CHECK(seeker.first() == start);
    CHECK(seeker.end() == start + kFrames);
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::uint64_t> any(start, start + kFrames - 1);
    for (int i = 0; i < 20; ++i) {
        const std::uint64_t frame = any(rng);
        auto ran = seeker.show(frame);
        REQUIRE(ran);
        INFO("seek to " << frame);
        CHECK(ran.value() <= kReplayKeyframeInterval);
        CHECK(seeker.shown() == frame);
        CHECK(emu.frame_count() == frame + 1);
        CHECK(seeker.hash_now() == seeker.recorded_hash());
    }
    // Back and forth across the keyframe of 1200, a frame at a time.
    for (std::uint64_t f = 1203; f >= 1196; --f) {
        REQUIRE(seeker.show(f));
        CHECK(seeker.hash_now() == contents->frames[f - start].hash);
    }
    for (std::uint64_t f = 1197; f <= 1204; ++f) {
        auto ran = seeker.show(f);
        REQUIRE(ran);
        CHECK(ran.value() == 1);  // forward from where it stands
        CHECK(seeker.hash_now() == contents->frames[f - start].hash);
    }
    // Stepping back after playing forward re-runs from a state kept on the way, not from
    // the keyframe.
    REQUIRE(seeker.show(1500));
    for (int i = 0; i < 100; ++i) REQUIRE(seeker.advance(false));
    auto back = seeker.show(1598);
    REQUIRE(back);
    CHECK(back.value() <= 60);
    CHECK(seeker.hash_now() == contents->frames[1598 - start].hash);
    // The ends.
    REQUIRE(seeker.show(start + kFrames - 1));
    CHECK_FALSE(seeker.advance(true));
    REQUIRE(seeker.show(0));
    CHECK(seeker.shown() == start);
    CHECK(seeker.hash_now() == contents->frames[0].hash);
}

TEST_CASE(
    "replay seeker: a replay without keyframes (version 3) plays and seeks from the states "
    "kept while playing, a bounded number of them",
    "[replay][seek]") {
    // A file of version 3, as framelock wrote them before keyframes.
    auto file = record(0, false);
    file[4] = 3;
    file[5] = 0;
    auto parsed = parse_replay(file);
    REQUIRE(parsed);
    ReplayContents* contents = &parsed.value();
    CHECK(contents->stopped.empty());
    REQUIRE(contents->frames.size() == kFrames);
    CHECK(contents->keyframes.empty());
    // In version 3 a keyframe block is unknown: the frames before it are kept.
    auto with_keyframe = record(0, true);
    with_keyframe[4] = 3;
    auto older = parse_replay(with_keyframe);
    REQUIRE(older);
    CHECK(older.value().frames.size() == kReplayKeyframeInterval);
    CHECK_THAT(older.value().stopped, Catch::Contains("an unknown block type 5 after frame 600"));
    HashingEmulator emu;
    ReplaySeeker::Options options;
    options.cache_bytes = 40 * 8;  // 40 HashingEmulator states
    ReplaySeeker seeker(emu, *contents, options);
    auto far = seeker.show(2500);
    REQUIRE(far);
    CHECK(far.value() == 2501);  // the first time: from the start
    CHECK(seeker.hash_now() == contents->frames[2500].hash);
    CHECK(seeker.kept_states() <= 41);
    auto near = seeker.show(2450);
    REQUIRE(near);
    CHECK(near.value() <= 60);
    CHECK(seeker.hash_now() == contents->frames[2450].hash);
    // Far back: the start is never given up.
    REQUIRE(seeker.show(5));
    CHECK(seeker.hash_now() == contents->frames[5].hash);
}

TEST_CASE("replay seeker: a damaged keyframe fails the seek that needs it, by its frame",
          "[replay][seek]") {
    const auto file = record(0, true);
    auto parsed = parse_replay(file);
    REQUIRE(parsed);
    ReplayContents* contents = &parsed.value();
    contents->keyframes[2].packed[3] ^= 0x55;  // frame 1800's
    HashingEmulator emu;
    ReplaySeeker seeker(emu, *contents);
    auto bad = seeker.show(1900);
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().message, Catch::Contains("keyframe of frame 1800 did not load"));
    auto good = seeker.show(1500);
    REQUIRE(good);
    CHECK(seeker.hash_now() == contents->frames[1500].hash);
}

TEST_CASE("replay seeker: a first seek to the second frame shows the second frame",
          "[replay][seek]") {
    const auto file = record(0, true);
    auto parsed = parse_replay(file);
    REQUIRE(parsed);
    HashingEmulator emu;
    ReplaySeeker seeker(emu, parsed.value());
    auto ran = seeker.show(1);
    REQUIRE(ran);
    CHECK(ran.value() == 2);  // the first frame, then the second
    CHECK(seeker.shown() == 1);
    CHECK(emu.frame_count() == 2);
    CHECK(seeker.hash_now() == parsed.value().frames[1].hash);
}

TEST_CASE(
    "replay format: frame numbers end at 4294967295, a keyframe over the state cap is passed "
    "over and the frames after it kept",
    "[replay][seek]") {
    ReplayHeader header;
    header.identity = {"hashing", "1", 1, 2, 60000, 2};
    header.players = 2;
    header.start_frame = UINT32_MAX - 99;  // room for 100 frames
    std::vector<std::uint8_t> file = encode_replay_start(header);
    std::vector<ReplayFrame> block(60);
    const auto append = [&](std::uint32_t first) {
        const auto bytes = encode_replay_frames(first, block, 2);
        file.insert(file.end(), bytes.begin(), bytes.end());
    };
    append(header.start_frame);
    // A keyframe block that declares a state over kMaxReplayStateBytes (its CRC right).
    const auto keyframe =
        encode_replay_keyframe(header.start_frame + 60, std::vector<std::uint8_t>(16));
    std::vector<std::uint8_t> big = keyframe;
    const std::uint32_t huge = static_cast<std::uint32_t>(kMaxReplayStateBytes + 5);
    for (int i = 0; i < 4; ++i) big[1 + i] = static_cast<std::uint8_t>(huge >> (8 * i));
    file.insert(file.end(), big.begin(), big.end());
    append(header.start_frame + 60);  // 60 more: past UINT32_MAX, refused
    auto parsed = parse_replay(file);
    REQUIRE(parsed);
    CHECK(parsed.value().frames.size() == 60);
    CHECK(parsed.value().keyframes.empty());
    CHECK_THAT(parsed.value().stopped,
               Catch::Contains("an unexpected block where frame 4294967256 should follow"));
    // The same file ending within the numbers: the oversize keyframe passed over, every frame
    // after it kept.
    header.start_frame = 1000;
    file = encode_replay_start(header);
    append(1000);
    std::vector<std::uint8_t> big2 = encode_replay_keyframe(1060, std::vector<std::uint8_t>(16));
    for (int i = 0; i < 4; ++i) big2[1 + i] = static_cast<std::uint8_t>(huge >> (8 * i));
    file.insert(file.end(), big2.begin(), big2.end());
    append(1060);
    auto kept = parse_replay(file);
    REQUIRE(kept);
    CHECK(kept.value().stopped.empty());
    CHECK(kept.value().frames.size() == 120);
    CHECK(kept.value().keyframes.empty());
}
