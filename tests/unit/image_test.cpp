#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <zlib.h>

#include "frontend/files/atomic_file.h"
#include "frontend/host/image.h"
#include "support/temp_dir.h"

using namespace framelock::frontend;
namespace fs = std::filesystem;

namespace {

// A frame buffer of `height` rows of `pitch` bytes; put() stores a pixel at any byte offset.
struct FrameBuffer {
    std::vector<std::uint8_t> bytes;
    std::size_t pitch;
    template <class T>
    void put(unsigned x, unsigned y, T value) {
        std::memcpy(bytes.data() + y * pitch + x * sizeof(T), &value, sizeof(T));
    }
    VideoFrame frame(unsigned width, unsigned height, PixelFormat format) const {
        return VideoFrame{bytes.data(), width, height, pitch, format};
    }
};

FrameBuffer frame_buffer(unsigned height, std::size_t pitch) {
    // Padding filled with a value that would show up if it were ever read as a pixel.
    return FrameBuffer{std::vector<std::uint8_t>(height * pitch, 0x5a), pitch};
}

Image solid(unsigned width, unsigned height, std::uint32_t color) {
    return Image{width, height, std::vector<std::uint32_t>(std::size_t{width} * height, color), {}};
}

Image random_image(unsigned width, unsigned height, std::uint32_t seed) {
    std::mt19937 rng(seed);
    Image image{width, height, {}};
    for (std::size_t i = 0; i < std::size_t{width} * height; ++i) {
        image.pixels.push_back(rng() & 0xffffff);
    }
    return image;
}

// Smooth ramps with a little noise: the encoder picks different filters for different rows.
Image gradient_image(unsigned width, unsigned height, std::uint32_t seed) {
    std::mt19937 rng(seed);
    Image image{width, height, {}};
    for (unsigned y = 0; y < height; ++y) {
        for (unsigned x = 0; x < width; ++x) {
            const std::uint32_t r = (x * 255 / std::max(1u, width - 1)) & 0xff;
            const std::uint32_t g = (y * 255 / std::max(1u, height - 1)) & 0xff;
            const std::uint32_t b = y % 16 < 8 ? ((x + y) * 3) & 0xff : rng() & 0xff;
            image.pixels.push_back((r << 16) | (g << 8) | b);
        }
    }
    return image;
}

// ---- a PNG writer of our own for the decoder tests: chunks, zlib, the specification's filters --

std::uint32_t crc32_of(const std::uint8_t* data, std::size_t size) {
    return static_cast<std::uint32_t>(crc32_z(crc32_z(0, nullptr, 0), data, size));
}

void put_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8)
        out.push_back(static_cast<std::uint8_t>(v >> shift));
}

std::uint32_t get_be32(const std::vector<std::uint8_t>& bytes, std::size_t at) {
    return (std::uint32_t{bytes[at]} << 24) | (std::uint32_t{bytes[at + 1]} << 16) |
           (std::uint32_t{bytes[at + 2]} << 8) | bytes[at + 3];
}

struct Chunk {
    std::string type;
    std::vector<std::uint8_t> data;
};

std::vector<std::uint8_t> assemble(const std::vector<Chunk>& chunks) {
    std::vector<std::uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    for (const Chunk& chunk : chunks) {
        put_be32(png, static_cast<std::uint32_t>(chunk.data.size()));
        const std::size_t type_at = png.size();
        png.insert(png.end(), chunk.type.begin(), chunk.type.end());
        png.insert(png.end(), chunk.data.begin(), chunk.data.end());
        put_be32(png, crc32_of(png.data() + type_at, png.size() - type_at));
    }
    return png;
}

Chunk ihdr(std::uint32_t width, std::uint32_t height, std::uint8_t depth = 8,
           std::uint8_t color_type = 2, std::uint8_t interlace = 0) {
    Chunk chunk{"IHDR", {}};
    put_be32(chunk.data, width);
    put_be32(chunk.data, height);
    chunk.data.insert(chunk.data.end(), {depth, color_type, 0, 0, interlace});
    return chunk;
}

std::vector<std::uint8_t> zlib_stream(const std::vector<std::uint8_t>& raw) {
    uLongf size = compressBound(raw.size());
    std::vector<std::uint8_t> out(size);
    REQUIRE(compress2(out.data(), &size, raw.data(), raw.size(), 9) == Z_OK);
    out.resize(size);
    return out;
}

// Filters the image's rows with the given filter types (cycled), per the PNG specification.
std::vector<std::uint8_t> filtered_rows(const Image& image, const std::vector<int>& filters) {
    const std::size_t stride = std::size_t{image.width} * 3;
    std::vector<std::uint8_t> out, above(stride, 0), row(stride);
    for (unsigned y = 0; y < image.height; ++y) {
        for (unsigned x = 0; x < image.width; ++x) {
            row[x * 3] = static_cast<std::uint8_t>(image.at(x, y) >> 16);
            row[x * 3 + 1] = static_cast<std::uint8_t>(image.at(x, y) >> 8);
            row[x * 3 + 2] = static_cast<std::uint8_t>(image.at(x, y));
        }
        const int filter = filters[y % filters.size()];
        out.push_back(static_cast<std::uint8_t>(filter));
        for (std::size_t i = 0; i < stride; ++i) {
            const int a = i >= 3 ? row[i - 3] : 0, b = above[i], c = i >= 3 ? above[i - 3] : 0;
            int prediction = 0;
            if (filter == 1) prediction = a;
            if (filter == 2) prediction = b;
            if (filter == 3) prediction = (a + b) / 2;
            if (filter == 4) {
                const int p = a + b - c;
                const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
                prediction = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            }
            out.push_back(static_cast<std::uint8_t>(row[i] - prediction));
        }
        above = row;
    }
    return out;
}

// Recomputes the CRC of every chunk whose length still fits, after bytes were changed.
void fix_crcs(std::vector<std::uint8_t>& png) {
    std::size_t pos = 8;
    while (png.size() - pos >= 12) {
        const std::uint32_t length = get_be32(png, pos);
        if (length > png.size() - pos - 12) return;
        const std::uint32_t crc = crc32_of(png.data() + pos + 4, 4 + std::size_t{length});
        for (int i = 0; i < 4; ++i) {
            png[pos + 8 + length + i] = static_cast<std::uint8_t>(crc >> (24 - 8 * i));
        }
        pos += 12 + std::size_t{length};
    }
}

std::string decode_error(const std::vector<std::uint8_t>& png) {
    auto result = decode_png_rgb8(png);
    return result.ok() ? std::string("(decoded fine)") : result.error().message;
}

void write_bytes(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

bool have_command(const char* name) {
    return std::system(("command -v " + std::string(name) + " >/dev/null 2>&1").c_str()) == 0;
}

// Decodes a PNG with nothing of ours: Python's struct and zlib, the filters from the
// specification, and compares with the expected RGB bytes. Prints the filter types seen.
constexpr const char* kPythonDecoder = R"(
import struct, sys, zlib
png = open(sys.argv[1], 'rb').read()
expected = open(sys.argv[2], 'rb').read()
assert png[:8] == b'\x89PNG\r\n\x1a\n', 'signature'
pos, idat, ihdr, ended = 8, b'', None, False
while pos + 12 <= len(png):
    length, kind = struct.unpack('>I4s', png[pos:pos + 8])
    data = png[pos + 8:pos + 8 + length]
    crc, = struct.unpack('>I', png[pos + 8 + length:pos + 12 + length])
    assert zlib.crc32(kind + data) & 0xffffffff == crc, 'CRC of %r' % kind
    pos += 12 + length
    if kind == b'IHDR': ihdr = struct.unpack('>IIBBBBB', data)
    elif kind == b'IDAT': idat += data
    elif kind == b'IEND':
        ended = True
        break
assert ended and pos == len(png), 'IEND must end the file'
w, h = ihdr[0], ihdr[1]
assert ihdr[2:] == (8, 2, 0, 0, 0), ihdr
raw = zlib.decompress(idat)
stride = w * 3
assert len(raw) == h * (stride + 1), 'inflated size %d' % len(raw)
out, prev, seen = bytearray(), bytearray(stride), set()
for y in range(h):
    f = raw[y * (stride + 1)]
    seen.add(f)
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - 3] if i >= 3 else 0
        b = prev[i]
        c = prev[i - 3] if i >= 3 else 0
        if f == 0: p = 0
        elif f == 1: p = a
        elif f == 2: p = b
        elif f == 3: p = (a + b) // 2
        elif f == 4:
            q = a + b - c
            pa, pb, pc = abs(q - a), abs(q - b), abs(q - c)
            p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        else: sys.exit('bad filter type %d' % f)
        line[i] = (line[i] + p) & 0xff
    out += line
    prev = line
assert bytes(out) == expected, 'pixels differ'
print('ok, filter types', sorted(seen))
)";

std::string rgb_bytes(const Image& image) {
    std::string out;
    for (std::uint32_t p : image.pixels) {
        out.push_back(static_cast<char>(p >> 16));
        out.push_back(static_cast<char>(p >> 8));
        out.push_back(static_cast<char>(p));
    }
    return out;
}

}  // namespace

// ---- conversions ------------------------------------------------------------------------------

TEST_CASE("0RGB1555 frames convert exactly, honouring an odd pitch", "[frontend][image]") {
    FrameBuffer fb = frame_buffer(2, 7);
    fb.put<std::uint16_t>(0, 0, 0x7fff);
    fb.put<std::uint16_t>(1, 0, 0x7c00);
    fb.put<std::uint16_t>(2, 0, 0x03e0);
    fb.put<std::uint16_t>(0, 1, 0x001f);
    fb.put<std::uint16_t>(1, 1, 0x8000);  // the unused top bit is ignored
    fb.put<std::uint16_t>(2, 1, 0x4210);  // 16 in each channel
    const Image image = to_image(fb.frame(3, 2, PixelFormat::k0RGB1555));
    REQUIRE(image.width == 3);
    REQUIRE(image.height == 2);
    CHECK(image.pixels == std::vector<std::uint32_t>{0xffffff, 0xff0000, 0x00ff00,  //
                                                     0x0000ff, 0x000000, 0x848484});
}

TEST_CASE("RGB565 frames convert exactly, honouring an odd pitch", "[frontend][image]") {
    FrameBuffer fb = frame_buffer(2, 9);
    fb.put<std::uint16_t>(0, 0, 0xffff);
    fb.put<std::uint16_t>(1, 0, 0xf800);
    fb.put<std::uint16_t>(2, 0, 0x07e0);
    fb.put<std::uint16_t>(0, 1, 0x001f);
    fb.put<std::uint16_t>(1, 1, 0x0000);
    fb.put<std::uint16_t>(2, 1, 0x8410);  // red 16, green 32, blue 16
    const Image image = to_image(fb.frame(3, 2, PixelFormat::kRGB565));
    CHECK(image.pixels == std::vector<std::uint32_t>{0xffffff, 0xff0000, 0x00ff00,  //
                                                     0x0000ff, 0x000000, 0x848284});
}

TEST_CASE("XRGB8888 frames convert exactly, honouring an odd pitch", "[frontend][image]") {
    FrameBuffer fb = frame_buffer(2, 13);
    fb.put<std::uint32_t>(0, 0, 0xff123456);  // the X byte is ignored
    fb.put<std::uint32_t>(1, 0, 0x00ffffff);
    fb.put<std::uint32_t>(2, 0, 0x00000000);
    fb.put<std::uint32_t>(0, 1, 0x80abcdef);
    fb.put<std::uint32_t>(1, 1, 0x00010203);
    fb.put<std::uint32_t>(2, 1, 0xfffefdfc);
    const Image image = to_image(fb.frame(3, 2, PixelFormat::kXRGB8888));
    CHECK(image.pixels == std::vector<std::uint32_t>{0x123456, 0xffffff, 0x000000,  //
                                                     0xabcdef, 0x010203, 0xfefdfc});
}

TEST_CASE("Widened channels are monotonic, exact at the ends and within 1 of ideal",
          "[frontend][image]") {
    FrameBuffer fb = frame_buffer(1, 128);
    for (unsigned v = 0; v < 64; ++v) {
        fb.put<std::uint16_t>(v, 0, static_cast<std::uint16_t>(v << 5));  // green only
    }
    const Image five = to_image(fb.frame(32, 1, PixelFormat::k0RGB1555));
    const Image six = to_image(fb.frame(64, 1, PixelFormat::kRGB565));
    for (unsigned v = 0; v < 32; ++v) {
        const double ideal = v * 255.0 / 31.0, got = (five.at(v, 0) >> 8) & 0xff;
        CHECK(std::abs(got - ideal) <= 1.0);
        if (v > 0) CHECK(five.at(v, 0) > five.at(v - 1, 0));
    }
    for (unsigned v = 0; v < 64; ++v) {
        const double ideal = v * 255.0 / 63.0, got = (six.at(v, 0) >> 8) & 0xff;
        CHECK(std::abs(got - ideal) <= 1.0);
        if (v > 0) CHECK(six.at(v, 0) > six.at(v - 1, 0));
    }
    CHECK(five.at(0, 0) == 0);
    CHECK(five.at(31, 0) == 0x00ff00);
    CHECK(six.at(0, 0) == 0);
    CHECK(six.at(63, 0) == 0x00ff00);
}

TEST_CASE("A dupe frame or a pitch shorter than a row gives an empty image", "[frontend][image]") {
    CHECK(to_image(VideoFrame{nullptr, 320, 224, 640, PixelFormat::kRGB565}) == Image{});
    const std::vector<std::uint8_t> bytes(64);
    CHECK(to_image(VideoFrame{bytes.data(), 4, 2, 15, PixelFormat::kXRGB8888}) == Image{});
}

// ---- composition ------------------------------------------------------------------------------

TEST_CASE("side_by_side places pictures left to right and pads with the gap colour",
          "[frontend][image]") {
    const Image a = solid(2, 3, 0xaaaaaa), b = random_image(1, 1, 1), c = random_image(3, 2, 2);
    const std::uint32_t g = 0x123456;
    const Image out = side_by_side({&a, &b, &c}, 2, g);
    REQUIRE(out.width == 2 + 2 + 1 + 2 + 3);
    REQUIRE(out.height == 3);
    REQUIRE(out.pixels.size() == 30);
    for (unsigned y = 0; y < 3; ++y) {
        INFO("row " << y);
        CHECK(out.at(0, y) == 0xaaaaaa);
        CHECK(out.at(1, y) == 0xaaaaaa);
        CHECK(out.at(2, y) == g);
        CHECK(out.at(3, y) == g);
        CHECK(out.at(4, y) == (y == 0 ? b.at(0, 0) : g));
        CHECK(out.at(5, y) == g);
        CHECK(out.at(6, y) == g);
        for (unsigned x = 0; x < 3; ++x) CHECK(out.at(7 + x, y) == (y < 2 ? c.at(x, y) : g));
    }

    const Image tight = side_by_side({&c, &c}, 0, g);
    CHECK(tight.width == 6);
    CHECK(tight.height == 2);
    CHECK(tight.at(3, 1) == c.at(0, 1));
    CHECK(side_by_side({&b}, 5, g) == b);
    CHECK(side_by_side({}, 5, g) == Image{});
}

TEST_CASE("diff_highlight counts differing pixels exactly and marks them", "[frontend][image]") {
    Image a = random_image(4, 3, 7);
    Image b = a;
    std::size_t count = 99;
    const Image same = diff_highlight(a, b, &count);
    CHECK(count == 0);
    REQUIRE(same.width == 4);
    for (std::size_t i = 0; i < same.pixels.size(); ++i) {
        const std::uint32_t p = b.pixels[i];
        CHECK(same.pixels[i] ==
              ((((p >> 16) & 0xff) / 3) << 16 | (((p >> 8) & 0xff) / 3) << 8 | (p & 0xff) / 3));
    }

    b.pixels[5] ^= 1;
    b.pixels[11] = ~b.pixels[11] & 0xffffff;
    const Image two = diff_highlight(a, b, &count);
    CHECK(count == 2);
    CHECK(two.at(1, 1) == kDiffColor);
    CHECK(two.at(3, 2) == kDiffColor);
    CHECK(two.at(0, 0) != kDiffColor);
    diff_highlight(b, a, &count);
    CHECK(count == 2);

    // Different sizes: 4×3 against 5×2 overlap in 4×2; the rest of 5×3 is "different".
    Image c = random_image(5, 2, 8);
    for (unsigned y = 0; y < 2; ++y) {
        for (unsigned x = 0; x < 4; ++x) c.pixels[y * 5 + x] = a.at(x, y);
    }
    c.pixels[1] ^= 0x10;  // (1, 0)
    const Image sized = diff_highlight(a, c, &count);
    CHECK(sized.width == 5);
    CHECK(sized.height == 3);
    CHECK(count == 1 + (5 * 3 - 4 * 2));
    CHECK(sized.at(1, 0) == kDiffColor);
    CHECK(sized.at(4, 0) == kDiffColor);
    CHECK(sized.at(0, 2) == kDiffColor);
    CHECK(sized.at(0, 1) != kDiffColor);
    const Image no_count = diff_highlight(a, c, nullptr);
    CHECK(no_count == sized);
}

// ---- PNG --------------------------------------------------------------------------------------

TEST_CASE("PNG round trip through encode and decode", "[frontend][image]") {
    const std::pair<unsigned, unsigned> sizes[] = {{1, 1}, {320, 224}, {7, 3}, {1, 50}, {50, 1}};
    std::uint32_t seed = 100;
    for (auto [w, h] : sizes) {
        for (const Image& image :
             {random_image(w, h, ++seed), gradient_image(w, h, ++seed), solid(w, h, 0xfedcba)}) {
            INFO(w << "x" << h);
            auto decoded = decode_png_rgb8(encode_png(image));
            REQUIRE(decoded.ok());
            CHECK(decoded.value() == image);
        }
    }
}

TEST_CASE("PNG starts with the signature and a correct IHDR", "[frontend][image]") {
    const std::vector<std::uint8_t> png = encode_png(random_image(300, 7, 3));
    REQUIRE(png.size() > 8 + 25 + 12);
    CHECK(std::vector<std::uint8_t>(png.begin(), png.begin() + 8) ==
          std::vector<std::uint8_t>{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a});
    CHECK(get_be32(png, 8) == 13);
    CHECK(std::string(png.begin() + 12, png.begin() + 16) == "IHDR");
    CHECK(get_be32(png, 16) == 300);
    CHECK(get_be32(png, 20) == 7);
    CHECK(png[24] == 8);  // bit depth
    CHECK(png[25] == 2);  // truecolour
    CHECK(png[26] == 0);  // deflate
    CHECK(png[27] == 0);  // adaptive filtering
    CHECK(png[28] == 0);  // not interlaced
    CHECK(get_be32(png, 29) == crc32_of(png.data() + 12, 17));
    CHECK(std::string(png.end() - 8, png.end() - 4) == "IEND");
    CHECK(get_be32(png, png.size() - 12) == 0);
}

TEST_CASE("The decoder undoes all five filter types, across IDAT chunks, skipping extras",
          "[frontend][image]") {
    const Image image = gradient_image(9, 10, 5);
    const std::vector<std::uint8_t> stream = zlib_stream(filtered_rows(image, {0, 1, 2, 3, 4}));
    const std::size_t third = stream.size() / 3;
    const std::vector<std::uint8_t> text = {'C', 'o', 'm', 'm', 'e', 'n', 't', 0, 'h', 'i'};
    const auto png = assemble({ihdr(9, 10),
                               {"tEXt", text},
                               {"IDAT", {stream.begin(), stream.begin() + third}},
                               {"IDAT", {stream.begin() + third, stream.end() - 1}},
                               {"IDAT", {stream.end() - 1, stream.end()}},
                               {"tIME", {0x07, 0xe8, 1, 2, 3, 4, 5}},
                               {"IEND", {}}});
    auto decoded = decode_png_rgb8(png);
    REQUIRE(decoded.ok());
    CHECK(decoded.value() == image);

    for (int filter = 0; filter < 5; ++filter) {
        INFO("filter " << filter);
        const Image noisy = random_image(6, 4, 40 + static_cast<std::uint32_t>(filter));
        const auto one = assemble(
            {ihdr(6, 4), {"IDAT", zlib_stream(filtered_rows(noisy, {filter}))}, {"IEND", {}}});
        auto result = decode_png_rgb8(one);
        REQUIRE(result.ok());
        CHECK(result.value() == noisy);
    }
}

TEST_CASE("An independent decoder accepts our PNGs", "[frontend][image]") {
    const framelock::test::TempDir scratch("png-check");
    const fs::path dir = scratch.path();
    const Image images[] = {gradient_image(64, 48, 9), random_image(7, 3, 10), solid(1, 1, 0xff00)};
    if (have_command("file")) {
        REQUIRE(write_png(dir / "small.png", images[1]).ok());
        FILE* pipe = ::popen(("file -b '" + (dir / "small.png").string() + "'").c_str(), "r");
        REQUIRE(pipe != nullptr);
        char line[256] = {};
        const bool read_line = std::fgets(line, sizeof line, pipe) != nullptr;
        ::pclose(pipe);
        REQUIRE(read_line);
        CHECK_THAT(line, Catch::Contains("PNG image data, 7 x 3, 8-bit/color RGB, non-interlaced"));
    } else {
        WARN("'file' is not installed: skipping its check");
    }
    if (std::system("python3 -c 'import struct, zlib' >/dev/null 2>&1") != 0) {
        WARN("python3 with zlib is not available: skipping the independent decoder");
        return;
    }
    write_bytes(dir / "check.py", kPythonDecoder);
    int index = 0;
    for (const Image& image : images) {
        const fs::path png = dir / (std::to_string(index) + ".png");
        const fs::path rgb = dir / (std::to_string(index) + ".rgb");
        const fs::path log = dir / (std::to_string(index) + ".log");
        ++index;
        REQUIRE(write_png(png, image).ok());
        write_bytes(rgb, rgb_bytes(image));
        const int status =
            std::system(("python3 '" + (dir / "check.py").string() + "' '" + png.string() + "' '" +
                         rgb.string() + "' >'" + log.string() + "' 2>&1")
                            .c_str());
        INFO(image.width << "x" << image.height << ": " << read_text(log));
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
}

TEST_CASE("Truncated PNGs are errors at every length", "[frontend][image]") {
    const std::vector<std::uint8_t> png = encode_png(gradient_image(20, 10, 11));
    for (std::size_t n = 0; n < png.size(); ++n) {
        INFO("first " << n << " of " << png.size() << " bytes");
        const std::vector<std::uint8_t> prefix(png.begin(),
                                               png.begin() + static_cast<std::ptrdiff_t>(n));
        CHECK_FALSE(decode_png_rgb8(prefix).ok());
    }
    CHECK(decode_png_rgb8(png).ok());
}

TEST_CASE("Malformed PNGs give errors that say what is wrong", "[frontend][image]") {
    const Image image = random_image(5, 4, 12);
    const std::vector<std::uint8_t> good = encode_png(image);
    const auto idat = zlib_stream(filtered_rows(image, {0}));
    // Where the first IDAT's CRC is in `good`: after the signature, IHDR, and the IDAT's data.
    const std::size_t idat_crc_at = 8 + 25 + 8 + get_be32(good, 33);
    REQUIRE(std::string(good.begin() + 37, good.begin() + 41) == "IDAT");

    SECTION("bad signature") {
        auto png = good;
        png[1] = 'Q';
        CHECK_THAT(decode_error(png), Catch::Contains("signature"));
    }
    SECTION("bad CRC or damaged data") {
        auto png = good;
        png[idat_crc_at] ^= 0x01;
        CHECK_THAT(decode_error(png), Catch::Contains("IDAT: CRC error"));
        png = good;
        png[18] ^= 0x40;  // IHDR width
        CHECK_THAT(decode_error(png), Catch::Contains("IHDR: CRC error"));
        png = good;
        png[45] ^= 0x01;  // inside the first IDAT's data: zlib notices before the CRC is read
        CHECK_THAT(decode_error(png), Catch::StartsWith("PNG: IDAT: "));
        CHECK_THAT(decode_error(png), Catch::Contains("after byte"));
        auto text = assemble({ihdr(5, 4), {"tEXt", {'a', 0, 'b'}}, {"IDAT", idat}, {"IEND", {}}});
        text[8 + 25 + 8 + 3] ^= 0x01;  // the CRC of a chunk the decoder skips is checked too
        CHECK_THAT(decode_error(text), Catch::Contains("tEXt: CRC error"));
    }
    SECTION("absurd or empty dimensions") {
        const std::pair<std::uint32_t, std::uint32_t> absurd[] = {
            {0x7fffffff, 1}, {20000, 10}, {16384, 16384}, {1, 16385}, {16384, 4097}};
        for (auto [w, h] : absurd) {
            INFO(w << "x" << h);
            CHECK_THAT(decode_error(assemble({ihdr(w, h), {"IDAT", idat}, {"IEND", {}}})),
                       Catch::Contains(std::to_string(w) + "x" + std::to_string(h) +
                                       " exceeds the limit of 16384 pixels per side and "
                                       "67108864 pixels in all"));
        }
        CHECK_THAT(decode_error(assemble({ihdr(0xffffffff, 0xffffffff), {"IEND", {}}})),
                   Catch::Contains("out of range"));
        CHECK_THAT(decode_error(assemble({ihdr(0, 4), {"IDAT", idat}, {"IEND", {}}})),
                   Catch::Contains("width is zero"));
    }
    SECTION("claims a large picture but holds little data") {
        // At both limits (16384 wide, 2^26 pixels): refused when the data runs out.
        CHECK_THAT(decode_error(assemble({ihdr(16384, 4096), {"IDAT", idat}, {"IEND", {}}})),
                   Catch::Contains("Not enough image data"));
    }
    SECTION("unsupported formats") {
        CHECK_THAT(decode_error(assemble({ihdr(5, 4, 16), {"IDAT", idat}, {"IEND", {}}})),
                   Catch::Contains("bit depth 16"));
        CHECK_THAT(decode_error(assemble({ihdr(5, 4, 8, 6), {"IDAT", idat}, {"IEND", {}}})),
                   Catch::Contains("colour type 6"));
        CHECK_THAT(decode_error(assemble({ihdr(5, 4, 8, 2, 1), {"IDAT", idat}, {"IEND", {}}})),
                   Catch::Contains("interlaced"));
        Chunk short_header = ihdr(5, 4);
        short_header.data.pop_back();
        CHECK_THAT(decode_error(assemble({short_header, {"IDAT", idat}, {"IEND", {}}})),
                   Catch::Contains("IHDR: invalid"));
    }
    SECTION("too much, too little or truncated image data") {
        CHECK_THAT(decode_error(assemble({ihdr(5, 3), {"IDAT", idat}, {"IEND", {}}})),
                   Catch::Contains("Too much image data"));
        CHECK_THAT(decode_error(assemble({ihdr(5, 5), {"IDAT", idat}, {"IEND", {}}})),
                   Catch::Contains("Not enough image data"));
        const std::vector<std::uint8_t> cut(idat.begin(), idat.end() - 6);
        CHECK_THAT(decode_error(assemble({ihdr(5, 4), {"IDAT", cut}, {"IEND", {}}})),
                   Catch::Contains("Not enough image data"));
        CHECK_THAT(decode_error(assemble({ihdr(5, 4), {"IDAT", {1, 2, 3, 4}}, {"IEND", {}}})),
                   Catch::Contains("IDAT: incorrect header check"));
    }
    SECTION("bad filter type") {
        auto rows = filtered_rows(image, {0});
        rows[2 * 16] = 5;
        CHECK_THAT(decode_error(assemble({ihdr(5, 4), {"IDAT", zlib_stream(rows)}, {"IEND", {}}})),
                   Catch::Contains("bad adaptive filter value"));
    }
    SECTION("chunk order and chunk lengths") {
        CHECK_THAT(decode_error(assemble({{"IDAT", idat}, ihdr(5, 4), {"IEND", {}}})),
                   Catch::Contains("Missing IHDR before IDAT"));
        CHECK_THAT(decode_error(assemble({ihdr(5, 4), {"IEND", {}}})),
                   Catch::Contains("IEND: out of place"));
        CHECK_THAT(decode_error(assemble({ihdr(5, 4), {"IDAT", idat}})),
                   Catch::Contains("truncated"));
        CHECK_THAT(decode_error(assemble({ihdr(5, 4), ihdr(5, 4), {"IDAT", idat}, {"IEND", {}}})),
                   Catch::Contains("IHDR: out of place"));
        const std::vector<std::uint8_t> half(idat.begin(), idat.begin() + 10);
        const std::vector<std::uint8_t> rest(idat.begin() + 10, idat.end());
        CHECK_THAT(decode_error(assemble({ihdr(5, 4),
                                          {"IDAT", half},
                                          {"tEXt", {'a', 0, 'b'}},
                                          {"IDAT", rest},
                                          {"IEND", {}}})),
                   Catch::Contains("Not enough image data"));
        CHECK_THAT(
            decode_error(assemble({ihdr(5, 4), {"IDAT", idat}, {"ABCD", {1}}, {"IEND", {}}})),
            Catch::Contains("ABCD: unhandled critical chunk"));
        CHECK_THAT(
            decode_error(assemble({ihdr(5, 4), {"ABCD", {1}}, {"IDAT", idat}, {"IEND", {}}})),
            Catch::Contains("ABCD: unhandled critical chunk"));
        CHECK_THAT(decode_error(assemble({ihdr(5, 4), {"ID4T", idat}, {"IEND", {}}})),
                   Catch::Contains("invalid chunk type"));
        auto png = good;
        png[33] = 0x80;  // first IDAT length: 2^31 and more
        CHECK_THAT(decode_error(png), Catch::Contains("out of range"));
        png = good;
        png[35] = 0xff;  // first IDAT length: more than the file
        CHECK_THAT(decode_error(png), Catch::Contains("truncated"));
    }
    SECTION("an ancillary chunk above 8 MiB is refused before it is read") {
        auto png = assemble({ihdr(5, 4), {"tEXt", {'a', 0, 'b'}}, {"IDAT", idat}, {"IEND", {}}});
        png[8 + 25 + 1] = 0x80;  // tEXt length: 8 MiB + 3
        CHECK_THAT(decode_error(png), Catch::Contains("tEXt: chunk data is too large"));
        png[8 + 25 + 1] = 0x7f;  // 8 MiB - 64 KiB + 3: no limit, only the file ends
        CHECK_THAT(decode_error(png), Catch::Contains("truncated"));
    }
}

TEST_CASE("Randomly damaged PNGs with repaired CRCs never crash the decoder", "[frontend][image]") {
    const std::vector<std::uint8_t> good = encode_png(gradient_image(12, 9, 13));
    std::mt19937 rng(14);
    int decoded = 0;
    for (int round = 0; round < 4000; ++round) {
        auto png = good;
        const int changes = 1 + static_cast<int>(rng() % 3);
        for (int i = 0; i < changes; ++i) {
            png[8 + rng() % (png.size() - 8)] = static_cast<std::uint8_t>(rng());
        }
        if (rng() % 2 == 0) fix_crcs(png);
        auto result = decode_png_rgb8(png);
        if (result.ok()) {
            ++decoded;
            CHECK(result.value().pixels.size() ==
                  std::size_t{result.value().width} * result.value().height);
        } else {
            CHECK_FALSE(result.error().message.empty());
        }
    }
    INFO(decoded << " of 4000 damaged files still decoded");
    SUCCEED();
}

TEST_CASE("write_png and read_png go through the file system", "[frontend][image]") {
    const framelock::test::TempDir scratch("png-file");
    const fs::path dir = scratch.path();
    const Image image = gradient_image(33, 17, 15);
    REQUIRE(write_png(dir / "shot.png", image).ok());
    CHECK(read_file(dir / "shot.png").value() == encode_png(image));
    auto back = read_png(dir / "shot.png");
    REQUIRE(back.ok());
    CHECK(back.value() == image);

    auto empty = write_png(dir / "empty.png", Image{});
    REQUIRE_FALSE(empty.ok());
    CHECK_THAT(empty.error().message, Catch::Contains("empty.png"));
    CHECK_FALSE(fs::exists(dir / "empty.png"));
    CHECK_FALSE(write_png("/nonexistent-dir/x.png", image).ok());

    write_bytes(dir / "text.png", "not a picture");
    auto bad = read_png(dir / "text.png");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error().message, Catch::Contains("text.png"));
    CHECK_THAT(bad.error().message, Catch::Contains("signature"));
    CHECK_FALSE(read_png(dir / "missing.png").ok());
}
