// The core atlas's answers (common/core_atlas.h): a core matched by its libretro name and
// version, a verdict per mode from one rule, the least safe row of a core measured with
// several contents, and unknown (never assumed safe) for another version or another core.
// Also the atlas this build compiled in: docs/cores.json, which `framelock atlas` wrote.
#include <catch2/catch.hpp>

#include "common/core_atlas.h"

using namespace framelock;

namespace {

constexpr const char* kAtlas = R"({"cores": [
  {"name": "steady", "core_name": "Steady", "version": "2.0 ", "system": "S",
   "verdict": "safe", "reason": ""},
  {"name": "turbo", "core_name": "Turbo", "version": "1.5", "system": "T",
   "verdict": "framelock-only", "reason": "roundtrip 1: diverged at frame 3"},
  {"name": "clock", "core_name": "Clock", "version": "0.9", "system": "C",
   "verdict": "desyncs", "reason": "twice: differ at frame 100"},
  {"name": "two_gb", "core_name": "Two", "version": "1", "system": "Game Boy",
   "verdict": "safe", "reason": ""},
  {"name": "two_gba", "core_name": "Two", "version": "1", "system": "Game Boy Advance",
   "verdict": "framelock-only", "reason": "state size: 2 changes"},
  {"name": "absent", "core_name": "", "version": "", "system": "X",
   "verdict": "not-measured", "reason": "not installed here"}
]})";

CoreAtlas atlas() {
    auto parsed = CoreAtlas::parse(kAtlas);
    REQUIRE(parsed.ok());
    return std::move(parsed).value();
}

}  // namespace

TEST_CASE("Core atlas: verdict words and what each means per mode", "[atlas]") {
    for (AtlasVerdict v : {AtlasVerdict::kSafe, AtlasVerdict::kFrameLockOnly,
                           AtlasVerdict::kDesyncs, AtlasVerdict::kNotMeasured})
        CHECK(verdict_from_word(verdict_word(v)) == v);
    CHECK(verdict_from_word("bogus") == AtlasVerdict::kNotMeasured);
    for (const char* mode : {"framelock", "nowait", "rollback", "hybrid"})
        CHECK(safe_in_mode(AtlasVerdict::kSafe, mode));
    CHECK(safe_in_mode(AtlasVerdict::kFrameLockOnly, "framelock"));
    CHECK(safe_in_mode(AtlasVerdict::kFrameLockOnly, "nowait"));
    CHECK_FALSE(safe_in_mode(AtlasVerdict::kFrameLockOnly, "rollback"));
    CHECK_FALSE(safe_in_mode(AtlasVerdict::kFrameLockOnly, "hybrid"));
    CHECK_FALSE(safe_in_mode(AtlasVerdict::kDesyncs, "framelock"));
    CHECK_FALSE(safe_in_mode(AtlasVerdict::kNotMeasured, "framelock"));
}

TEST_CASE("Core atlas: a core's answer per mode, matched by name and version", "[atlas]") {
    const CoreAtlas a = atlas();
    CHECK(a.size() == 5);  // the row without a core name cannot be matched

    const auto steady = a.answer("Steady", "2.0", "hybrid");  // the row's "2.0 " trimmed
    CHECK(steady.verdict == ModeVerdict::kSafe);
    CHECK(steady.reason.empty());

    CHECK(a.answer("Turbo", "1.5", "framelock").verdict == ModeVerdict::kSafe);
    const auto turbo = a.answer("Turbo", "1.5", "rollback");
    CHECK(turbo.verdict == ModeVerdict::kUnsafe);
    CHECK(turbo.atlas == AtlasVerdict::kFrameLockOnly);
    CHECK(turbo.reason ==
          "the core atlas found Turbo 1.5 safe in the frame lock only: roundtrip 1: diverged at "
          "frame 3");

    const auto clock = a.answer("Clock", "0.9", "framelock");
    CHECK(clock.verdict == ModeVerdict::kUnsafe);
    CHECK(clock.reason ==
          "the core atlas found Clock 0.9 desyncing in every mode: twice: differ at frame 100");

    // Measured with two contents: the frame lock is safe with both, the hybrid with one.
    CHECK(a.answer("Two", "1", "framelock").verdict == ModeVerdict::kSafe);
    const auto two = a.answer("Two", "1", "hybrid");
    CHECK(two.verdict == ModeVerdict::kUnsafe);
    CHECK(two.reason ==
          "the core atlas found Two 1 with Game Boy Advance content safe in the frame lock only: "
          "state size: 2 changes");

    const auto other_version = a.answer("Steady", "2.1", "framelock");
    CHECK(other_version.verdict == ModeVerdict::kUnknown);
    CHECK(other_version.reason == "the core atlas measured Steady 2.0, not 2.1");
    const auto other_core = a.answer("Nobody", "1", "framelock");
    CHECK(other_core.verdict == ModeVerdict::kUnknown);
    CHECK(other_core.reason == "Nobody is not in the core atlas");
    CHECK(mode_verdict_word(other_core.verdict) == "unknown");
}

TEST_CASE("Core atlas: what is not the atlas's JSON is refused", "[atlas]") {
    CHECK_FALSE(CoreAtlas::parse("not json").ok());
    CHECK_FALSE(CoreAtlas::parse(R"({"rooms": []})").ok());
    CHECK(CoreAtlas::parse(R"({"cores": []})").ok());
}

TEST_CASE("Core atlas: the one this build compiled in answers for the bundled arcade core",
          "[atlas]") {
    // docs/cores.json: the arcade core is safe in every mode (framelock atlas measures it
    // wherever the project builds).
    const CoreAtlas& built_in = built_in_core_atlas();
    CHECK(built_in.size() >= 2);
    CHECK(built_in.answer("framelock-arcade", "1.0", "hybrid").verdict == ModeVerdict::kSafe);
}
