// framelock synctest end to end (the chaos core offers fault frames 0 1 10 30 60 100 120 250
// 500 ...): the bundled core passes, each fault of the chaos core fails
// the check aimed at it with the exact frame and region, real Debian cores get the verdicts
// README.md states, bad cores get verdicts instead of crashes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "integration/cores.h"
#include "support/build_paths.h"
#include "support/process.h"
#include "support/sanitized.h"

using namespace framelock::test;
using Json = nlohmann::json;

namespace {

struct Synctest {
    ProcessResult process;
    Json summary;
    std::string dir;
    const Json& check(const std::string& name) const {
        for (const auto& c : summary["checks"])
            if (c["name"] == name) return c;
        FAIL("no check named " << name << " in " << summary.dump());
        static const Json none;
        return none;
    }
};

Synctest synctest(const TempDir& tmp, const std::string& name, std::vector<std::string> args,
                  std::chrono::seconds timeout = std::chrono::seconds(300)) {
    Synctest out;
    out.dir = tmp.file(name);
    std::vector<std::string> all = {build_paths::framelock_exe,
                                    "synctest",
                                    "--no-sram",
                                    "--no-progress",
                                    "-q",
                                    "--report",
                                    out.dir};
    all.insert(all.end(), args.begin(), args.end());
    out.process = run_process(all, timeout);
    INFO(out.process.out << out.process.err);
    REQUIRE_FALSE(out.process.timed_out);
    REQUIRE_FALSE(out.process.signaled);
    if (std::filesystem::exists(out.dir + "/summary.json"))
        out.summary = Json::parse(read_text(out.dir + "/summary.json"));
    return out;
}

std::vector<std::string> chaos(const std::string& fault, int frame, int frames, int distance) {
    return {"--core",     core_case("chaos").core,
            "--option",   "chaos_fault=" + fault,
            "--option",   "chaos_fault_frame=" + std::to_string(frame),
            "--frames",   std::to_string(frames),
            "--distance", std::to_string(distance)};
}

// The names of the regions a check's report says differ.
std::vector<std::string> region_names(const Json& check) {
    std::vector<std::string> names;
    for (const auto& r : check["details"]["regions"]) names.push_back(r["name"]);
    return names;
}

}  // namespace

TEST_CASE(
    "synctest: the bundled arcade core passes every check for 20,000 frames (4,000 under "
    "sanitizers)",
    "[synctest]") {
    const CoreCase c = core_case("arcade");
    require_core_case(c);
    TempDir tmp("synctest-arcade");
    const int frames = framelock::test::full_or_sanitized(20'000, 4'000);
    std::vector<std::string> args = {"--core",   c.core, "--frames", std::to_string(frames),
                                     "--random", "7",    "--ports",  "4"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const Synctest r = synctest(tmp, "report", args);
    INFO(r.process.out << r.process.err);
    CHECK(r.process.exit_code == 0);
    REQUIRE(r.summary["passed"] == true);
    CHECK(r.check("roundtrip")["passed"] == true);
    // As the check counts them: a state loaded every 8 frames, the frames after it rerun.
    CHECK(r.check("roundtrip")["details"]["frames_rerun"] == frames - 8);
    CHECK(r.check("roundtrip")["details"]["states_loaded"] == frames / 8 - 1);
    CHECK(r.check("twice")["passed"] == true);
    // The cross-machine log: one line per frame, with every region's hash.
    const auto log = read_lines(r.dir + "/hashes.log");
    REQUIRE(log.size() == static_cast<std::size_t>(frames));
    CHECK(log.back().rfind(std::to_string(frames - 1) + " ", 0) == 0);
    CHECK(log.front().find("PLAYERS=") != std::string::npos);
}

TEST_CASE("synctest: each chaos fault fails the check aimed at it, at its frame and region",
          "[synctest]") {
    const CoreCase c = core_case("chaos");
    require_core_case(c);
    TempDir tmp("synctest-chaos");

    SECTION("wallclock: two runs differ at the fault frame, in CLOCK alone") {
        const Synctest r = synctest(tmp, "wallclock", chaos("wallclock", 100, 200, 8));
        CHECK(r.process.exit_code == 1);
        const Json& twice = r.check("twice");
        CHECK(twice["passed"] == false);
        CHECK(twice["verdict"] == "diverged");
        CHECK(twice["frame"] == 100);
        CHECK(region_names(twice) == std::vector<std::string>{"CLOCK"});
        CHECK(twice["details"]["regions"][0]["start"] == "0x1000");
        // A re-run reads the clock again too.
        CHECK(r.check("roundtrip")["frame"] == 100);
        CHECK(region_names(r.check("roundtrip")) == std::vector<std::string>{"CLOCK"});
        // Evidence: both states and the pictures side by side.
        CHECK(std::filesystem::file_size(r.dir + "/twice/a/state.bin") ==
              std::filesystem::file_size(r.dir + "/twice/b/state.bin"));
        CHECK(std::filesystem::exists(r.dir + "/twice/frames.png"));
        CHECK(twice["details"]["differing_pixels"].get<int>() > 0);
        CHECK(std::filesystem::exists(r.dir + "/roundtrip/frames.png"));
        CHECK(std::filesystem::exists(r.dir + "/roundtrip/state-first.bin"));
    }
    SECTION(
        "loadstamp: two processes' savestates differ in the stamp alone: deterministic, "
        "the bytes listed, compared without them from then on") {
        const Synctest r = synctest(tmp, "loadstamp", chaos("loadstamp", 60, 300, 8));
        CHECK(r.process.exit_code == 0);
        const Json& twice = r.check("twice");
        CHECK(twice["passed"] == true);
        CHECK(twice["verdict"] == "deterministic");
        // After the header (8) and the block (448): the stamp, 8 bytes at most.
        CHECK(twice["details"]["process_bytes"]["ranges"][0]["offset"] == 456);
        CHECK(twice["details"]["process_bytes"]["differing_bytes"].get<int>() >= 1);
        CHECK(twice["details"]["process_bytes"]["differing_bytes"].get<int>() <= 8);
        CHECK_THAT(twice["message"].get<std::string>(),
                   Catch::Contains("netplay starts every player from one state"));
        CHECK(r.check("roundtrip")["passed"] == true);
    }
    SECTION(
        "reloadstamp: every load changes the stamp alone: deterministic, the bytes a load "
        "moves listed, compared without them from then on") {
        const Synctest r = synctest(tmp, "reloadstamp", chaos("reloadstamp", 60, 300, 8));
        CHECK(r.process.exit_code == 0);
        const Json& rt = r.check("roundtrip");
        CHECK(rt["passed"] == true);
        CHECK(rt["verdict"] == "deterministic");
        // The stamp: the last 8 bytes, after the header (8) and the block (448).
        CHECK(rt["details"]["reload_bytes"]["ranges"][0]["offset"].get<int>() >= 456);
        CHECK(rt["details"]["reload_bytes"]["bytes"].get<int>() >= 1);
        CHECK(rt["details"]["reload_bytes"]["bytes"].get<int>() <= 8);
        CHECK_THAT(rt["message"].get<std::string>(),
                   Catch::Contains("changed with every load") && Catch::Contains("Not a desync"));
        // Two processes without loads agree from power-on.
        CHECK(r.check("twice")["passed"] == true);
        CHECK_FALSE(r.check("twice")["details"].contains("process_bytes"));
    }
    SECTION("uninit: two runs differ at the fault frame, in SCRATCH alone") {
        const Synctest r = synctest(tmp, "uninit", chaos("uninit", 250, 300, 8));
        CHECK(r.process.exit_code == 1);
        const Json& twice = r.check("twice");
        CHECK(twice["verdict"] == "diverged");
        CHECK(twice["frame"] == 250);
        CHECK(region_names(twice) == std::vector<std::string>{"SCRATCH"});
        CHECK(twice["details"]["regions"][0]["ranges"][0]["address"].get<std::string>().rfind(
                  "0x20", 0) == 0);
    }
    SECTION("unsaved: the round trip names the first state that leaves HIDDEN out") {
        // The core's counter reaches 30 after frame 29: that state is the first without
        // HIDDEN. Reloads happen at multiples of 8 (24 passes, 32 fails); the check narrows
        // down to 29, and the re-run from 32 diverges at once (33).
        const Synctest r = synctest(tmp, "unsaved", chaos("unsaved", 30, 200, 8));
        CHECK(r.process.exit_code == 1);
        const Json& rt = r.check("roundtrip");
        CHECK(rt["verdict"] == "diverged");
        CHECK(rt["frame"] == 29);
        CHECK(rt["details"]["differs_after_load"] == true);
        CHECK(region_names(rt) == std::vector<std::string>{"HIDDEN"});
        CHECK(rt["details"]["rerun_frame"] == 33);
        // Without savestates involved, the core is deterministic.
        CHECK(r.check("twice")["passed"] == true);
    }
    SECTION("varsize: a state that grows is saved and loaded at its own size, and passes") {
        const Synctest r = synctest(tmp, "varsize", chaos("varsize", 60, 400, 8));
        CHECK(r.process.exit_code == 0);
        const Json& rt = r.check("roundtrip");
        CHECK(rt["passed"] == true);
        CHECK(rt["details"]["state_size_changes"] == 4);  // chunks at 59, 159, 259, 359
        CHECK(rt["details"]["first_state_size_change"] == 59);
        CHECK(rt["details"]["state_size_max"].get<int>() ==
              rt["details"]["state_size_min"].get<int>() + 4 * 16);
        CHECK(rt["message"].get<std::string>().find("state size changed 4 times") !=
              std::string::npos);
    }
    SECTION("nostate: the round trip says savestates stopped working, and where") {
        const Synctest r = synctest(tmp, "nostate", chaos("nostate", 60, 200, 8));
        CHECK(r.process.exit_code == 1);
        const Json& rt = r.check("roundtrip");
        CHECK(rt["verdict"] == "no-savestates");
        CHECK(rt["frame"] == 59);
        CHECK(r.check("twice")["passed"] == true);
    }
    SECTION("crash: a core that crashes in the child is reported with the frame") {
        const Synctest r = synctest(tmp, "crash", chaos("crash", 120, 200, 8));
        CHECK(r.process.exit_code == 1);
        for (const char* name : {"roundtrip", "twice"}) {
            const Json& check = r.check(name);
            CHECK(check["verdict"] == "crashed");
            CHECK(check["frame"] == 120);
            CHECK_THAT(check["message"].get<std::string>(),
                       Catch::Contains("signal 6") && Catch::Contains("frame 120"));
        }
    }
}

TEST_CASE("synctest: a core without savestates gets a verdict, not a crash", "[synctest]") {
    TempDir tmp("synctest-nostate");
    const Synctest r =
        synctest(tmp, "report",
                 {"--core", build_paths::fake_nostate_core, "--frames", "100", "--ports", "1"});
    CHECK(r.process.exit_code == 1);
    const Json& rt = r.check("roundtrip");
    CHECK(rt["verdict"] == "no-savestates");
    CHECK(rt["frame"] == 0);
    CHECK_THAT(rt["message"].get<std::string>(), Catch::Contains("retro_serialize_size is 0"));
    // Running twice needs no savestates: the memory hashes say it is deterministic.
    CHECK(r.check("twice")["passed"] == true);
}

TEST_CASE("synctest --compare: identical logs, the first differing frame and region, bad files",
          "[synctest]") {
    TempDir tmp("synctest-compare");
    const std::string a = tmp.file("a.log"), b = tmp.file("b.log"), bad = tmp.file("bad.log");
    write_text(a,
               "0 0000000000000001 RAM=00000000000000aa VRAM=00000000000000bb\n"
               "1 0000000000000002 RAM=00000000000000ac VRAM=00000000000000bb\n"
               "2 0000000000000003 RAM=00000000000000ad VRAM=00000000000000bc\n");
    write_text(b,
               "0 0000000000000001 RAM=00000000000000aa VRAM=00000000000000bb\n"
               "1 0000000000000002 RAM=00000000000000ac VRAM=00000000000000bb\n"
               "2 0000000000000004 RAM=00000000000000ad VRAM=00000000000000bd\n");
    write_text(bad, "0 0000000000000001\nthis is not a hash log\n");

    const auto same = run_process({build_paths::framelock_exe, "synctest", "--compare", a, a});
    CHECK(same.exit_code == 0);
    CHECK_THAT(same.out, Catch::Contains("identical: 3 frames"));
    const auto differ = run_process({build_paths::framelock_exe, "synctest", "--compare", a, b});
    CHECK(differ.exit_code == 1);
    CHECK_THAT(differ.out, Catch::Contains("DIVERGED at frame 2") && Catch::Contains("VRAM") &&
                               !Catch::Contains("RAM,"));
    const auto malformed =
        run_process({build_paths::framelock_exe, "synctest", "--compare", a, bad});
    CHECK(malformed.exit_code == 2);
    CHECK_THAT(malformed.err, Catch::Contains("line 2"));
    const auto missing =
        run_process({build_paths::framelock_exe, "synctest", "--compare", a, tmp.file("no")});
    CHECK(missing.exit_code == 6);
}

// README.md's table of measured verdicts for Debian's cores, re-checked: each row is
// "| core | frames | roundtrip | twice |" between the synctest-verdicts markers, a verdict
// being "deterministic" or "diverged at N".
TEST_CASE("synctest: Debian's cores get the verdicts README.md states", "[synctest][real]") {
    const std::string readme = read_text(build_paths::readme);
    const auto begin = readme.find("<!-- synctest-verdicts -->");
    const auto end = readme.find("<!-- /synctest-verdicts -->");
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    const std::string table = readme.substr(begin, end - begin);
    const std::regex row(
        R"(\|\s*(\w+)\s*\|([^|]*)\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|)");
    int rows = 0;
    TempDir tmp("synctest-real");
    for (std::sregex_iterator it(table.begin(), table.end(), row), stop; it != stop; ++it) {
        const std::string name = (*it)[1];
        if (name == "core") continue;  // the header
        const CoreCase c = core_case(name);
        REQUIRE(!c.core.empty());
        if (!std::filesystem::exists(c.core) || !std::filesystem::exists(c.content)) {
            WARN("skipping " << name << ": " << c.how_to_get);
            continue;
        }
        // "(normal build)" in the content cell: the core reads memory it never wrote, which
        // a sanitizer's build leaves otherwise (README.md says what); checked there only.
        if (kSanitized && std::string((*it)[2]).find("normal build") != std::string::npos) {
            WARN("skipping " << name
                             << " under the sanitizers: its row holds for the normal build");
            continue;
        }
        ++rows;
        std::vector<std::string> args = {
            "--core",   c.core,   "--content", c.content,
            "--frames", (*it)[3], "--ports",   std::to_string(c.ports)};
        const Synctest r = synctest(tmp, name, args);
        INFO(name << ": " << r.process.out << r.process.err);
        // The cross-machine hash log holds one line per frame, frame 0 first: the lines the
        // "twice" workers answered with, and nothing a core printed to its stdout (gambatte
        // announces the ROM in four lines; they used to come first and delay every
        // comparison by four frames, so bytes that differ between the two processes from
        // power-on were taken for a divergence at frame 4).
        if (r.check("twice")["passed"] == true) {
            const auto lines = read_lines(r.dir + "/hashes.log");
            REQUIRE(lines.size() == std::stoull(std::string((*it)[3])));
            CHECK(lines.front().rfind("0 ", 0) == 0);
            CHECK(lines.back().rfind(std::to_string(lines.size() - 1) + " ", 0) == 0);
        }
        const std::string expected[2] = {(*it)[4], (*it)[5]};
        const char* checks[2] = {"roundtrip", "twice"};
        for (int i = 0; i < 2; ++i) {
            const Json& check = r.check(checks[i]);
            INFO(checks[i] << " expected '" << expected[i] << "': " << check.dump());
            if (expected[i] == "deterministic") {
                CHECK(check["passed"] == true);
            } else {
                std::smatch m;
                REQUIRE(std::regex_search(expected[i], m, std::regex(R"(diverged at (\d+))")));
                CHECK(check["verdict"] == "diverged");
                CHECK(check["frame"] == std::stoull(m[1]));
                // Evidence in the report: both states.
                CHECK(std::filesystem::exists(
                    r.dir + (i == 0 ? "/roundtrip/state-first.bin" : "/twice/a/state.bin")));
            }
        }
    }
    CHECK(rows >= 1);
}
