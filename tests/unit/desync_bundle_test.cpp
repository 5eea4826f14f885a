// Desync bundles (frontend/files/desync_bundle.h): every field back after a round trip, a
// truncated or damaged file refused, and the comparison (frontend/app/synctest_bundle_compare.h)
// naming the first differing byte with its region and address, the inputs that differ, and
// both sides' values when two bundles are not of the same desync.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "frontend/app/synctest_bundle_compare.h"
#include "frontend/files/desync_bundle.h"

using namespace framelock;
using namespace framelock::frontend;

namespace {

// A player's bundle of a 2-player session: a 64-byte state holding two 16-byte regions
// (MAIN at 0x0000, SCRATCH at 0x2000), `flip` set: SCRATCH's byte 5 flipped.
DesyncBundle bundle(int slot, bool flip) {
    DesyncBundle b;
    b.identity.core_name = "chaos";
    b.identity.core_version = "1.0";
    b.identity.content_hash = 0x1234;
    b.identity.fps_milli = 60000;
    b.identity.ports = 2;
    b.content_name = "game.bin";
    b.session = 0xfeedULL;
    b.mode = netplay::SessionMode::kFrameLock;
    b.delay = 3;
    b.slot = static_cast<std::uint8_t>(slot);
    b.players = 2;
    b.desync_frame = 120;
    b.differing_slots = 0b10;
    b.state_frame = 121;
    b.own_state.assign(64, 0);
    for (std::size_t i = 0; i < 16; ++i) b.own_state[8 + i] = static_cast<std::uint8_t>(i);
    if (flip) b.own_state[24 + 5] ^= 0xFF;
    b.own_regions = {{"MAIN", 0x0000, {b.own_state.begin() + 8, b.own_state.begin() + 24}},
                     {"SCRATCH", 0x2000, {b.own_state.begin() + 24, b.own_state.begin() + 40}}};
    b.other_note = "none here";
    b.inputs_from = 100;
    for (int f = 0; f < 30; ++f) {
        netplay::InputFrame in;
        in.pads[0] = static_cast<netplay::InputWord>(f);
        in.pads[1] = static_cast<netplay::InputWord>(f * 3);
        b.inputs.push_back(in);
    }
    return b;
}

std::string joined(const BundleComparison& c) {
    std::string text;
    for (const auto& line : c.lines) text += line + "\n";
    return text;
}

}  // namespace

TEST_CASE("desync bundle: every field back after a round trip, damage refused", "[bundle]") {
    DesyncBundle b = bundle(2, true);
    const DesyncBundle reference = bundle(1, false);
    b.other = DesyncBundle::Other::kReference;
    b.other_note = "the reference state the repair sent this player";
    b.other_state = reference.own_state;
    b.other_regions = reference.own_regions;
    b.state_diff = netplay::diff_bytes(b.own_state, b.other_state);
    b.region_diffs = netplay::diff_regions(b.own_regions, b.other_regions);
    const std::vector<std::uint8_t> bytes = encode_desync_bundle(b);
    REQUIRE(is_desync_bundle(bytes));

    auto back = decode_desync_bundle(bytes);
    REQUIRE(back);
    const DesyncBundle& r = back.value();
    CHECK(r.identity == b.identity);
    CHECK(r.content_name == "game.bin");
    CHECK(r.session == 0xfeedULL);
    CHECK(r.mode == netplay::SessionMode::kFrameLock);
    CHECK(r.delay == 3);
    CHECK(r.slot == 2);
    CHECK(r.players == 2);
    CHECK(r.desync_frame == 120);
    CHECK(r.differing_slots == 0b10);
    CHECK(r.state_frame == 121);
    CHECK(r.own_state == b.own_state);
    REQUIRE(r.own_regions.size() == 2);
    CHECK(r.own_regions[1].name == "SCRATCH");
    CHECK(r.own_regions[1].start == 0x2000);
    CHECK(r.own_regions[1].bytes == b.own_regions[1].bytes);
    CHECK(r.other == DesyncBundle::Other::kReference);
    CHECK(r.other_note == b.other_note);
    CHECK(r.other_state == b.other_state);
    CHECK(r.other_regions.size() == 2);
    CHECK(r.state_diff.differing_bytes == 1);
    REQUIRE(r.state_diff.ranges.size() == 1);
    CHECK(r.state_diff.ranges[0].offset == 29);
    REQUIRE(r.region_diffs.size() == 1);
    CHECK(r.region_diffs[0].name == "SCRATCH");
    CHECK(r.region_diffs[0].diff.ranges[0].offset == 5);
    CHECK(r.inputs_from == 100);
    REQUIRE(r.inputs.size() == 30);
    CHECK(r.inputs[29].pads[1] == 87);

    // The player holding the reference: an empty other side reads back empty.
    auto own_only = decode_desync_bundle(encode_desync_bundle(bundle(1, false)));
    REQUIRE(own_only);
    CHECK(own_only.value().other == DesyncBundle::Other::kNone);
    CHECK(own_only.value().other_state.empty());

    // Every truncation, and any byte changed, is refused.
    for (std::size_t n = 0; n < bytes.size(); n += 7) {
        INFO("first " << n << " bytes");
        CHECK_FALSE(decode_desync_bundle(std::span(bytes).first(n)));
    }
    std::vector<std::uint8_t> damaged = bytes;
    damaged[bytes.size() / 2] ^= 0x01;
    auto refused = decode_desync_bundle(damaged);
    REQUIRE_FALSE(refused);
    CHECK_THAT(refused.error().message, Catch::Contains("CRC"));
    const std::string text = "1 0123456789abcdef\n";
    CHECK_FALSE(
        is_desync_bundle({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}));
}

TEST_CASE("desync bundle comparison: the first differing byte with its region and address",
          "[bundle]") {
    const DesyncBundle a = bundle(1, false);
    DesyncBundle b = bundle(2, true);

    SECTION("two bundles, one from each player") {
        auto c = compare_bundles(a, &b);
        REQUIRE(c);
        const std::string text = joined(c.value());
        INFO(text);
        CHECK(c.value().differ);
        CHECK_THAT(text, Catch::Contains("first differing byte: SCRATCH at 0x2005 (offset 5 in "
                                         "the region): 0x00 in A (slot 1), 0xff in B (slot 2)"));
        CHECK_THAT(text, Catch::Contains("SCRATCH (1 byte differs in 1 range, 0x2005..0x2005)"));
        CHECK_THAT(text, Catch::Contains("inputs: identical on the 30 frames both hold"));
    }
    SECTION("inputs that differ are named by frame and slot") {
        b.inputs[10].pads[1] = 0x0010;
        auto c = compare_bundles(a, &b);
        REQUIRE(c);
        CHECK_THAT(joined(c.value()), Catch::Contains("frame 110 slot 2: 0x001e vs 0x0010"));
    }
    SECTION("identical states and inputs") {
        auto c = compare_bundles(a, &a);
        REQUIRE(c);
        CHECK_FALSE(c.value().differ);
    }
    SECTION("one bundle holding both states") {
        b.other = DesyncBundle::Other::kReference;
        b.other_state = a.own_state;
        b.other_regions = a.own_regions;
        auto c = compare_bundles(b, nullptr);
        REQUIRE(c);
        CHECK_THAT(joined(c.value()), Catch::Contains("SCRATCH at 0x2005"));
        auto alone = compare_bundles(a, nullptr);
        REQUIRE_FALSE(alone);
        CHECK_THAT(alone.error().message, Catch::Contains("give the other player's bundle too"));
    }
    SECTION("bundles of another desync, core or content: both sides' values named") {
        b.session = 0xbeef;
        b.identity.core_version = "1.1";
        b.identity.content_hash = 0x5678;
        auto c = compare_bundles(a, &b);
        REQUIRE_FALSE(c);
        const std::string message = c.error().message;
        INFO(message);
        CHECK_THAT(message,
                   Catch::Contains("session: 000000000000feed (A) vs 000000000000beef (B)"));
        CHECK_THAT(message, Catch::Contains("core version: 1.0 (A) vs 1.1 (B)"));
        CHECK_THAT(message,
                   Catch::Contains("content: 0000000000001234 (A) vs 0000000000005678 (B)"));
    }
}
