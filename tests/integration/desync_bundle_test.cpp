// A desync a player can hand on: one byte of the chaos core's RAM flipped in one player's
// process only (FRAMELOCK_CHAOS_FLIP_FRAME), in a real session of `framelock host` and
// `framelock join` over loopback; each player leaves a desync bundle, and `framelock synctest
// --compare` on the two names that byte, its address and its region. First the flip itself,
// in this process: one byte, at its frame, in the process that was told only.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/files/desync_bundle.h"
#include "frontend/host/retro_emulator.h"
#include "integration/netplay_session.h"
#include "integration/sim_cores.h"
#include "support/sanitized.h"

using namespace framelock;
using namespace framelock::test;
namespace fs = std::filesystem;

namespace {

constexpr const char* kFlipEnv = "FRAMELOCK_CHAOS_FLIP_FRAME";
// The byte the flip changes (cores/chaos/options.h: SCRATCH at 0x2000, offset 0x15).
constexpr std::uint64_t kFlipAddress = 0x2015;

// Sets an environment variable for what starts while it lives (a core loaded, a process
// spawned: both read it then), and takes it away after.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const std::string& value) : m_name(name) {
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() { ::unsetenv(m_name); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    const char* m_name;
};

// Every byte of the memory regions, with the region and address of each that differs.
std::vector<std::string> differing_bytes(netplay::Emulator& a, netplay::Emulator& b) {
    std::vector<std::string> out;
    const auto ra = a.memory_regions(), rb = b.memory_regions();
    REQUIRE(ra.size() == rb.size());
    for (std::size_t r = 0; r < ra.size(); ++r) {
        REQUIRE(ra[r].bytes.size() == rb[r].bytes.size());
        for (std::size_t i = 0; i < ra[r].bytes.size(); ++i) {
            if (ra[r].bytes[i] != rb[r].bytes[i])
                out.push_back(ra[r].name + "@" + std::to_string(ra[r].start + i));
        }
    }
    return out;
}

std::vector<fs::path> files_in(const std::string& dir) {
    std::vector<fs::path> out;
    if (!fs::is_directory(dir)) return out;
    for (const auto& entry : fs::directory_iterator(dir)) out.push_back(entry.path());
    return out;
}

}  // namespace

TEST_CASE(
    "chaos core: FRAMELOCK_CHAOS_FLIP_FRAME flips one SCRATCH byte at its frame, in the "
    "process told only",
    "[bundle][chaos]") {
    const CoreCase chaos = core_case("chaos");
    require_core_case(chaos);
    const frontend::HostConfig host = sim_host(chaos, 2);
    std::unique_ptr<netplay::Emulator> flipped;
    {
        ScopedEnv flip(kFlipEnv, "40");
        flipped = sim_emulator(host);
    }
    std::unique_ptr<netplay::Emulator> plain = sim_emulator(host);
    netplay::InputFrame inputs;
    for (int f = 0; f < 40; ++f) {
        inputs.pads[0] = static_cast<netplay::InputWord>(f * 7);
        flipped->run_frame(inputs, false);
        plain->run_frame(inputs, false);
    }
    CHECK(differing_bytes(*flipped, *plain).empty());
    flipped->run_frame(inputs, false);  // frame 40
    plain->run_frame(inputs, false);
    // That byte alone after its frame (MAIN absorbs SCRATCH from the next frame on) ...
    CHECK(differing_bytes(*flipped, *plain) ==
          std::vector<std::string>{"SCRATCH@" + std::to_string(kFlipAddress)});
    flipped->run_frame(inputs, false);
    plain->run_frame(inputs, false);
    // ... and the game's state from then on.
    CHECK(differing_bytes(*flipped, *plain).size() > 1);
}

TEST_CASE(
    "desync bundle: a byte flipped on one player of a real session leaves a bundle on "
    "each, and synctest --compare names that byte and its region (fewer frames under "
    "sanitizers)",
    "[bundle][netplay][e2e]") {
    const CoreCase chaos = core_case("chaos");
    require_core_case(chaos);
    // A multiple of the hash and snapshot intervals (60): the desync is found at that very
    // frame and the states compared are those after it, which differ in the flipped byte only.
    const int flip_at = full_or_sanitized(120, 60);
    const int frames = flip_at + full_or_sanitized(120, 120);
    Session session("desync-bundle");
    const std::string host_dir = session.dir().file("host.bundles");
    const std::string join_dir = session.dir().file("joiner.bundles");
    ChildProcess& host =
        session.start_host("host", chaos, 2, 11, frames, {"--desync-bundle", host_dir});
    ChildProcess* joiner = nullptr;
    {
        ScopedEnv flip(kFlipEnv, std::to_string(flip_at));  // the joiner's process alone
        joiner =
            &session.start_client("joiner", chaos, 2, 22, frames, {"--desync-bundle", join_dir});
    }
    session.require_success(*joiner, "joiner", after(session_time(frames)));
    session.require_success(host, "host", after(30s));

    const auto host_files = files_in(host_dir), join_files = files_in(join_dir);
    const std::string logs = session.log_of("host") + session.log_of("joiner");
    INFO(logs);
    REQUIRE(host_files.size() == 1);
    REQUIRE(join_files.size() == 1);
    const std::string a = host_files[0].string(), b = join_files[0].string();
    const std::string frame_part = "-frame" + std::to_string(flip_at);
    CHECK_THAT(a, Catch::Contains(frame_part + "-slot1.flbundle"));
    CHECK_THAT(b, Catch::Contains(frame_part + "-slot2.flbundle"));
    // The line reporting the desync names the bundle, and another says it is written.
    CHECK_THAT(session.log_of("host"),
               Catch::Contains("desync at frame " + std::to_string(flip_at)) &&
                   Catch::Contains("its bundle for a core developer goes to " + a) &&
                   Catch::Contains("desync bundle written: " + a));
    CHECK_THAT(session.log_of("joiner"),
               Catch::Contains("its bundle for a core developer goes to " + b) &&
                   Catch::Contains("desync bundle written: " + b));

    // What each holds: the host the reference (on a tie the host's state is it), its own only;
    // the joiner, repaired, its own and the reference.
    auto ha = frontend::read_desync_bundle(a);
    auto hb = frontend::read_desync_bundle(b);
    REQUIRE(ha);
    REQUIRE(hb);
    const frontend::DesyncBundle& host_bundle = ha.value();
    const frontend::DesyncBundle& join_bundle = hb.value();
    for (const frontend::DesyncBundle* bundle : {&host_bundle, &join_bundle}) {
        CHECK(bundle->identity.core_name == "framelock-chaos");
        CHECK(bundle->mode == netplay::SessionMode::kFrameLock);
        CHECK(bundle->desync_frame == static_cast<std::uint32_t>(flip_at));
        CHECK(bundle->state_frame == static_cast<std::uint32_t>(flip_at + 1));
        CHECK(bundle->differing_slots == 0b10);
        CHECK(bundle->players == 2);
        CHECK_FALSE(bundle->own_state.empty());
        CHECK(bundle->own_regions.size() == 4);
        CHECK(bundle->inputs.size() >= static_cast<std::size_t>(flip_at));
    }
    CHECK(host_bundle.session == join_bundle.session);
    CHECK(host_bundle.other == frontend::DesyncBundle::Other::kNone);
    CHECK_THAT(host_bundle.other_note, Catch::Contains("holds the reference state"));
    CHECK(join_bundle.other == frontend::DesyncBundle::Other::kReference);
    CHECK(join_bundle.other_state == host_bundle.own_state);
    REQUIRE(join_bundle.region_diffs.size() == 1);
    CHECK(join_bundle.region_diffs[0].name == "SCRATCH");
    CHECK(join_bundle.region_diffs[0].diff.differing_bytes == 1);

    // The two bundles compared: that byte, its address and region, and the inputs agree.
    const char* where = "first differing byte: SCRATCH at 0x2015 (offset 21 in the region)";
    const ProcessResult both =
        run_process({build_paths::framelock_exe, "synctest", "--compare", a, b});
    INFO(both.out << both.err);
    CHECK(both.exit_code == 1);
    CHECK_THAT(both.out, Catch::Contains(where) &&
                             Catch::Contains("0x00 in A (slot 1), 0xff in B (slot 2)") &&
                             Catch::Contains("memory that differs: SCRATCH (1 byte differs in 1 "
                                             "range, 0x2015..0x2015)") &&
                             Catch::Contains("inputs: identical on the") &&
                             Catch::Contains("DIFFERENT"));
    // The joiner's alone holds both states.
    const ProcessResult one = run_process({build_paths::framelock_exe, "synctest", "--compare", b});
    INFO(one.out << one.err);
    CHECK(one.exit_code == 1);
    CHECK_THAT(one.out, Catch::Contains(where) &&
                            Catch::Contains("0xff in slot 2's own, 0x00 in the reference"));
    // A bundle compared with itself: identical.
    const ProcessResult same =
        run_process({build_paths::framelock_exe, "synctest", "--compare", a, a});
    CHECK(same.exit_code == 0);
    CHECK_THAT(same.out, Catch::Contains("IDENTICAL"));
}
