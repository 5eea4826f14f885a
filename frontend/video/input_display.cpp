#include "frontend/video/input_display.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace framelock::frontend {
namespace {

constexpr std::uint32_t kPanel = 0x181818;
constexpr std::uint32_t kUnlit = 0x484848;
constexpr unsigned kGap = 3;    // between pads
constexpr unsigned kCell = 5;   // a button's grid step: a 4-pixel box and a 1-pixel gap
constexpr unsigned kGridX = 9;  // the grid's place in the panel
constexpr unsigned kGridY = 2;

// A button's box on the pad's grid of 11 x 4 cells: column, row, width in cells.
struct Button {
    unsigned id;  // RETRO_DEVICE_ID_JOYPAD_*: its bit in the pad word
    unsigned column, row, cells;
};
constexpr std::array<Button, 14> kButtons = {{
    {10, 0, 0, 2},  // L
    {12, 2, 0, 1},  // L2
    {13, 8, 0, 1},  // R2
    {11, 9, 0, 2},  // R
    {4, 1, 1, 1},   // UP
    {6, 0, 2, 1},   // LEFT
    {7, 2, 2, 1},   // RIGHT
    {5, 1, 3, 1},   // DOWN
    {2, 4, 2, 1},   // SELECT
    {3, 6, 2, 1},   // START
    {9, 9, 1, 1},   // X
    {1, 8, 2, 1},   // Y
    {8, 10, 2, 1},  // A
    {0, 9, 3, 1},   // B
}};

// The digits 1-8 as 3 x 5 pixels, a row per 3 bits (the top row first, the high bit left).
constexpr std::array<std::array<std::uint8_t, 5>, 8> kDigits = {{
    {2, 6, 2, 2, 7},
    {7, 1, 7, 4, 7},
    {7, 1, 7, 1, 7},
    {5, 5, 7, 1, 1},
    {7, 4, 7, 1, 7},
    {7, 4, 7, 5, 7},
    {7, 1, 1, 1, 1},
    {7, 5, 7, 5, 7},
}};

constexpr std::array<std::uint32_t, netplay::kMaxPlayers> kColors = {
    0xff4040, 0x4090ff, 0x40e040, 0xffd040, 0xff60ff, 0x40f0f0, 0xff9020, 0xffffff};

// Fills the rectangle, clipped to the picture (x and y may be negative).
void fill(Image& picture, long x, long y, long width, long height, std::uint32_t color) {
    const long x0 = std::max(0L, x), y0 = std::max(0L, y);
    const long x1 = std::min<long>(picture.width, x + width);
    const long y1 = std::min<long>(picture.height, y + height);
    for (long row = y0; row < y1; ++row) {
        for (long column = x0; column < x1; ++column)
            picture.pixels[static_cast<std::size_t>(row) * picture.width +
                           static_cast<std::size_t>(column)] = color;
    }
}

void draw_pad(Image& picture, long x, long y, unsigned port, netplay::InputWord word) {
    const std::uint32_t color = input_display_color(port);
    fill(picture, x, y, kInputPadWidth, kInputPadHeight, kPanel);
    // The player's number, each glyph pixel 2 x 2.
    const auto& digit = kDigits[port % kDigits.size()];
    for (unsigned row = 0; row < digit.size(); ++row) {
        for (unsigned column = 0; column < 3; ++column) {
            if (digit[row] & (4u >> column))
                fill(picture, x + 2 + 2 * column, y + 7 + 2 * row, 2, 2, color);
        }
    }
    for (const Button& button : kButtons) {
        const bool held = (word >> button.id) & 1u;
        fill(picture, x + kGridX + kCell * button.column, y + kGridY + kCell * button.row,
             kCell * button.cells - 1, kCell - 1, held ? color : kUnlit);
    }
}

}  // namespace

std::uint32_t input_display_color(unsigned port) {
    return kColors[port % kColors.size()];
}

void draw_input_display(Image& picture, const netplay::InputFrame& inputs, unsigned ports) {
    if (picture.width == 0 || picture.height == 0) return;
    ports = std::min<unsigned>(ports, netplay::kMaxPlayers);
    const unsigned per_row = std::max(1u, (picture.width + kGap) / (kInputPadWidth + kGap));
    for (unsigned port = 0; port < ports; ++port) {
        const long column = static_cast<long>(port % per_row);
        const long row = static_cast<long>(port / per_row);  // 0: the bottom row
        const long x = column * (kInputPadWidth + kGap);
        const long y = static_cast<long>(picture.height) -
                       (row + 1) * static_cast<long>(kInputPadHeight) - row * kGap;
        draw_pad(picture, x, y, port, inputs.pads[port]);
    }
}

}  // namespace framelock::frontend
