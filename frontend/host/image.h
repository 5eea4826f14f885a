// Pictures as plain RGB pixels and as PNG files: screenshots, demo output, and the
// side-by-side and difference pictures of determinism reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "frontend/host/io.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

// width * height pixels, row-major, no padding, each 0x00RRGGBB (top byte always 0).
struct Image {
    unsigned width = 0, height = 0;
    std::vector<std::uint32_t> pixels;
    // Text that goes with the picture (a window's screenshot: the text rows its overlay drew),
    // as (keyword, UTF-8 text): a PNG's iTXt chunks, written and read back.
    std::vector<std::pair<std::string, std::string>> text = {};

    std::uint32_t at(unsigned x, unsigned y) const {
        return pixels[static_cast<std::size_t>(y) * width + x];
    }
    bool operator==(const Image&) const = default;
};

// Colour of the pixels diff_highlight() marks as different.
inline constexpr std::uint32_t kDiffColor = 0xff00ff;

// decode_png_rgb8() refuses pictures larger than this, before allocating anything for them.
inline constexpr unsigned kMaxPngSide = 16384;
inline constexpr std::size_t kMaxPngPixels = std::size_t{1} << 26;

// Copies the core's picture out of `frame` (which is only valid during present()) in any of
// the three libretro pixel formats, honouring the pitch. 5- and 6-bit channels are widened
// by repeating their high bits, so 0 stays 0 and full intensity becomes 0xff. A frame with
// no data (a dupe) or a pitch shorter than one row gives an empty (0×0) Image.
Image to_image(const VideoFrame& frame);

// The pictures left to right, `gap` columns of `gap_color` between neighbours; the result is
// as tall as the tallest, shorter pictures are padded below with `gap_color`. The pointers
// must not be null and are only read during the call. No pictures give an empty Image.
Image side_by_side(const std::vector<const Image*>& images, unsigned gap, std::uint32_t gap_color);

// A picture as large as the larger of `a` and `b` in each direction: where both have the same
// pixel it shows b's pixel at a third of its brightness, everywhere else (a different pixel,
// or a place outside one of the two) it shows kDiffColor. The number of those differing
// pixels is stored in *differing_pixels unless that is null.
Image diff_highlight(const Image& a, const Image& b, std::size_t* differing_pixels);

// The picture as a PNG file in memory, written by libpng: 8-bit RGB, non-interlaced, each
// row's filter chosen by the minimum-sum-of-absolute-differences heuristic, deflated at zlib
// level 6. Precondition (asserted): width and height non-zero, at most 2^31 - 1, and
// pixels.size() == width * height. Throws std::bad_alloc when memory runs out.
std::vector<std::uint8_t> encode_png(const Image& image);

// encode_png() written with write_file_atomic(). An empty or inconsistent Image is a kIo
// error naming the path, as is any failure to write.
Status write_png(const std::filesystem::path& path, const Image& image);

// Decodes an 8-bit RGB, non-interlaced PNG (everything encode_png writes, with any of the
// five filter types) with libpng. Every length, CRC and size is checked; anything malformed,
// truncated, larger than kMaxPngSide/kMaxPngPixels or in another pixel format is a kIo
// error saying what is wrong (libpng's words, and how far into the file it got). Ancillary
// chunks are skipped but the text (iTXt, into Image::text: a few at most), and one claiming
// more than 8 MiB is refused.
Result<Image> decode_png_rgb8(std::span<const std::uint8_t> png);

// read_file() then decode_png_rgb8(); errors name the path.
Result<Image> read_png(const std::filesystem::path& path);

}  // namespace framelock::frontend
