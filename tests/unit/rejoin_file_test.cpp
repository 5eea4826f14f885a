// The rejoin token file (frontend/files/rejoin_file.h): one holder at a time, this user's alone.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "frontend/files/rejoin_file.h"
#include "support/temp_dir.h"

using framelock::frontend::RejoinFile;
namespace fs = std::filesystem;

TEST_CASE("A rejoin token file keeps the token for the next run, for one run at a time",
          "[frontend][rejoin]") {
    const framelock::test::TempDir scratch("rejoin");
    const fs::path base = fs::path(scratch.file("state")) / "rejoin" / "server_bob.token";
    const auto token = framelock::netplay::random_array<framelock::netplay::kRejoinTokenBytes>();
    {
        auto first = RejoinFile::open_free(base);
        REQUIRE(first);
        CHECK(first.value().path() == base);
        CHECK_FALSE(first.value().token());
        REQUIRE(first.value().write(token));
        // Held: a second run beside it gets a file of its own, without the token.
        auto second = RejoinFile::open_free(base);
        REQUIRE(second);
        CHECK(second.value().path() == fs::path(base.string() + "-2"));
        CHECK_FALSE(second.value().token());
        auto named = RejoinFile::open(base);
        REQUIRE_FALSE(named);
        CHECK_THAT(named.error().message, Catch::Contains("in use by another running framelock"));
        second.value().remove();
        CHECK_FALSE(fs::exists(base.string() + "-2"));
    }
    // The first run is gone (as a crashed one is): the next opens its token.
    auto again = RejoinFile::open_free(base);
    REQUIRE(again);
    CHECK(again.value().token() == token);
    struct stat st {};
    REQUIRE(::stat(base.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    REQUIRE(::stat(base.parent_path().c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    again.value().remove();
    CHECK_FALSE(fs::exists(base));
}

TEST_CASE("A rejoin token file is never opened through a link, and junk is no token",
          "[frontend][rejoin]") {
    const framelock::test::TempDir scratch("rejoin-link");
    const fs::path target = scratch.file("elsewhere");
    std::ofstream(target) << "keep me\n";
    const fs::path link = scratch.file("link.token");
    fs::create_symlink(target, link);
    auto linked = RejoinFile::open(link);
    REQUIRE_FALSE(linked);
    CHECK_THAT(linked.error().message, Catch::Contains("symbolic link"));
    std::ifstream in(target);
    std::string kept;
    std::getline(in, kept);
    CHECK(kept == "keep me");

    const fs::path junk = scratch.file("junk.token");
    std::ofstream(junk) << "not a token\n";
    auto file = RejoinFile::open(junk);
    REQUIRE(file);
    CHECK_FALSE(file.value().token());
}
