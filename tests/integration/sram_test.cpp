// Save RAM through the real CLI on the bundled arcade core (a 64-byte high-score table):
// written atomically at exit, left alone when writes are off, loaded on the next start.
#include <catch2/catch.hpp>

#include <filesystem>

#include "integration/cores.h"
#include "support/build_paths.h"
#include "support/process.h"

using namespace framelock::test;
namespace fs = std::filesystem;

namespace {

ProcessResult run_arcade(const std::string& save_dir, std::vector<std::string> extra) {
    std::vector<std::string> args = {build_paths::framelock_exe,
                                     "run",
                                     "--core",
                                     core_case("arcade").core,
                                     "--save-dir",
                                     save_dir,
                                     "--random",
                                     "3",
                                     "--frames",
                                     "3000",
                                     "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto result = run_process(args);
    INFO(result.err);
    REQUIRE_FALSE(result.signaled);
    REQUIRE(result.exit_code == 0);
    return result;
}

std::size_t files_in(const std::string& dir) {
    return static_cast<std::size_t>(
        std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("SRAM is written atomically at exit, skipped with --no-sram, and loaded on the next run",
          "[integration][sram]") {
    const CoreCase c = core_case("arcade");
    require_core_case(c);
    TempDir dir("sram");
    const std::string srm = dir.file("framelock-arcade.srm");

    run_arcade(dir.path(), {"--hash-log", dir.file("first.log")});
    REQUIRE(fs::exists(srm));
    CHECK(fs::file_size(srm) == 64);
    CHECK(files_in(dir.path()) == 2);  // the .srm and the hash log: no temporary left behind
    const std::string saved = read_text(srm);
    CHECK(saved != std::string(64, '\0'));

    // --no-sram: neither read nor written.
    run_arcade(dir.path(), {"--no-sram", "--hash-log", dir.file("nosram.log")});
    CHECK(read_text(srm) == saved);
    CHECK(read_lines(dir.file("nosram.log")) == read_lines(dir.file("first.log")));

    // Loaded: the high score it holds is part of the game, so the run differs from a fresh one.
    run_arcade(dir.path(), {"--hash-log", dir.file("loaded.log")});
    CHECK(read_lines(dir.file("loaded.log")) != read_lines(dir.file("first.log")));
}

TEST_CASE("Garbage in the save file does not stop the game", "[integration][sram]") {
    const CoreCase c = core_case("arcade");
    require_core_case(c);
    TempDir dir("sram-garbage");
    write_text(dir.file("framelock-arcade.srm"), std::string(64, '\x5a'));
    auto r = run_arcade(dir.path(), {});
    CHECK_THAT(r.out, Catch::Contains("frames   3000"));
    CHECK(fs::file_size(dir.file("framelock-arcade.srm")) == 64);
}
