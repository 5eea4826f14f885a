// Replays every committed fuzz input through the fuzz targets' own entry functions: the seed
// corpus (tests/fuzz/corpus/<target>/) and the inputs that once found a bug
// (tests/fuzz/regressions/<target>/). Built in the normal and the sanitizer test suites, so
// both run them; tools/fuzz.sh runs the same functions under libFuzzer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/build_paths.h"
#include "tests/fuzz/fuzz_targets.h"

namespace fs = std::filesystem;
using namespace framelock::fuzz;

namespace framelock::fuzz {

void fuzz_fail(const char* what, const char* file, int line) {
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) +
                             ": fuzz invariant broken: " + what);
}

}  // namespace framelock::fuzz

namespace {

std::vector<fs::path> inputs_in(const fs::path& dir) {
    std::vector<fs::path> files;
    if (!fs::is_directory(dir)) return files;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

// Runs the target on every input of its corpus and regressions; returns how many ran.
int run_inputs(std::string_view target, int& regressions) {
    FuzzFunction function = nullptr;
    for (const FuzzTarget& t : kFuzzTargets) {
        if (t.name == target) function = t.function;
    }
    REQUIRE(function != nullptr);
    const fs::path root = fs::path(framelock::test::build_paths::source_dir) / "tests" / "fuzz";
    int ran = 0;
    regressions = 0;
    for (const char* kind : {"corpus", "regressions"}) {
        for (const fs::path& file : inputs_in(root / kind / std::string(target))) {
            std::ifstream in(file, std::ios::binary);
            REQUIRE(in);
            const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
            INFO(file.string() << " (" << bytes.size() << " bytes)");
            CHECK_NOTHROW(function(bytes.data(), bytes.size()));
            ++ran;
            if (std::string_view(kind) == "regressions") ++regressions;
        }
    }
    return ran;
}

}  // namespace

// The committed corpus holds at least this many inputs per target (capture_corpus.cpp
// writes them); fewer means a directory went missing or was renamed.
#define FUZZ_INPUTS_TEST(target, minimum)                                      \
    TEST_CASE("fuzz inputs: " target " (corpus and regressions)", "[fuzz]") {  \
        int regressions = 0;                                                   \
        const int ran = run_inputs(target, regressions);                       \
        INFO(ran << " inputs run, " << regressions << " of them regressions"); \
        CHECK(ran >= (minimum));                                               \
    }

FUZZ_INPUTS_TEST("protocol", 30)
FUZZ_INPUTS_TEST("server", 10)
FUZZ_INPUTS_TEST("client", 10)
FUZZ_INPUTS_TEST("state_transfer", 3)
FUZZ_INPUTS_TEST("replay", 3)
FUZZ_INPUTS_TEST("config", 3)
FUZZ_INPUTS_TEST("input_script", 3)
FUZZ_INPUTS_TEST("lobby", 5)
FUZZ_INPUTS_TEST("desync_bundle", 3)
