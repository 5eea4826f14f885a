// `framelock atlas` end to end on a catalogue of its own: the bundled arcade core is safe in
// every mode; the chaos core with a fault only the round trip sees (a counter left out of
// its savestates) is frame lock only, with that check's frame; with a fault two runs see (a
// wall-clock read) it desyncs; a core that cannot run here and one not installed are listed
// with why. The page and the JSON say the same, and the verdicts agree with a direct
// synctest of each (tests/integration/synctest_test.cpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "integration/cores.h"
#include "support/build_paths.h"
#include "support/process.h"
#include "support/sanitized.h"

using namespace framelock::test;
using Json = nlohmann::json;

namespace {

const Json& core_named(const Json& atlas, const std::string& name) {
    for (const auto& core : atlas["cores"])
        if (core["name"] == name) return core;
    FAIL("no core " << name << " in " << atlas.dump());
    static const Json none;
    return none;
}

const Json& check_named(const Json& core, const std::string& name) {
    for (const auto& check : core["checks"])
        if (check["name"] == name) return check;
    FAIL("no check " << name << " in " << core.dump());
    static const Json none;
    return none;
}

}  // namespace

TEST_CASE("atlas: verdicts per core and per mode, with the failing check's frame, as page and JSON",
          "[atlas]") {
    require_core_case(core_case("arcade"));
    require_core_case(core_case("chaos"));
    TempDir tmp("atlas");
    const std::string catalogue = tmp.file("atlas.toml");
    std::ofstream(catalogue) << R"(
[[core]]
name = "arcade"
core = "arcade"
package = "built by framelock"
system = "arcade"
ports = 2
options = ["farcade_players=2"]

[[core]]
name = "chaos_unsaved"
core = "chaos"
package = "built by framelock"
system = "chaos"
ports = 2
options = ["chaos_fault=unsaved", "chaos_fault_frame=30"]

[[core]]
name = "chaos_wallclock"
core = "chaos"
package = "built by framelock"
system = "chaos"
ports = 2
options = ["chaos_fault=wallclock", "chaos_fault_frame=100"]

[[core]]
name = "far_away"
core = "nosuchcore"
package = "libretro-nosuchcore"
system = "nothing"

[[core]]
name = "needs_bios"
core = "arcade"
package = "built by framelock"
system = "arcade"
unavailable = "needs a BIOS that cannot ship"
)";
    const std::string session_frames = framelock::test::kSanitized ? "180" : "300";
    const auto r =
        run_process({build_paths::framelock_exe, "atlas", "--catalogue", catalogue, "--roms",
                     tmp.file("roms"), "--work", tmp.file("work"), "--markdown",
                     tmp.file("cores.md"), "--json", tmp.file("cores.json"), "--frames", "200",
                     "--session-frames", session_frames, "--start-gap", "0.5", "--no-progress"},
                    std::chrono::seconds(300));
    INFO(r.out << r.err);
    REQUIRE_FALSE(r.timed_out);
    REQUIRE(r.exit_code == 0);
    const Json atlas = Json::parse(read_text(tmp.file("cores.json")));
    REQUIRE(atlas["cores"].size() == 5);

    const Json& arcade = core_named(atlas, "arcade");
    CHECK(arcade["verdict"] == "safe");
    for (const char* mode : {"framelock", "nowait", "rollback", "hybrid"})
        CHECK(arcade["modes"][mode] == "safe");
    for (const char* check : {"inputs", "twice", "roundtrip 1", "roundtrip 4", "roundtrip 12",
                              "state size", "framelock session", "rollback session"})
        CHECK(check_named(arcade, check)["passed"] == true);
    CHECK(check_named(arcade, "load bytes")["passed"].is_null());

    // A counter the savestates leave out, from frame 30: the state saved after frame 29 is the
    // first that does not load back (HIDDEN differs right after loading it), as synctest says.
    const Json& unsaved = core_named(atlas, "chaos_unsaved");
    CHECK(unsaved["verdict"] == "framelock-only");
    CHECK(unsaved["modes"]["framelock"] == "safe");
    CHECK(unsaved["modes"]["rollback"] == "unsafe");
    CHECK(unsaved["modes"]["hybrid"] == "unsafe");
    CHECK(check_named(unsaved, "twice")["passed"] == true);
    CHECK(check_named(unsaved, "framelock session")["passed"] == true);
    const Json& roundtrip = check_named(unsaved, "roundtrip 1");
    CHECK(roundtrip["passed"] == false);
    CHECK(roundtrip["frame"] == 29);
    CHECK(roundtrip["region"] == "HIDDEN");
    CHECK(check_named(unsaved, "rollback session")["summary"] == "refused");

    // A wall-clock read from frame 100: two runs differ there, so no mode is safe.
    const Json& wallclock = core_named(atlas, "chaos_wallclock");
    CHECK(wallclock["verdict"] == "desyncs");
    CHECK(wallclock["modes"]["framelock"] == "unsafe");
    const Json& twice = check_named(wallclock, "twice");
    CHECK(twice["passed"] == false);
    CHECK(twice["frame"] == 100);
    CHECK(twice["region"] == "CLOCK");
    CHECK(wallclock["reason"].get<std::string>().rfind("twice: ", 0) == 0);

    const Json& far_away = core_named(atlas, "far_away");
    CHECK(far_away["verdict"] == "not-measured");
    CHECK(far_away["reason"] == "not installed here (libretro-nosuchcore)");
    CHECK(core_named(atlas, "needs_bios")["reason"] == "needs a BIOS that cannot ship");
    for (const char* mode : {"framelock", "rollback"}) CHECK(far_away["modes"][mode] == "unknown");

    // The page: a row per core with its verdict, the failing check's cell, the findings.
    const std::string md = read_text(tmp.file("cores.md"));
    CHECK(md.find("| arcade | 1.0 | arcade | - | **safe** |") != std::string::npos);
    CHECK(md.find("| chaos_unsaved |") != std::string::npos);
    CHECK(md.find("❌ diverged at frame 29 (HIDDEN)") != std::string::npos);
    CHECK(md.find("- **needs_bios** (arcade; built by framelock): **not-measured**: needs a BIOS "
                  "that cannot ship") != std::string::npos);
}

TEST_CASE("atlas: a catalogue with a broken entry is refused, naming the file and the line",
          "[atlas]") {
    TempDir tmp("atlas-bad");
    const std::string catalogue = tmp.file("atlas.toml");
    std::ofstream(catalogue) << "[[core]]\nname = \"x\"\ncore = \"arcade\"\nsystem = \"s\"\n"
                                "ports = 9\n";
    const auto r = run_process(
        {build_paths::framelock_exe, "atlas", "--catalogue", catalogue, "--no-progress"},
        std::chrono::seconds(30));
    CHECK(r.exit_code == 7);  // ErrorCode::kConfig
    CHECK(r.err.find(catalogue + ":1: x: ports must be 1-8") != std::string::npos);
}
