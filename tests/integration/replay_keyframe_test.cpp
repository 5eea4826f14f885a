// A recording's keyframes under rollback, on the bundled core (RecordingEmulator, as a player's
// runner drives it): frames around a keyframe run first on predicted pads, then again on the
// real ones after a rollback, before they are final. The keyframe and the hashes the replay
// keeps are those of the real pads: a straight run with them gives the same bytes.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "frontend/files/replay_file.h"
#include "frontend/session/recording_emulator.h"
#include "frontend/session/session_identity.h"
#include "integration/netplay_session.h"
#include "integration/sim_cores.h"
#include "netplay/determinism/evidence.h"
#include "support/temp_dir.h"

using namespace framelock::test;
namespace fe = framelock::frontend;
namespace np = framelock::netplay;

namespace {

np::InputFrame real_pads(std::uint64_t f) {
    np::InputFrame in;
    in.pads[0] = static_cast<np::InputWord>(1u << (4 + f / 7 % 4));
    in.pads[1] = static_cast<np::InputWord>(f / 5 % 2 ? 1u << 8 : 0);
    return in;
}

np::InputFrame predicted_pads(std::uint64_t f) {
    np::InputFrame in = real_pads(f);
    in.pads[1] = static_cast<np::InputWord>(1u << 0);  // the peer's pad, guessed wrong
    return in;
}

std::unique_ptr<fe::RetroEmulator> arcade(const CoreCase& core) {
    auto emu = fe::RetroEmulator::create(sim_host(core, 2));
    REQUIRE(emu);
    return std::move(emu).value();
}

}  // namespace

TEST_CASE(
    "replay keyframes under rollback: the keyframe and hashes a replay keeps are the real "
    "pads', not the predicted ones'",
    "[integration][replay]") {
    const CoreCase core = two_player_arcade();
    require_core_case(core);
    TempDir dir("replay-keyframe");
    const std::string path = dir.file("rollback.flrp");
    auto emu = arcade(core);
    np::ReplayHeader header;
    header.identity = fe::session_identity(*emu);
    header.players = 2;
    auto writer = fe::ReplayWriter::open(path, header);
    REQUIRE(writer);
    fe::RecordingEmulator recording(*emu, nullptr, 0, nullptr, {}, true);
    recording.record_to(writer.value().get());
    // Frames 0 .. 589 final as they run; 590 .. 609 on predicted pads, the state of 590 kept
    // as a rollback keeps it; then the real pads arrive: back to 590 and again, now final.
    for (std::uint64_t f = 0; f < 590; ++f) {
        recording.run_frame(real_pads(f), false);
        recording.flush_log(f + 1);
    }
    std::vector<std::uint8_t> at_590;
    REQUIRE(recording.save_state(at_590));
    for (std::uint64_t f = 590; f < 610; ++f) recording.run_frame(predicted_pads(f), false);
    REQUIRE(recording.load_state(at_590));
    recording.rewind_to(590);
    for (std::uint64_t f = 590; f < 610; ++f) recording.run_frame(real_pads(f), false);
    recording.flush_log(610);
    REQUIRE(writer.value()->close());

    // A straight run on the real pads: its state before 600 and its hashes.
    auto straight = arcade(core);
    std::vector<std::uint8_t> before_600, scratch;
    std::vector<std::uint64_t> hashes;
    for (std::uint64_t f = 0; f < 610; ++f) {
        if (f == 600) REQUIRE(straight->save_state(before_600));
        straight->run_frame(real_pads(f), false);
        hashes.push_back(np::evidence_hash(*straight, np::EvidenceMask{}, scratch));
    }
    auto read = fe::read_replay_file(path);
    REQUIRE(read);
    const np::ReplayContents& replay = read.value();
    CHECK(replay.stopped.empty());
    REQUIRE(replay.frames.size() == 610);
    REQUIRE(replay.keyframes.size() == 1);
    CHECK(replay.keyframes[0].frame == 600);
    auto state = np::keyframe_state(replay.keyframes[0]);
    REQUIRE(state);
    CHECK(state.value() == before_600);
    std::size_t differing = 0;
    for (std::size_t f = 0; f < 610; ++f) {
        differing += replay.frames[f].hash != hashes[f];
        differing += !(replay.frames[f].inputs == real_pads(f));
    }
    CHECK(differing == 0);
    // And the predicted run was another game: the test would see a keyframe kept from it.
    auto guessed = arcade(core);
    std::vector<std::uint8_t> guessed_600;
    for (std::uint64_t f = 0; f < 600; ++f) {
        if (f < 590)
            guessed->run_frame(real_pads(f), false);
        else
            guessed->run_frame(predicted_pads(f), false);
    }
    REQUIRE(guessed->save_state(guessed_600));
    CHECK(guessed_600 != before_600);
}
