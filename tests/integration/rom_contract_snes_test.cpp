// The SNES test ROM's contract (tests/roms/README.md) on the three bsnes-mercury profiles:
// every frame, in the middle of the picture, the ROM reads both pads' 16-bit words and folds
// their bytes into its CRC-32; the test predicts both from the random inputs it sends.
#include <catch2/catch.hpp>

#include <cstdint>

#include "integration/rom_contract.h"

using namespace framelock;

namespace {

// The word the SNES reads from a pad: bits 15..4 are B Y Select Start Up Down Left Right A X
// L R, which are RetroPad ids 0..11 in that order; bits 3..0 (the pad's id) are 0.
std::uint16_t snes_word(netplay::InputWord w) {
    std::uint16_t word = 0;
    for (unsigned id = 0; id < 12; ++id) {
        if (w & (1u << id)) word |= static_cast<std::uint16_t>(0x8000u >> id);
    }
    return word;
}

// A SNES pad's twelve buttons (RetroPad ids 0..11; L2, R2, L3, R3 do not exist). All three
// bsnes-mercury profiles drop both directions of an opposing pair (measured; no option
// changes it).
netplay::InputWord snes_pad(netplay::InputWord w) {
    return test::without_opposing_directions(w & 0x0fff);
}

void check_snes(const char* core, std::uint64_t frames) {
    test::check_rom_contract({core, "7e0000", 0x10, 2, 2, snes_word, snes_pad, frames});
}

}  // namespace

TEST_CASE("SNES ROM's pad checksum equals one computed from the inputs sent (bsnes performance)",
          "[integration][rom]") {
    check_snes("bsnes_performance", 3000);
}

TEST_CASE("SNES ROM's pad checksum equals one computed from the inputs sent (bsnes balanced)",
          "[integration][rom]") {
    check_snes("bsnes_balanced", 3000);
}

// The accuracy profile runs at about a fifth of the performance profile's speed (150-210
// frames/s here against 780-1070): 600 frames, about 3 s.
TEST_CASE(
    "SNES ROM's pad checksum equals one computed from the inputs sent (bsnes accuracy, 600 frames)",
    "[integration][rom]") {
    check_snes("bsnes_accuracy", 600);
}
