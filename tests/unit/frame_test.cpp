#include <catch2/catch.hpp>

#include "netplay/base/types.h"

using framelock::netplay::Frame;

TEST_CASE("Frame compares by signed distance across wraparound", "[netplay][frame]") {
    const Frame before_wrap(0xfffffff0u);
    const Frame after_wrap(5u);
    CHECK(after_wrap - before_wrap == 21);
    CHECK(before_wrap - after_wrap == -21);
    CHECK(before_wrap < after_wrap);
    CHECK(after_wrap > before_wrap);
    CHECK(before_wrap + 21 == after_wrap);
    CHECK(after_wrap - 21 == before_wrap);

    Frame f(0xffffffffu);
    ++f;
    CHECK(f.value() == 0u);
    CHECK(f > Frame(0xffffffffu));
}

TEST_CASE("Frame ordering is ordinary away from the wrap", "[netplay][frame]") {
    CHECK(Frame(10) < Frame(11));
    CHECK(Frame(11) >= Frame(11));
    CHECK(Frame(1000) - Frame(400) == 600);
    CHECK_FALSE(Frame(3) == Frame(4));
}
