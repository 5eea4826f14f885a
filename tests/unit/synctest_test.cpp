// The save/load round-trip check on a small fake machine with one switchable fault each.
#include <catch2/catch.hpp>

#include <cstring>

#include "netplay/determinism/synctest.h"

using namespace framelock::netplay;

namespace {

// kLoadStamp: every load puts a new value into a state-only byte the game never reads;
// kLoadTiming: the same byte, but the game reads it (a timing counter a load resets).
enum class Fault {
    kNone,
    kUnsaved,
    kRerunDiffers,
    kNoState,
    kSaveCounter,
    kGrowing,
    kCache,
    kLoadStamp,
    kLoadTiming
};

// 16 bytes of RAM (a region named "RAM") and 4 bytes "AUX"; the state is RAM + AUX + a frame
// counter. Each frame mixes the pads into RAM and AUX. Faults start at `fault_frame` (the
// frame about to run, 0-based).
class FakeMachine final : public Emulator {
  public:
    FakeMachine(Fault fault, std::uint64_t fault_frame) : m_fault(fault), m_at(fault_frame) {}

    void run_frame(const InputFrame& inputs, bool) override {
        for (std::size_t i = 0; i < m_ram.size(); ++i)
            m_ram[i] = static_cast<std::uint8_t>(m_ram[i] * 31 + inputs.pads[0] + i + m_frame);
        for (auto& b : m_aux) b = static_cast<std::uint8_t>(b * 7 + m_ram[3] + 1);
        if (m_fault == Fault::kRerunDiffers && m_frame >= m_at) m_ram[5] ^= ++m_runs & 0xff;
        if (m_fault == Fault::kCache) m_cache = m_ram[0];
        if (m_fault == Fault::kLoadTiming) m_ram[2] ^= m_stamp;
        ++m_frame;
    }
    std::uint64_t frame_count() const override { return m_frame; }
    bool save_state(std::vector<std::uint8_t>& out) override {
        if (m_fault == Fault::kNoState && m_frame > m_at) return false;
        out.assign(m_ram.begin(), m_ram.end());
        if (m_fault == Fault::kUnsaved && m_frame > m_at)
            out.insert(out.end(), 4, 0);
        else
            out.insert(out.end(), m_aux.begin(), m_aux.end());
        for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(m_frame >> (8 * i)));
        if (m_fault == Fault::kSaveCounter && m_frame > m_at) out.push_back(++m_saves & 0xff);
        if (stamped()) out.push_back(m_stamp);
        if (m_fault == Fault::kGrowing && m_frame > m_at) out.resize(out.size() + m_frame - m_at);
        return true;
    }
    bool load_state(std::span<const std::uint8_t> in) override {
        if (in.size() < 28) return false;
        std::memcpy(m_ram.data(), in.data(), 16);
        std::uint64_t frame = 0;
        for (int i = 0; i < 8; ++i) frame |= std::uint64_t{in[20 + i]} << (8 * i);
        if (!(m_fault == Fault::kUnsaved && frame > m_at))
            std::memcpy(m_aux.data(), in.data() + 16, 4);
        m_frame = frame;
        if (m_fault == Fault::kCache) m_cache = 0xEE;  // rebuilt on the next frame
        if (stamped()) m_stamp = static_cast<std::uint8_t>(++m_loads * 37 + 1);
        return true;
    }
    std::uint64_t state_hash() override { return 0; }
    std::vector<MemoryRegion> memory_regions() override {
        std::vector<MemoryRegion> out{{"RAM", 0x100, m_ram}, {"AUX", 0x200, m_aux}};
        if (m_fault == Fault::kCache) out.push_back({"CACHE", 0x300, {&m_cache, 1}});
        return out;
    }
    double frames_per_second() const override { return 60.0; }

  private:
    bool stamped() const { return m_fault == Fault::kLoadStamp || m_fault == Fault::kLoadTiming; }
    Fault m_fault;
    std::uint64_t m_at;
    std::array<std::uint8_t, 16> m_ram{};
    std::array<std::uint8_t, 4> m_aux{};
    std::uint8_t m_cache = 0;
    std::uint64_t m_frame = 0;
    std::uint64_t m_runs = 0;
    std::uint64_t m_saves = 0;
    std::uint8_t m_stamp = 0;
    std::uint64_t m_loads = 0;
};

std::vector<InputFrame> inputs(std::size_t n) {
    std::vector<InputFrame> out(n);
    for (std::size_t i = 0; i < n; ++i)
        out[i].pads[0] = static_cast<InputWord>((i * 2654435761u) >> 7);
    return out;
}

RoundTripVerdict check(Fault fault, std::uint64_t at, std::uint32_t distance = 8,
                       std::size_t frames = 200) {
    FakeMachine machine(fault, at);
    return run_round_trip_check(machine, inputs(frames), {distance});
}

}  // namespace

TEST_CASE("diff_bytes merges nearby differences and counts the rest", "[synctest]") {
    std::vector<std::uint8_t> a(100, 0), b(100, 0);
    b[10] = 1;
    b[12] = 1;  // merged with 10 (gap 2)
    b[50] = 1;
    b[90] = 1;
    const ByteDiff d = diff_bytes(a, b, 2, 8);
    REQUIRE(d.range_count == 3);
    REQUIRE(d.ranges.size() == 2);
    CHECK(d.ranges[0].offset == 10);
    CHECK(d.ranges[0].length == 3);
    CHECK(d.ranges[1].offset == 50);
    CHECK(d.differing_bytes == 4);
    b.resize(104, 0);
    const ByteDiff grown = diff_bytes(a, b);
    CHECK(grown.sizes_differ);
    CHECK(grown.ranges.back().offset == 100);
    CHECK(grown.ranges.back().length == 4);
    CHECK(diff_bytes(a, a).empty());
}

TEST_CASE("round trip: a deterministic machine passes and every frame is re-run once",
          "[synctest]") {
    FakeMachine machine(Fault::kNone, 0);
    RoundTripCheck c(machine, {10});
    for (const auto& in : inputs(101)) {
        c.run(in);
        while (c.rerunning()) c.rerun_step();
    }
    const auto& v = c.finish();
    CHECK(v.result == RoundTripResult::kDeterministic);
    CHECK(c.stats().frames == 101);
    CHECK(c.stats().loads == 10);          // at frames 10, 20, ... 100
    CHECK(c.stats().rerun_frames == 100);  // frames 1..100
    CHECK(c.stats().size_changes == 0);
}

TEST_CASE("round trip: a field left out of the state is found at the first bad save",
          "[synctest]") {
    for (std::uint64_t at : {37u, 40u, 41u}) {
        // States saved after frame `at` (the machine's counter > at) lack AUX.
        const auto v = check(Fault::kUnsaved, at, 8);
        INFO("fault from frame " << at);
        REQUIRE(v.result == RoundTripResult::kDiverged);
        CHECK(v.frame == at);
        CHECK(v.differs_after_load);
        REQUIRE(v.regions.size() == 1);
        CHECK(v.regions[0].name == "AUX");
        CHECK(v.regions[0].start == 0x200);
        CHECK(v.rerun_diverged);
        CHECK(v.rerun_frame > v.loaded_frame);
    }
}

TEST_CASE("round trip: a re-run that differs names the frame and the byte", "[synctest]") {
    const auto v = check(Fault::kRerunDiffers, 53, 8);
    REQUIRE(v.result == RoundTripResult::kDiverged);
    CHECK(v.frame == 53);
    CHECK_FALSE(v.differs_after_load);
    REQUIRE(v.regions.size() >= 1);
    CHECK(v.regions[0].name == "RAM");
    REQUIRE_FALSE(v.regions[0].diff.ranges.empty());
    CHECK(v.regions[0].diff.ranges[0].offset == 5);
    CHECK(v.state_diff.ranges[0].offset == 5);
    CHECK(v.state_first.size() == v.state_other.size());
}

TEST_CASE("round trip: no savestates, unstable serialization, growing states", "[synctest]") {
    const auto none = check(Fault::kNoState, 30);
    CHECK(none.result == RoundTripResult::kNoSavestates);
    CHECK(none.frame == 30);  // the first save after the machine's counter passed 30

    const auto twice = check(Fault::kSaveCounter, 12);
    CHECK(twice.result == RoundTripResult::kSerializeTwice);
    CHECK(twice.frame == 12);
    CHECK(twice.state_diff.differing_bytes == 1);

    // Growing states are saved and loaded at their own size each time: no failure.
    FakeMachine growing(Fault::kGrowing, 20);
    RoundTripCheck c(growing, {8});
    for (const auto& in : inputs(100)) {
        c.run(in);
        while (c.rerunning()) c.rerun_step();
    }
    CHECK(c.finish().result == RoundTripResult::kDeterministic);
    CHECK(c.stats().size_changes == 80);
    CHECK(c.stats().first_size_change == 20);
    CHECK(c.stats().max_state_size == c.stats().min_state_size + 80);
}

TEST_CASE("round trip: memory that differs after a load but comes back is a note, not a failure",
          "[synctest]") {
    const auto v = check(Fault::kCache, 0);
    CHECK(v.result == RoundTripResult::kDeterministic);
    CHECK(v.message.find("CACHE") != std::string::npos);
}

TEST_CASE(
    "round trip: state bytes a load changes without touching the game are listed, not a "
    "failure, the same bytes read by the game are one",
    "[synctest]") {
    const RoundTripVerdict benign = check(Fault::kLoadStamp, 0);
    CHECK(benign.result == RoundTripResult::kDeterministic);
    REQUIRE(benign.reload_bytes.size() == 1);
    CHECK(benign.reload_bytes[0].offset == 28);  // after RAM, AUX and the frame counter
    CHECK(benign.reload_bytes[0].length == 1);
    CHECK_THAT(benign.message, Catch::Contains("1 byte in 1 range (offsets 28..28)") &&
                                   Catch::Contains("changed with every load") &&
                                   Catch::Contains("Not a desync"));

    const RoundTripVerdict timing = check(Fault::kLoadTiming, 0);
    CHECK(timing.result == RoundTripResult::kDiverged);
    CHECK(timing.frame == 0);  // the first state loaded: frame 0's
    CHECK(timing.differs_after_load);
    CHECK(timing.rerun_frame == 1);
    CHECK(timing.reload_bytes.empty());
    CHECK_THAT(timing.message, Catch::Contains("changed 1 byte in 1 range (offsets 28..28)") &&
                                   Catch::Contains("they are game state") &&
                                   Catch::Contains("RAM"));
}
