// Desync repair with real cores on the simulated network: one peer's emulated RAM is
// corrupted at a chosen frame (a byte flipped behind the core's back, as an uninitialized
// read or a stray host write would); the server sees the hashes disagree at that frame,
// sends the majority's state, and the peer names the memory that differed, loads it, and
// is identical again.
#include <catch2/catch.hpp>

#include <cinttypes>
#include <cstdio>

#include "frontend/host/retro_emulator.h"
#include "integration/cores.h"
#include "integration/sim_cores.h"
#include "netplay/sim/sim_session.h"

using namespace framelock;
using namespace framelock::test;

namespace {

// Where the byte was flipped (kept by the test: the emulator dies with the session).
struct Corruption {
    std::string region;
    std::uint64_t address = 0;
    bool done = false;
};

// Runs a real core and flips one byte of its largest writable memory region just before
// frame `at` runs.
class CorruptingEmulator final : public netplay::Emulator {
  public:
    CorruptingEmulator(std::unique_ptr<netplay::Emulator> inner, std::uint64_t at, Corruption& out)
        : m_inner(std::move(inner)), m_at(at), m_out(out) {}
    void run_frame(const netplay::InputFrame& inputs, bool present) override {
        if (m_inner->frame_count() == m_at && !m_out.done) {
            m_out.done = true;
            netplay::MemoryRegion biggest;
            for (const auto& r : m_inner->memory_regions()) {
                if (r.bytes.size() > biggest.bytes.size()) biggest = r;
            }
            REQUIRE(biggest.bytes.size() >= 64);
            // The region's bytes are the core's own memory: write through it.
            // Within the first 8 KiB (mednafen_pce_fast exposes 32 KiB of which the
            // PC Engine has 8).
            const std::size_t offset = std::min<std::size_t>(biggest.bytes.size() / 2, 0x1000) + 7;
            auto* byte = const_cast<std::uint8_t*>(biggest.bytes.data() + offset);
            *byte = static_cast<std::uint8_t>(*byte ^ 0x5a);
            m_out.region = biggest.name;
            m_out.address = biggest.start + offset;
        }
        m_inner->run_frame(inputs, present);
    }
    std::uint64_t frame_count() const override { return m_inner->frame_count(); }
    bool save_state(std::vector<std::uint8_t>& out) override { return m_inner->save_state(out); }
    bool load_state(std::span<const std::uint8_t> state) override {
        return m_inner->load_state(state);
    }
    void rewind_to(std::uint64_t next_frame) override { m_inner->rewind_to(next_frame); }
    std::uint64_t state_hash() override { return m_inner->state_hash(); }
    std::vector<netplay::MemoryRegion> memory_regions() override {
        return m_inner->memory_regions();
    }
    double frames_per_second() const override { return m_inner->frames_per_second(); }

  private:
    std::unique_ptr<netplay::Emulator> m_inner;
    std::uint64_t m_at;
    Corruption& m_out;
};

void run_resync_case(const char* core_name, std::uint64_t corrupt_at) {
    const CoreCase c = core_case(core_name);
    require_core_case(c);
    netplay::SimScenario sc;
    sc.players = 3;
    sc.frames = 1800;
    sc.seed = 77;
    sc.link.latency_us = 40'000;
    sc.link.jitter_us = 5'000;
    sc.server.hash_interval = 1;  // every frame compared: the first bad frame is exact
    sc.hold_min = 4;
    sc.hold_max = 40;
    sc.bot_buttons = bot_buttons(c);
    Corruption corruption;
    const Corruption* corrupted = &corruption;
    const frontend::HostConfig host = sim_host(c, 3);
    sc.make_emulator = [&](int client) -> std::unique_ptr<netplay::Emulator> {
        auto emulator = sim_emulator(host);
        if (client != 2) return emulator;
        return std::make_unique<CorruptingEmulator>(std::move(emulator), corrupt_at, corruption);
    };
    const netplay::SimResult r = netplay::run_scenario(sc);
    INFO(core_name);
    REQUIRE(corrupted->done);
    const netplay::ServerEvent* desync = nullptr;
    const netplay::ServerEvent* repaired = nullptr;
    int desyncs = 0;
    for (const auto& e : r.server_events) {
        if (e.type == netplay::ServerEvent::Type::kDesync) {
            ++desyncs;
            if (!desync) desync = &e;
        }
        if (e.type == netplay::ServerEvent::Type::kResynced && !repaired) repaired = &e;
    }
    REQUIRE(desync != nullptr);
    // The state after frame corrupt_at differs: found at that very frame.
    CHECK(desync->frame == corrupt_at);
    CHECK(desync->differing_slots == 0b010);
    REQUIRE(repaired != nullptr);
    CHECK(repaired->slot == 2);
    char where[32];
    std::snprintf(where, sizeof where, "0x%" PRIx64, corrupted->address);
    CHECK_THAT(repaired->message, Catch::Contains(corrupted->region) && Catch::Contains(where) &&
                                      Catch::Contains("frame " + std::to_string(corrupt_at)));
    CHECK(desyncs == 1);
    // Every frame compared equal except those from the corruption to the repair (and the
    // last few, unreported when the run ended).
    const std::uint64_t bad = repaired->frame - corrupt_at;
    CHECK(r.hash_frames_matched + bad + 60 >= sc.frames);
    for (const auto& client : r.clients) CHECK(client.stats.frames_run >= sc.frames);
    std::printf("[figure] desync repair, %s: corrupted %s at %s before frame %" PRIu64
                "; %s; %" PRIu64 " frames compared equal\n",
                core_name, corrupted->region.c_str(), where, corrupt_at, repaired->message.c_str(),
                static_cast<std::uint64_t>(r.hash_frames_matched));
}

}  // namespace

TEST_CASE("Desync repair with the bundled arcade core: a corrupted peer is repaired",
          "[netplay][desync][cores]") {
    run_resync_case("arcade", 700);
}

TEST_CASE("Desync repair with mednafen_pce_fast + PCE ROM: a corrupted peer is repaired",
          "[netplay][desync][cores]") {
    run_resync_case("pce_fast", 700);
}

TEST_CASE("Desync repair with nestopia + NES ROM: a corrupted peer is repaired",
          "[netplay][desync][cores]") {
    run_resync_case("nestopia", 700);
}

TEST_CASE("Desync repair with gambatte + Game Boy ROM: a corrupted peer is repaired",
          "[netplay][desync][cores]") {
    run_resync_case("gambatte", 700);
}

TEST_CASE("Desync repair with mgba (Game Boy) + Game Boy ROM: a corrupted peer is repaired",
          "[netplay][desync][cores]") {
    run_resync_case("mgba_gb", 700);
}

namespace {

// The chaos core's own faults in a 3-player session: each player's copy of the core takes
// something of its own at `at` (leftover memory, the clock), so all three differ there: a tie,
// and the host runs the server (ServerConfig::host_slot), so its state is the reference.
struct ChaosRun {
    netplay::SimResult result;
    const netplay::ServerEvent* desync = nullptr;
    const netplay::ServerEvent* repaired = nullptr;
    int desyncs = 0;
};

// `join_at` > 0: two players, and a third joins at that frame (its state loaded).
ChaosRun run_chaos_case(const char* fault, std::uint32_t at, std::uint32_t frames,
                        std::uint32_t join_at = 0) {
    const CoreCase c = core_case("chaos");
    require_core_case(c);
    netplay::SimScenario sc;
    sc.players = join_at ? 2 : 3;
    sc.slots = 3;
    if (join_at) sc.joiners = {{join_at, false, 3}};
    sc.frames = frames;
    sc.seed = 79;
    sc.link.latency_us = 30'000;
    sc.link.jitter_us = 3'000;
    sc.server.hash_interval = 1;
    sc.server.host_slot = 1;
    frontend::HostConfig host = sim_host(c, 3);
    host.option_overrides.emplace("chaos_fault", fault);
    host.option_overrides.emplace("chaos_fault_frame", std::to_string(at));
    sc.make_emulator = [&](int) { return sim_emulator(host); };
    ChaosRun run;
    run.result = netplay::run_scenario(sc);
    for (const auto& e : run.result.server_events) {
        if (e.type == netplay::ServerEvent::Type::kDesync) {
            ++run.desyncs;
            if (!run.desync) run.desync = &e;
        }
        if (e.type == netplay::ServerEvent::Type::kResynced && !run.repaired) run.repaired = &e;
    }
    return run;
}

}  // namespace

TEST_CASE(
    "Desync repair with the chaos core's uninit fault: found at its frame in SCRATCH, "
    "repaired, identical after",
    "[netplay][desync][cores]") {
    const ChaosRun run = run_chaos_case("uninit", 250, 1200);
    REQUIRE(run.desync != nullptr);
    CHECK(run.desync->frame == 250);
    CHECK(run.desync->differing_slots == 0b110);
    REQUIRE(run.repaired != nullptr);
    CHECK_THAT(run.repaired->message, Catch::Contains("SCRATCH") && Catch::Contains("frame 250"));
    CHECK(run.desyncs == 1);
    // Identical again: every client ends on the host's state.
    const auto& clients = run.result.clients;
    REQUIRE(clients.size() == 3);
    CHECK(clients[1].final_state_hash == clients[0].final_state_hash);
    CHECK(clients[2].final_state_hash == clients[0].final_state_hash);
    std::printf("[figure] chaos uninit: %s\n", run.repaired->message.c_str());
}

TEST_CASE("Desync with the chaos core's wallclock fault: found at its frame, in CLOCK",
          "[netplay][desync][cores]") {
    // The clock is read again every frame: repairs cannot hold, but the first report is exact.
    const ChaosRun run = run_chaos_case("wallclock", 250, 600);
    REQUIRE(run.desync != nullptr);
    CHECK(run.desync->frame == 250);
    CHECK(run.desync->differing_slots == 0b110);
    REQUIRE(run.repaired != nullptr);
    CHECK_THAT(run.repaired->message, Catch::Contains("CLOCK") && Catch::Contains("frame 250"));
    for (const auto& client : run.result.clients) CHECK(client.stats.frames_run >= 600u);
    std::printf("[figure] chaos wallclock: %s\n", run.repaired->message.c_str());
}

TEST_CASE(
    "Desync with the chaos core's unsaved fault: a joiner whose state leaves HIDDEN out is "
    "found as soon as the game reads it",
    "[netplay][desync][cores]") {
    // HIDDEN is not in the state, so the joiner keeps its own, which is not in any hash; the
    // game reaches it through MAIN a few frames later (610 here, joined at 601), and that
    // first frame whose state differs is the one reported.
    const ChaosRun run = run_chaos_case("unsaved", 100, 900, 600);
    REQUIRE(run.result.clients.size() == 3);
    const auto& joiner = run.result.clients[2];
    REQUIRE(run.desync != nullptr);
    CHECK(run.desync->frame >= joiner.first_frame);
    CHECK(run.desync->frame < joiner.first_frame + 30);
    CHECK(run.desync->differing_slots == 0b100);
    REQUIRE(run.repaired != nullptr);
    CHECK(run.repaired->slot == 3);
    CHECK_THAT(run.repaired->message, Catch::Contains("MAIN"));
    std::printf("[figure] chaos unsaved, joined at frame %u: desync at frame %u; %s\n",
                joiner.first_frame, run.desync->frame, run.repaired->message.c_str());
}
