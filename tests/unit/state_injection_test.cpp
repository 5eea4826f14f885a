// Nobody loads a state the others did not agree on (docs/netplay.md, "Desync repair"): test
// clients on the simulated network that cheat with their state. One reports the true hash of
// its game but uploads an edited state when the server asks it for one (a repair's or a
// joiner's); one edits its own game and reports the edited state's hash like any other. The
// server checks every uploaded state against the hash the players' vote on its frame settled
// on, repairs only from a majority, and on a tie follows nobody on a relay.
#include <catch2/catch.hpp>

#include <cstdio>

#include "netplay/sim/sim_session.h"
#include "unit/sim_events.h"

using namespace framelock::netplay;

namespace {

// A cheat that reports the true hash of its game but, when the server asks it for a state (a
// repair's reference state, a joiner's state), sends an edited one: the low byte of the game
// word (a score, a life counter) of every state it uploads of frame `from` on. It hashes and
// keeps the true state; the edit is made on the way out (SimScenario::tamper_upload).
int edited_uploads = 0;  // edited states sent, over every session

void upload_edited_states(SimScenario& sc, int cheater, std::uint32_t from) {
    sc.tamper_client = cheater;
    sc.tamper_upload = [from](std::uint32_t frame, std::vector<std::uint8_t>& state) {
        if (frame < from) return;
        state[0] ^= 0x5a;
        ++edited_uploads;
    };
}

// The cheats and odd cores below wrap a HashingEmulator: what they do not change goes to it.
class Forwarding : public Emulator {
  public:
    explicit Forwarding(HashingEmulator& inner) : m_inner(inner) {}
    void run_frame(const InputFrame& inputs, bool present) override {
        m_inner.run_frame(inputs, present);
    }
    std::uint64_t frame_count() const override { return m_inner.frame_count(); }
    bool save_state(std::vector<std::uint8_t>& out) override { return m_inner.save_state(out); }
    bool load_state(std::span<const std::uint8_t> state) override {
        return m_inner.load_state(state);
    }
    void rewind_to(std::uint64_t next_frame) override { m_inner.rewind_to(next_frame); }
    std::uint64_t state_hash() override { return m_inner.state_hash(); }
    std::vector<MemoryRegion> memory_regions() override { return m_inner.memory_regions(); }
    double frames_per_second() const override { return m_inner.frames_per_second(); }

  protected:
    HashingEmulator& m_inner;
};

// A cheat that edits its own game just before frame `at` runs (the edit stays, as a changed
// score would) and so reports the edited state's hash, as an honest player reports its own.
class StateEditor final : public Forwarding {
  public:
    StateEditor(HashingEmulator& inner, std::uint64_t at) : Forwarding(inner), m_at(at) {}
    void run_frame(const InputFrame& inputs, bool present) override {
        if (m_inner.frame_count() == m_at && !m_done) {
            std::vector<std::uint8_t> state;
            REQUIRE(m_inner.save_state(state));
            state[0] ^= 0x5a;
            REQUIRE(m_inner.load_state(state));
            m_done = true;
        }
        m_inner.run_frame(inputs, present);
    }

  private:
    std::uint64_t m_at;
    bool m_done = false;
};

// An honest core that does not save the same machine the same way twice: one byte of its
// state says how many times it was saved since it last ran a frame or loaded a state (a
// stand-in for gambatte, which fills a byte from its caller's stack: docs/faults.md). Saving,
// loading that and saving again gives the same bytes, so no load is seen to move it and no
// evidence mask leaves it out: an upload that is a second serialization of the state a
// report hashed does not hash to that report.
class SecondSaveDiffers final : public Forwarding {
  public:
    explicit SecondSaveDiffers(HashingEmulator& inner) : Forwarding(inner) {}
    void run_frame(const InputFrame& inputs, bool present) override {
        m_saves = 0;
        m_inner.run_frame(inputs, present);
    }
    bool save_state(std::vector<std::uint8_t>& out) override {
        if (!m_inner.save_state(out)) return false;
        out.push_back(static_cast<std::uint8_t>(++m_saves));
        return true;
    }
    bool load_state(std::span<const std::uint8_t> state) override {
        if (state.empty() || !m_inner.load_state(state.first(state.size() - 1))) return false;
        m_saves = 0;
        return true;
    }

  private:
    int m_saves = 0;
};

SimScenario session(int players, std::uint32_t frames, std::uint64_t seed) {
    SimScenario sc;
    sc.players = players;
    sc.frames = frames;
    sc.seed = seed;
    sc.link = LinkParams{30'000, 3'000, 0.0, 0.0, 0};
    return sc;
}

// The cheat runs as client `cheater`.
template <class Cheat>
void cheat_as(SimScenario& sc, int cheater, std::uint64_t frame) {
    sc.wrap_emulator = [cheater, frame](int client,
                                        HashingEmulator& inner) -> std::unique_ptr<Emulator> {
        if (client != cheater) return nullptr;
        return std::make_unique<Cheat>(inner, frame);
    };
}

// Whether a client was sent a state after the start (a join or a repair's reference state).
bool loaded_a_state(const SimResult& r, int slot) {
    for (const auto& e : r.server_events) {
        if (e.type == ServerEvent::Type::kStateSent && e.slot == slot && e.frame > 0) return true;
    }
    return false;
}

// Every client runs SecondSaveDiffers.
void every_core_saves_twice_differently(SimScenario& sc) {
    sc.wrap_emulator = [](int, HashingEmulator& inner) -> std::unique_ptr<Emulator> {
        return std::make_unique<SecondSaveDiffers>(inner);
    };
}

int states_refused(const SimResult& r) {
    int refused = 0;
    for (const auto& slot : r.slots) refused += static_cast<int>(slot.states_refused);
    return refused;
}

void print_events(const SimResult& r) {
    for (const auto& e : r.server_events) {
        if (e.type == ServerEvent::Type::kDesync || e.type == ServerEvent::Type::kRefused ||
            e.type == ServerEvent::Type::kStateSent || e.type == ServerEvent::Type::kResynced)
            std::printf("  server: slot %d frame %u: %s\n", e.slot, e.frame, e.message.c_str());
    }
}

// Client 1's edited upload was refused, counted against it alone (of 3 slots) and named.
void check_refused_and_named(const SimResult& r) {
    const ServerEvent* refused =
        find_event(r, ServerEvent::Type::kRefused, std::string("refused, sent to nobody"));
    REQUIRE(refused != nullptr);
    CHECK(refused->slot == 1);
    CHECK_THAT(refused->message, Catch::Contains("client1"));
    REQUIRE(r.slots.size() == 3);
    CHECK(r.slots[0].states_refused >= 1);
    CHECK(r.slots[1].states_refused == 0);
    CHECK(r.slots[2].states_refused == 0);
}

}  // namespace

TEST_CASE(
    "State injection, 3 players: a player that reports its true hash but uploads an edited "
    "state for a repair is refused and named, the divergent player gets the majority's state",
    "[netplay][desync][cheat]") {
    // Client 3 diverges at 1000 (an honest fault); client 1, first of the majority, is asked
    // for the reference state and uploads an edited one.
    SimScenario sc = session(3, 2400, 101);
    sc.diverging_client = 3;
    sc.diverge_frame = 1000;
    upload_edited_states(sc, 1, 900);
    edited_uploads = 0;
    const SimResult r = run_scenario(sc);
    print_events(r);
    REQUIRE(edited_uploads > 0);
    const ServerEvent* desync = find_event(r, ServerEvent::Type::kDesync);
    REQUIRE(desync != nullptr);
    CHECK(desync->differing_slots == 0b100);
    const ServerEvent* repaired = find_event(r, ServerEvent::Type::kResynced, 3);
    REQUIRE(repaired != nullptr);
    std::printf(
        "[figure] state injection, 3 players, repair: client 3 resynced at frame %u; "
        "first difference of clients 2 and 3 from there: %ld\n",
        repaired->frame, SimResult::first_difference(r.clients[1], r.clients[2], repaired->frame));
    // Nobody loaded the edited state: client 3 is the honest majority's again, for good.
    CHECK(SimResult::first_difference(r.clients[1], r.clients[2], repaired->frame) == -1);
    CHECK(SimResult::first_difference(r.clients[0], r.clients[1]) == -1);
    CHECK(count_events(r, ServerEvent::Type::kResynced) == 1);
    check_refused_and_named(r);  // the cheater is named
}

TEST_CASE(
    "State injection, late join: a player that uploads an edited state for a joiner is refused "
    "and named, the joiner gets the state the players agreed on",
    "[netplay][join][cheat]") {
    SimScenario sc = session(2, 1800, 103);
    sc.slots = 3;
    sc.joiners = {{600, false, 3}};
    upload_edited_states(sc, 1, 300);
    edited_uploads = 0;
    const SimResult r = run_scenario(sc);
    print_events(r);
    REQUIRE(r.clients.size() == 3);
    REQUIRE(edited_uploads > 0);
    const auto& joiner = r.clients[2];
    CHECK(joiner.first_frame >= 600);
    std::printf(
        "[figure] state injection, late join: joiner first frame %u; first difference "
        "from client 2: %ld; desyncs %d\n",
        joiner.first_frame, SimResult::first_difference(r.clients[1], joiner),
        count_events(r, ServerEvent::Type::kDesync));
    CHECK(SimResult::first_difference(r.clients[1], joiner) == -1);
    CHECK(SimResult::first_difference(r.clients[0], r.clients[1]) == -1);
    CHECK(count_events(r, ServerEvent::Type::kDesync) == 0);
    CHECK(joiner.hashes.size() >= 1700);
    check_refused_and_named(r);
}

TEST_CASE(
    "State injection, 3 players: a player that edits its game and reports the edited hash is "
    "outvoted: it gets the majority's state, nobody gets its",
    "[netplay][desync][cheat]") {
    SimScenario sc = session(3, 2400, 105);
    cheat_as<StateEditor>(sc, 1, 1000);
    const SimResult r = run_scenario(sc);
    print_events(r);
    const ServerEvent* desync = find_event(r, ServerEvent::Type::kDesync);
    REQUIRE(desync != nullptr);
    CHECK(desync->frame == 1020);
    CHECK(desync->differing_slots == 0b001);
    const ServerEvent* repaired = find_event(r, ServerEvent::Type::kResynced);
    REQUIRE(repaired != nullptr);
    CHECK(repaired->slot == 1);
    CHECK(count_events(r, ServerEvent::Type::kResynced) == 1);
    CHECK_FALSE(loaded_a_state(r, 2));
    CHECK_FALSE(loaded_a_state(r, 3));
    // The honest two never differ; the cheater is theirs again from the repair on.
    CHECK(SimResult::first_difference(r.clients[1], r.clients[2]) == -1);
    CHECK(SimResult::first_difference(r.clients[0], r.clients[1]) == 1000);
    CHECK(SimResult::first_difference(r.clients[0], r.clients[1], repaired->frame) == -1);
}

TEST_CASE(
    "State injection, 2 players on a relay: a player that edits its game and reports the edited "
    "hash gains no authority: the tie is reported to both, nobody is repaired",
    "[netplay][desync][cheat]") {
    // Client 1 took slot 1 first, as a first-comer on a relay does.
    SimScenario sc = session(2, 2400, 107);
    cheat_as<StateEditor>(sc, 1, 1000);
    const SimResult r = run_scenario(sc);
    print_events(r);
    const ServerEvent* desync = find_event(r, ServerEvent::Type::kDesync);
    REQUIRE(desync != nullptr);
    CHECK(desync->frame == 1020);
    CHECK(desync->differing_slots == 0b11);
    CHECK_THAT(desync->message, Catch::Contains("nobody is repaired"));
    std::printf(
        "[figure] state injection, 2-player tie on a relay: %s; states sent to the "
        "honest player: %s; resyncs: %d\n",
        desync->message.c_str(), loaded_a_state(r, 2) ? "yes" : "none",
        count_events(r, ServerEvent::Type::kResynced));
    // Nobody's state goes anywhere: the honest player keeps its own game.
    CHECK_FALSE(loaded_a_state(r, 2));
    CHECK_FALSE(loaded_a_state(r, 1));
    CHECK(count_events(r, ServerEvent::Type::kResynced) == 0);
    CHECK(SimResult::first_difference(r.clients[0], r.clients[1]) == 1000);
    // Both are told, once, and play on to the end.
    CHECK(count_events(r, ServerEvent::Type::kDesync) == 1);
    for (const auto& client : r.clients) {
        bool told = false;
        for (const auto& e : client.events) told |= e.type == ClientEvent::Type::kDesync;
        CHECK(told);
        CHECK(client.stats.frames_run >= sc.frames);
        CHECK(client.hashes.size() >= sc.frames);
    }
}

TEST_CASE("A 2-player tie on the host's own server follows the host: the tie rule's one exception",
          "[netplay][desync][cheat]") {
    // framelock host runs the server in player 1's process (ServerConfig::host_slot): that
    // player could do anything with its own server, so its state settles a tie.
    SimScenario sc = session(2, 2400, 107);
    sc.server.host_slot = 1;
    cheat_as<StateEditor>(sc, 2, 1000);
    const SimResult r = run_scenario(sc);
    print_events(r);
    const ServerEvent* desync = find_event(r, ServerEvent::Type::kDesync);
    REQUIRE(desync != nullptr);
    CHECK(desync->differing_slots == 0b10);
    CHECK_THAT(desync->message,
               Catch::Contains("differ from the host (a tie: the host runs this server"));
    const ServerEvent* repaired = find_event(r, ServerEvent::Type::kResynced);
    REQUIRE(repaired != nullptr);
    CHECK(repaired->slot == 2);
    CHECK_FALSE(loaded_a_state(r, 1));
    CHECK(SimResult::first_difference(r.clients[0], r.clients[1], repaired->frame) == -1);
}

// Honest players whose core does not save the same machine the same way twice: the state a
// player uploads of a frame is the very serialization its report of the frame before hashed,
// so nobody's upload is refused and nobody is named.

TEST_CASE(
    "Honest uploads, late join: a core that does not save the same machine the same way twice "
    "still gives the joiner (a player, or a rollback session's spectator or player) the state "
    "the players agreed on, and nobody is named",
    "[netplay][join][cheat]") {
    struct Case {
        SessionMode mode;
        bool spectator;
    };
    for (const Case c : {Case{SessionMode::kFrameLock, false}, Case{SessionMode::kRollback, true},
                         Case{SessionMode::kRollback, false}}) {
        const SessionMode mode = c.mode;
        SimScenario sc = session(2, 1800, 109);
        sc.server.mode = mode;
        sc.slots = 3;
        sc.joiners = {{600, c.spectator, c.spectator ? 0 : 3}};
        if (mode == SessionMode::kRollback) sc.server.delay.fixed_delay = 1;
        every_core_saves_twice_differently(sc);
        const SimResult r = run_scenario(sc);
        print_events(r);
        REQUIRE(r.clients.size() == 3);
        const auto& joiner = r.clients[2];
        std::printf(
            "[figure] honest uploads, late join (%s, %s): joiner first frame %u, %zu frames run; "
            "states refused %d\n",
            mode == SessionMode::kRollback ? "rollback" : "frame lock",
            c.spectator ? "spectator" : "player", joiner.first_frame, joiner.hashes.size(),
            states_refused(r));
        CHECK(joiner.first_frame > 0);  // the newest snapshot the players agreed on
        CHECK(joiner.first_frame <= 900);
        CHECK(joiner.hashes.size() >= 1700);
        CHECK(SimResult::first_difference(r.clients[1], joiner) == -1);
        CHECK(states_refused(r) == 0);
        CHECK(find_event(r, ServerEvent::Type::kRefused, std::string("refused")) == nullptr);
        CHECK(count_events(r, ServerEvent::Type::kDesync) == 0);
    }
}

TEST_CASE(
    "Honest uploads, 3 players: a core that does not save the same machine the same way twice "
    "still repairs the divergent player from the majority's state, and nobody is named",
    "[netplay][desync][cheat]") {
    SimScenario sc = session(3, 2400, 111);
    sc.diverging_client = 3;
    sc.diverge_frame = 1000;
    every_core_saves_twice_differently(sc);
    const SimResult r = run_scenario(sc);
    print_events(r);
    const ServerEvent* repaired = find_event(r, ServerEvent::Type::kResynced, 3);
    REQUIRE(repaired != nullptr);
    std::printf(
        "[figure] honest uploads, 3 players, repair: client 3 resynced at frame %u; states "
        "refused %d\n",
        repaired->frame, states_refused(r));
    CHECK(SimResult::first_difference(r.clients[1], r.clients[2], repaired->frame) == -1);
    CHECK(count_events(r, ServerEvent::Type::kResynced) == 1);
    CHECK(states_refused(r) == 0);
    CHECK(find_event(r, ServerEvent::Type::kRefused, std::string("refused")) == nullptr);
}

TEST_CASE(
    "State injection under memory evidence: a joiner's state comes only from a player whose "
    "memory hash is the majority's, never from a player that edited its game",
    "[netplay][join][cheat]") {
    // Every load takes a new stamp into a 24-byte state: a third of it moves, so the players
    // compare the memory the core exposes, and the server cannot hash an uploaded state.
    // Repairs are off, so that the cheater's game stays edited when the joiner comes; the
    // server asks the lowest slot, the cheater's, first.
    SimScenario sc = session(3, 1800, 113);
    sc.reload_stamps = true;
    sc.server.repair_desyncs = false;
    sc.slots = 4;
    sc.joiners = {{600, false, 4}};
    cheat_as<StateEditor>(sc, 1, 300);
    const SimResult r = run_scenario(sc);
    print_events(r);
    REQUIRE(r.clients.size() == 4);
    REQUIRE(find_event(r, ServerEvent::Type::kEvidence, std::string("memory")) != nullptr);
    const auto& joiner = r.clients[3];
    std::printf(
        "[figure] state injection under memory evidence, late join: joiner first frame %u; "
        "first difference from client 2: %ld, from the cheater: %ld\n",
        joiner.first_frame, SimResult::first_difference(r.clients[1], joiner),
        SimResult::first_difference(r.clients[0], joiner));
    CHECK(joiner.first_frame >= 600);
    CHECK(joiner.hashes.size() >= 1700);
    CHECK(SimResult::first_difference(r.clients[1], joiner) == -1);
    CHECK(SimResult::first_difference(r.clients[1], r.clients[2]) == -1);
    const ServerEvent* refused =
        find_event(r, ServerEvent::Type::kRefused, std::string("was not the players' majority"));
    REQUIRE(refused != nullptr);
    CHECK(refused->slot == 1);
}
