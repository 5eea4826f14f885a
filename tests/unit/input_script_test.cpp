#include <catch2/catch.hpp>

#include "frontend/host/input_script.h"

using namespace framelock::frontend;

TEST_CASE("Script events hold until the next event for the same port", "[frontend][input]") {
    auto script = InputScript::parse(
        "# a tap of A on port 1 at frame 3, RIGHT held on port 2 from frame 2\n"
        "3 1 A\n"
        "4 1 none   # release\n"
        "2 2 RIGHT\n"
        "6 8 0x0101\n",
        "test");
    REQUIRE(script.ok());
    auto& s = script.value();
    CHECK(s.input_for(0).pads[0] == 0);
    CHECK(s.input_for(2).pads[1] == (1 << 7));
    CHECK(s.input_for(3).pads[0] == (1 << 8));
    CHECK(s.input_for(4).pads[0] == 0);
    CHECK(s.input_for(5).pads[1] == (1 << 7));
    CHECK(s.input_for(6).pads[7] == 0x0101);
    CHECK(s.input_for(3).pads[0] == (1 << 8));  // going back works too
}

TEST_CASE("Button names combine with '+', case-insensitively", "[frontend][input]") {
    CHECK(parse_buttons("a+b+up").value() == ((1 << 8) | (1 << 0) | (1 << 4)));
    CHECK(parse_buttons("NONE").value() == 0);
    CHECK(parse_buttons("65535").value() == 0xffff);
    CHECK(format_buttons(0x0101) == "B+A");
    CHECK(parse_buttons(format_buttons(0xabcd)).value() == 0xabcd);
}

TEST_CASE("Malformed scripts fail with the line number and the reason", "[frontend][input]") {
    auto bad_button = InputScript::parse("0 1 A\n\n5 1 JUMP\n", "s.txt");
    REQUIRE_FALSE(bad_button.ok());
    CHECK_THAT(bad_button.error().message,
               Catch::Contains("line 3") && Catch::Contains("unknown button 'JUMP'"));

    auto bad_port = InputScript::parse("0 9 A\n", "s.txt");
    REQUIRE_FALSE(bad_port.ok());
    CHECK_THAT(bad_port.error().message, Catch::Contains("line 1") && Catch::Contains("port '9'"));

    CHECK_FALSE(InputScript::parse("x 1 A\n", "s").ok());
    CHECK_FALSE(InputScript::parse("0 1\n", "s").ok());
    CHECK_FALSE(InputScript::parse("0 1 A extra\n", "s").ok());
    CHECK_FALSE(InputScript::parse("0 1 0x10000\n", "s").ok());
}

TEST_CASE("Random input is a pure function of seed and frame", "[frontend][input]") {
    RandomInput a(42, 4), b(42, 4), c(43, 4);
    int differing_frames = 0, taps = 0, nonzero_port5 = 0;
    framelock::netplay::InputWord prev[2] = {0, 0};
    for (std::uint64_t f = 0; f < 2000; ++f) {
        const auto x = a.input_for(f);
        CHECK(x == b.input_for(f));
        if (!(x == c.input_for(f))) ++differing_frames;
        if (x.pads[4] != 0) ++nonzero_port5;
        if (f >= 2 && x.pads[0] != prev[1] && prev[1] != prev[0]) ++taps;
        prev[0] = prev[1];
        prev[1] = x.pads[0];
    }
    CHECK(differing_frames > 1900);
    CHECK(nonzero_port5 == 0);  // only the requested ports are driven
    CHECK(taps > 20);           // one-frame holds happen
    RandomInput again(42, 4);
    const auto late = a.input_for(1500);  // going back replays from the seed
    for (std::uint64_t f = 0; f < 1500; ++f) again.input_for(f);
    CHECK(late == again.input_for(1500));
}
