#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "frontend/files/atomic_file.h"
#include "support/temp_dir.h"

using namespace framelock::frontend;
namespace fs = std::filesystem;

TEST_CASE("Atomic write replaces the file whole and leaves no temporary", "[frontend][file]") {
    const framelock::test::TempDir scratch("atomic");
    const fs::path dir = scratch.path();
    const fs::path file = dir / "game.srm";
    const std::vector<std::uint8_t> first(8192, 0xaa), second(100, 0x55);
    REQUIRE(write_file_atomic(file, first).ok());
    REQUIRE(read_file(file).value() == first);
    REQUIRE(write_file_atomic(file, second).ok());
    CHECK(read_file(file).value() == second);
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
}

TEST_CASE("Atomic write into a missing directory fails and names the path", "[frontend][file]") {
    const std::vector<std::uint8_t> bytes(4, 1);
    auto status = write_file_atomic("/nonexistent-dir/x.srm", bytes);
    REQUIRE_FALSE(status.ok());
    CHECK_THAT(status.error().message, Catch::Contains("/nonexistent-dir/"));
}

TEST_CASE("A directory under a regular file is reported as not usable", "[frontend][file]") {
    const framelock::test::TempDir scratch("notdir");
    const fs::path dir = scratch.path();
    std::ofstream(dir / "plain") << "x";
    auto status = ensure_writable_directory(dir / "plain" / "saves", "save directory");
    REQUIRE_FALSE(status.ok());
    CHECK_THAT(status.error().message,
               Catch::Contains("save directory") && Catch::Contains("plain/saves"));
    CHECK(ensure_writable_directory(dir / "new" / "saves", "save directory").ok());
    CHECK(fs::is_directory(dir / "new" / "saves"));
}
