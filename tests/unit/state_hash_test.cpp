#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "netplay/determinism/state_hash.h"

using namespace framelock::netplay;

TEST_CASE("State hash is stable, sensitive to one bit, and printed as 16 hex digits",
          "[netplay][hash]") {
    std::vector<std::uint8_t> bytes(4096);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 7);
    const std::uint64_t a = hash_bytes(bytes);
    CHECK(a == hash_bytes(bytes));
    bytes[2000] ^= 0x10;
    CHECK(hash_bytes(bytes) != a);
    CHECK(hash_to_hex(0x1234) == "0000000000001234");
    CHECK(hash_to_hex(a).size() == 16);
}

TEST_CASE("Region hashes keep names and order", "[netplay][hash]") {
    const std::uint8_t one[] = {1, 2, 3};
    const std::uint8_t two[] = {1, 2, 4};
    const auto hashes = hash_regions({{"WRAM", 0, one}, {"VRAM", 0x8000, two}});
    REQUIRE(hashes.size() == 2);
    CHECK(hashes[0].name == "WRAM");
    CHECK(hashes[1].name == "VRAM");
    CHECK(hashes[0].hash != hashes[1].hash);
    CHECK(hashes[0].hash == hash_bytes(one));
}
