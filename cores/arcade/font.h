// A 3x5 pixel font, drawn by hand for the HUD: digits, capitals and a little punctuation.
#pragma once

#include <array>
#include <cstdint>

namespace framelock::cores::arcade {

inline constexpr int kGlyphWidth = 3;
inline constexpr int kGlyphHeight = 5;
inline constexpr int kGlyphAdvance = 4;

// Five rows of three bits, top row first; bit 2 of a row is its left pixel.
constexpr uint16_t glyph(int r0, int r1, int r2, int r3, int r4) {
    return static_cast<uint16_t>(r0 << 12 | r1 << 9 | r2 << 6 | r3 << 3 | r4);
}

struct Glyph {
    char c;
    uint16_t bits;
};

// clang-format off
inline constexpr Glyph kGlyphs[] = {
    {'0', glyph(7, 5, 5, 5, 7)}, {'1', glyph(2, 6, 2, 2, 7)}, {'2', glyph(7, 1, 7, 4, 7)},
    {'3', glyph(7, 1, 3, 1, 7)}, {'4', glyph(5, 5, 7, 1, 1)}, {'5', glyph(7, 4, 7, 1, 7)},
    {'6', glyph(7, 4, 7, 5, 7)}, {'7', glyph(7, 1, 2, 2, 2)}, {'8', glyph(7, 5, 7, 5, 7)},
    {'9', glyph(7, 5, 7, 1, 7)},
    {'A', glyph(2, 5, 7, 5, 5)}, {'B', glyph(6, 5, 6, 5, 6)}, {'C', glyph(3, 4, 4, 4, 3)},
    {'D', glyph(6, 5, 5, 5, 6)}, {'E', glyph(7, 4, 6, 4, 7)}, {'F', glyph(7, 4, 6, 4, 4)},
    {'G', glyph(3, 4, 5, 5, 3)}, {'H', glyph(5, 5, 7, 5, 5)}, {'I', glyph(7, 2, 2, 2, 7)},
    {'J', glyph(1, 1, 1, 5, 2)}, {'K', glyph(5, 5, 6, 5, 5)}, {'L', glyph(4, 4, 4, 4, 7)},
    {'M', glyph(5, 7, 7, 5, 5)}, {'N', glyph(6, 5, 5, 5, 5)}, {'O', glyph(2, 5, 5, 5, 2)},
    {'P', glyph(6, 5, 6, 4, 4)}, {'Q', glyph(2, 5, 5, 6, 3)}, {'R', glyph(6, 5, 6, 5, 5)},
    {'S', glyph(3, 4, 2, 1, 6)}, {'T', glyph(7, 2, 2, 2, 2)}, {'U', glyph(5, 5, 5, 5, 7)},
    {'V', glyph(5, 5, 5, 5, 2)}, {'W', glyph(5, 5, 7, 7, 5)}, {'X', glyph(5, 5, 2, 5, 5)},
    {'Y', glyph(5, 5, 2, 2, 2)}, {'Z', glyph(7, 1, 2, 4, 7)},
    {':', glyph(0, 2, 0, 2, 0)}, {'-', glyph(0, 0, 7, 0, 0)}, {'.', glyph(0, 0, 0, 0, 2)},
    {'/', glyph(1, 1, 2, 4, 4)},
};
// clang-format on

// ASCII 32..127 to glyph bits, built at compile time.
inline constexpr auto kGlyphTable = [] {
    std::array<uint16_t, 96> table{};
    for (const Glyph& g : kGlyphs) table[static_cast<size_t>(g.c - 32)] = g.bits;
    return table;
}();

// Bits of `c`; lower case draws as upper case, anything else unknown as a blank.
constexpr uint16_t glyph_bits(char c) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    const auto code = static_cast<unsigned char>(c);
    if (code < 32 || code > 127) return 0;
    return kGlyphTable[code - 32u];
}

}  // namespace framelock::cores::arcade
