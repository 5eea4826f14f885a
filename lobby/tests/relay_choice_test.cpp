// The relay choice (lobby/relay_choice.h) and the probe table (lobby/probe_table.h): pure,
// no store.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "lobby/probe_table.h"
#include "lobby/relay_choice.h"

using namespace framelock::lobby;

namespace {

RelayServer relay(const std::string& id, int load = 0, int capacity = 1) {
    RelayServer s;
    s.id = id;
    s.address = "198.51.100." + std::to_string(id.back() - '0') + ":7000";
    s.capacity = capacity;
    s.load = load;
    return s;
}

std::string chosen(const std::vector<RelayServer>& live, const std::vector<RelayProbes>& players,
                   const std::string& current = "") {
    const auto choice = choose_relay(live, players, current);
    return choice ? choice->id : "none";
}

}  // namespace

TEST_CASE("relay choice: the relay minimising the worst player's round trip", "[lobby][relay]") {
    const std::vector<RelayServer> live = {relay("r1"), relay("r2"), relay("r3")};
    // Three relays at 20, 60 and 120 ms from both players: the 20 ms one.
    const RelayProbes a = {{"r1", 20'000}, {"r2", 60'000}, {"r3", 120'000}};
    const RelayProbes b = {{"r1", 21'000}, {"r2", 59'000}, {"r3", 118'000}};
    const auto choice = choose_relay(live, std::vector<RelayProbes>{a, b});
    REQUIRE(choice);
    CHECK(choice->id == "r1");
    CHECK(choice->address == "198.51.100.1:7000");
    CHECK(choice->worst_rtt_us == 21'000);

    // Crossed: r1 is 20 ms for A but 120 ms for B, r3 the reverse; r2 is 60 ms for both. The
    // sum or the best player would pick r1 or r3; the worst player's round trip picks r2.
    const RelayProbes crossed_a = {{"r1", 20'000}, {"r2", 60'000}, {"r3", 120'000}};
    const RelayProbes crossed_b = {{"r1", 120'000}, {"r2", 60'000}, {"r3", 20'000}};
    const auto middle = choose_relay(live, std::vector<RelayProbes>{crossed_a, crossed_b});
    REQUIRE(middle);
    CHECK(middle->id == "r2");
    CHECK(middle->worst_rtt_us == 60'000);
}

TEST_CASE("relay choice: only relays with capacity, and every player's probe", "[lobby][relay]") {
    const RelayProbes a = {{"r1", 10'000}, {"r2", 30'000}, {"r3", 50'000}};
    const RelayProbes b = {{"r1", 10'000}, {"r3", 40'000}};
    // r1 is full: not eligible, even though closest; r2 has no probe from b.
    CHECK(chosen({relay("r1", 1), relay("r2"), relay("r3")}, {a, b}) == "r3");
    // The room's own relay counts as having room for it (its host holds the session).
    CHECK(chosen({relay("r1", 1), relay("r2"), relay("r3")}, {a, b}, "r1") == "r1");
    // No relay has probes from both: the least loaded (the most free capacity), as the store
    // picks without probes.
    const RelayProbes c = {{"r9", 1'000}};
    CHECK(chosen({relay("r1", 3, 4), relay("r2", 1, 4), relay("r3", 2, 4)}, {a, c}) == "r2");
    CHECK(!choose_relay({relay("r1", 3, 4), relay("r2", 1, 4)}, std::vector<RelayProbes>{a, c})
               ->worst_rtt_us);
    CHECK(chosen({relay("r1", 1), relay("r2", 1)}, {a, b}) == "none");
    CHECK(chosen({}, {a}) == "none");
    CHECK(chosen({relay("r2"), relay("r1")}, {}) == "r1");  // no players: least loaded, by id
}

TEST_CASE("relay choice: ties go to the room's relay, then to the least loaded", "[lobby][relay]") {
    const RelayProbes a = {{"r1", 30'000}, {"r2", 30'000}, {"r3", 30'000}};
    const std::vector<RelayServer> live = {relay("r1", 2, 4), relay("r2", 0, 4), relay("r3", 1, 4)};
    CHECK(chosen(live, {a}) == "r2");
    CHECK(chosen(live, {a}, "r3") == "r3");
    // Better by a microsecond beats the tie-breaks.
    const RelayProbes b = {{"r1", 29'999}, {"r2", 30'000}, {"r3", 30'000}};
    CHECK(chosen(live, {b}, "r3") == "r1");
}

TEST_CASE("relay choice: where a join puts a room, and the joiner's expected round trip",
          "[lobby][relay]") {
    const std::vector<RelayServer> live = {relay("r1"), relay("r2", 1), relay("r3")};
    const RelayProbes host = {{"r1", 20'000}, {"r2", 60'000}, {"r3", 120'000}};
    const RelayProbes joiner = {{"r1", 120'000}, {"r2", 60'000}, {"r3", 20'000}};
    Room room;
    room.server_id = "r2";
    room.server_address = "198.51.100.2:7000";
    room.players = 1;

    SECTION("on a relay, before the session starts: the best for both (its own is eligible)") {
        const auto at = relay_for_join(room, host, joiner, live, false);
        REQUIRE(at);
        CHECK(at->id == "r2");
        CHECK(at->worst_rtt_us == 60'000);
        room.server_id = "r1";  // the host's best; r2 is now another session's (full)
        const auto moved = relay_for_join(room, host, joiner, live, false);
        REQUIRE(moved);
        // r2 is full (another session), r1: 120 ms for the joiner, r3: 120 ms for the host;
        // tie: the room's own.
        CHECK(moved->id == "r1");
        CHECK(moved->worst_rtt_us == 120'000);
    }
    SECTION("once 2 play, the room stays where it is") {
        room.server_id = "r3";
        room.players = 2;
        const auto at = relay_for_join(room, host, joiner, live, false);
        REQUIRE(at);
        CHECK(at->id == "r3");
        CHECK(at->worst_rtt_us == 120'000);  // the host's 120, the joiner's 20
    }
    SECTION("a player without probes: it stays, and the estimate is the joiner's own") {
        const auto at = relay_for_join(room, {}, joiner, live, false);
        REQUIRE(at);
        CHECK(at->id == "r2");
        CHECK(at->worst_rtt_us == 60'000);
        const auto blind = relay_for_join(room, host, {}, live, false);
        REQUIRE(blind);
        CHECK(blind->id == "r2");
        CHECK(!blind->worst_rtt_us);
    }
    SECTION("the host's own server: no relay, unless the joiner asks for one") {
        room.server_id = "";
        room.server_address = "203.0.113.7:7845";
        CHECK(!relay_for_join(room, host, joiner, live, false));
        const RelayProbes far = {{"r1", 200'000}, {"r3", 90'000}};
        const auto relayed = relay_for_join(room, host, far, live, true);
        REQUIRE(relayed);
        CHECK(relayed->id == "r3");  // max(120, 90) < max(20, 200)
        // A host that sent no probes: the lobby's least loaded, not the joiner's choice.
        const auto joiner_only = relay_for_join(room, {}, far, live, true);
        REQUIRE(joiner_only);
        CHECK(joiner_only->id == "r1");
        CHECK(joiner_only->worst_rtt_us == 200'000);  // the joiner's own probe of it
        // A relay the host did not measure is never taken: the host's nearest instead.
        const RelayProbes host_r1 = {{"r1", 20'000}};
        const auto unmeasured = relay_for_join(room, host_r1, {{"r3", 0}}, live, true);
        REQUIRE(unmeasured);
        CHECK(unmeasured->id == "r1");
    }
    SECTION("a joiner's claim alone moves nothing: 0 ms elsewhere, or its own relay left out") {
        room.server_id = "r1";  // the host's nearest (20 ms); r3 it measured at 120 ms
        room.server_address = "198.51.100.1:7000";
        for (const RelayProbes& claim : {RelayProbes{{"r3", 0}}, RelayProbes{{"r3", 0}, {"r9", 0}},
                                         RelayProbes{{"r1", 20'000}, {"r3", 0}}}) {
            const auto at = relay_for_join(room, host, claim, live, false);
            REQUIRE(at);
            CHECK(at->id == "r1");
        }
        // What a joiner can do: say the room's relay is slow for it (nobody can check), and
        // then the worse of both picks among the relays the host measured.
        const auto moved = relay_for_join(room, host, {{"r1", 500'000}, {"r3", 0}}, live, false);
        REQUIRE(moved);
        CHECK(moved->id == "r3");
        CHECK(moved->worst_rtt_us == 120'000);  // the host's 120, not the claimed 0
    }
}

TEST_CASE("relay probes: stored as text and read back", "[lobby][relay]") {
    const RelayProbes p = {{"5e0010000000000000000000000000a1", 23'456},
                           {"5e0010000000000000000000000000a2", 40'000}};
    const std::string text = probes_to_text(p);
    CHECK(text ==
          R"({"5e0010000000000000000000000000a1":23.456,"5e0010000000000000000000000000a2":40})");
    CHECK(probes_from_text(text) == p);
    CHECK(probes_to_text({}).empty());
    CHECK(probes_from_text("").empty());
    CHECK(probes_from_text("not json").empty());
    CHECK(probes_from_text(R"({"a":-1,"b":"x","c":2})") == RelayProbes{{"c", 2'000}});
}

TEST_CASE("probe table: probes expire, and the table stays bounded", "[lobby][relay]") {
    ProbeTable table(ProbeTableLimits{1'000, 3});
    table.put("10.0.0.1", {{"r1", 5'000}}, 0);
    REQUIRE(table.get("10.0.0.1", 999));
    CHECK(table.get("10.0.0.1", 999)->at("r1") == 5'000);
    CHECK(!table.get("10.0.0.1", 1'000));  // the TTL
    CHECK(!table.get("10.0.0.2", 0));
    table.put("10.0.0.1", {{"r1", 6'000}}, 900);  // stored again: a new TTL
    CHECK(table.get("10.0.0.1", 1'500)->at("r1") == 6'000);
    table.put("10.0.0.2", {{"r2", 1}}, 1'000);
    table.put("10.0.0.3", {{"r3", 1}}, 1'000);
    table.put("10.0.0.1", {{"r1", 7'000}}, 1'100);  // the most recent again
    table.put("10.0.0.4", {{"r4", 1}}, 1'200);      // evicts the least recent: .2
    CHECK(table.size() == 3);
    CHECK(!table.get("10.0.0.2", 1'300));
    CHECK(table.get("10.0.0.1", 1'300));
    CHECK(table.get("10.0.0.3", 1'300));
    CHECK(table.get("10.0.0.4", 1'300));
}
