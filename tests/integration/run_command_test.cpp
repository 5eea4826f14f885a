// framelock run on real cores, as separate processes: same script, same per-frame
// hashes; one input bit changed at one frame changes the hashes from that frame on.
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>

#include "integration/cores.h"
#include "support/process.h"

using namespace framelock::test;

namespace {

constexpr int kFrames = 1200;
constexpr std::uint16_t kPlainButtons = 0x01f1;  // B, UP, DOWN, LEFT, RIGHT, A

// Every frame, every port: a fresh word, so one line is one frame of one port.
std::vector<std::uint16_t> random_pads(std::uint64_t seed, unsigned ports) {
    std::vector<std::uint16_t> pads(kFrames * ports);
    std::uint64_t s = seed;
    for (auto& p : pads) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        // B, A and the d-pad only: they mean the same on every core. X/Y are turbo A/B on
        // nestopia (a held turbo hides a flipped A), START/SELECT pause games, L2 switches
        // PC Engine pads to 6-button mode.
        p = static_cast<std::uint16_t>((s >> 33) & kPlainButtons);
    }
    return pads;
}

std::string script_text(const std::vector<std::uint16_t>& pads, unsigned ports) {
    std::ostringstream out;
    for (int f = 0; f < kFrames; ++f) {
        for (unsigned p = 0; p < ports; ++p)
            out << f << ' ' << p + 1 << ' ' << pads[f * ports + p] << '\n';
    }
    return out.str();
}

std::vector<std::string> run_logged(const CoreCase& c, const TempDir& dir, const std::string& name,
                                    const std::string& script) {
    write_text(dir.file(name + ".txt"), script);
    const auto result =
        run_process(run_args(c, {"--frames", std::to_string(kFrames), "--input",
                                 dir.file(name + ".txt"), "--hash-log", dir.file(name + ".log")}));
    INFO(result.err);
    REQUIRE_FALSE(result.signaled);
    REQUIRE_FALSE(result.timed_out);
    REQUIRE(result.exit_code == 0);
    auto lines = read_lines(dir.file(name + ".log"));
    REQUIRE(lines.size() == static_cast<std::size_t>(kFrames));
    // The summary's final state hash is the log's last hash.
    CHECK_THAT(result.out,
               Catch::Contains("state    " + lines.back().substr(lines.back().find(' ') + 1)));
    return lines;
}

int first_difference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (a[i] != b[i]) return static_cast<int>(i);
    }
    return -1;
}

void check_hash_logs(const char* name) {
    const CoreCase c = core_case(name);
    require_core_case(c);
    TempDir dir(std::string("run-") + c.name);
    const auto pads = random_pads(7, c.ports);
    const auto base = run_logged(c, dir, "a", script_text(pads, c.ports));
    CHECK(run_logged(c, dir, "b", script_text(pads, c.ports)) == base);

    // Inputs reach the game at all: a silent run differs.
    const auto silent = run_logged(c, dir, "silent", "");
    CHECK(first_difference(silent, base) >= 0);

    // One bit of one port at one frame, on the first and the last port.
    for (unsigned port : {0u, c.ports - 1}) {
        const int frame = 400 + 100 * static_cast<int>(port);
        for (std::uint16_t bit : {std::uint16_t{1u << 8}, std::uint16_t{1u << 6}}) {  // A, LEFT
            auto flipped = pads;
            flipped[frame * c.ports + port] ^= bit;
            const auto log = run_logged(c, dir, "flip", script_text(flipped, c.ports));
            INFO(c.name << ": port " << port + 1 << " bit " << bit << " at frame " << frame);
            CHECK(first_difference(base, log) == frame + c.input_lag);
            int still_equal_after = 0;
            for (int f = frame + c.input_lag; f < kFrames; ++f)
                still_equal_after += base[f] == log[f];
            CHECK(still_equal_after == 0);
        }
    }
}

}  // namespace

TEST_CASE("run: bundled arcade core, hash logs repeat and follow every input bit",
          "[integration][run]") {
    check_hash_logs("arcade");
}
TEST_CASE("run: chaos core without faults, hash logs repeat and follow every input bit",
          "[integration][run]") {
    check_hash_logs("chaos");
}
TEST_CASE("run: nestopia + NES test ROM, hash logs repeat and follow every input bit",
          "[integration][run]") {
    check_hash_logs("nestopia");
}
TEST_CASE(
    "run: mednafen_pce_fast + PCE test ROM (multitap), hash logs repeat and follow every input bit",
    "[integration][run]") {
    check_hash_logs("pce_fast");
}
