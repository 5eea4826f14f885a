#include <catch2/catch.hpp>

#include <vector>

#include "netplay/wire/wire_fields.h"

namespace framelock::netplay {
namespace {

using Bytes = std::vector<std::uint8_t>;

enum class Color : std::uint8_t { kRed = 0, kGreen = 1, kBlue = 2 };

struct Point {
    std::uint16_t x = 0;
    std::int64_t y = 0;
    friend bool operator==(const Point&, const Point&) = default;
};

// A record with one field of each kind, for the walk both ways.
struct Sample {
    std::uint8_t small = 0;
    std::uint16_t a = 0, b = 0;
    std::uint32_t wide = 0;
    std::uint64_t hash = 0;
    Color color = Color::kRed;
    bool on = false, left = false, right = false;
    std::string name;
    std::array<std::uint8_t, 3> key{};
    std::optional<std::array<std::uint8_t, 2>> proof;
    std::vector<Point> points;
    std::vector<std::uint32_t> capped;
    friend bool operator==(const Sample&, const Sample&) = default;
};

void fields(auto& io, Is<Point> auto& m) {
    io.u16(m.x);
    io.i64(m.y).within(-100, 100);
}

void fields(auto& io, Is<Sample> auto& m) {
    io.tag(0x7e);
    io.u8(m.small).within(1, 9);
    io.u16(m.a, m.b);
    io.u32(m.wide);
    io.u64(m.hash);
    io.u8(m.color).at_most(Color::kBlue);
    io.flag(m.on);
    io.bits(m.left, m.right);
    io.string(m.name, 5);
    io.bytes(m.key);
    io.optional(m.proof);
    io.list(m.points, 2);
    io.capped_list(m.capped, 3, [](auto& each, auto& v) { each.u32(v); });
    io.check(m.a <= m.b);
}

Sample sample() {
    Sample m;
    m.small = 4;
    m.a = 0x0102;
    m.b = 0x0304;
    m.wide = 0xa1b2c3d4;
    m.hash = 0x1122334455667788;
    m.color = Color::kBlue;
    m.on = true;
    m.right = true;
    m.name = "ab";
    m.key = {7, 8, 9};
    m.proof = std::array<std::uint8_t, 2>{5, 6};
    m.points = {{1, -2}};
    m.capped = {10};
    return m;
}

TEST_CASE("A field list writes its fields in order, little-endian, and reads them back",
          "[netplay][wire]") {
    const Sample m = sample();
    const Bytes bytes = write_record(m);
    const Bytes expected = {0x7e, 4,    0x02, 0x01, 0x04, 0x03, 0xd4, 0xc3, 0xb2, 0xa1, 0x88, 0x77,
                            0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 2,    1,    0b10, 2,    0,    'a',
                            'b',  7,    8,    9,    1,    5,    6,    1,    1,    0,    0xfe, 0xff,
                            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1,    10,   0,    0,    0};
    CHECK(bytes == expected);
    const auto back = read_record<Sample>(bytes);
    REQUIRE(back.has_value());
    CHECK(*back == m);
}

TEST_CASE("The reader refuses every prefix, a trailing byte and what a field does not accept",
          "[netplay][wire]") {
    const Bytes bytes = write_record(sample());
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        INFO("prefix of " << n << " bytes");
        CHECK_FALSE(read_record<Sample>(std::span(bytes).first(n)).has_value());
    }
    Bytes longer = bytes;
    longer.push_back(0);
    CHECK_FALSE(read_record<Sample>(longer).has_value());

    const auto refused = [&](std::size_t at, std::uint8_t value) {
        Bytes changed = bytes;
        changed[at] = value;
        return !read_record<Sample>(changed).has_value();
    };
    CHECK(refused(0, 0x7f));    // another tag
    CHECK(refused(1, 0));       // below `within`
    CHECK(refused(1, 10));      // above it
    CHECK(refused(18, 3));      // no such color
    CHECK(refused(19, 2));      // a flag is 0 or 1
    CHECK(refused(20, 0b100));  // a bit no flag has
    CHECK(refused(21, 6));      // a string longer than its bound
    CHECK(refused(28, 2));      // an optional's flag is 0 or 1
    CHECK(refused(31, 3));      // a list longer than its bound
    CHECK(refused(41, 0x7f));   // an element's own check (y far above 100)
    CHECK(refused(42, 4));      // a capped list's bound holds for the reader
    CHECK(refused(3, 0x05));    // the check across fields: a <= b
    CHECK_FALSE(refused(19, 0));
}

TEST_CASE("The writer checks nothing, a capped list sends its first elements", "[netplay][wire]") {
    Sample m = sample();
    m.small = 200;  // the reader refuses it, the writer writes it
    m.name = "abcdefgh";
    m.capped = {1, 2, 3, 4, 5};
    const Bytes bytes = write_record(m);
    CHECK(bytes[1] == 200);
    CHECK_FALSE(read_record<Sample>(bytes).has_value());
    m.small = 1;
    const auto back = read_record<Sample>(write_record(m));
    REQUIRE(back.has_value());
    CHECK(back->name == "abcde");
    CHECK(back->capped == std::vector<std::uint32_t>{1, 2, 3});
}

struct Versioned {
    std::uint16_t version = 0;
    std::uint32_t rest = 0;
};

void fields(auto& io, Is<Versioned> auto& m) {
    io.u16(m.version);
    if (io.end_here_if(m.version != 2)) return;
    io.u32(m.rest);
}

TEST_CASE("end_here_if: the reader stops there and accepts what came, the writer writes all",
          "[netplay][wire]") {
    CHECK(write_record(Versioned{1, 5}).size() == 6);
    const auto other = read_record<Versioned>(Bytes{1, 0, 0xaa, 0xbb});
    REQUIRE(other.has_value());
    CHECK(other->version == 1);
    CHECK(other->rest == 0);
    CHECK_FALSE(read_record<Versioned>(Bytes{2, 0, 0xaa, 0xbb}).has_value());
    CHECK_FALSE(read_record<Versioned>(Bytes{1}).has_value());
}

}  // namespace
}  // namespace framelock::netplay
