#include "frontend/image.h"

#include <fmt/core.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "frontend/atomic_file.h"

namespace framelock::frontend {
namespace fs = std::filesystem;

namespace {

// ---- pixels ---------------------------------------------------------------------------------

std::uint32_t rgb(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
    return (r << 16) | (g << 8) | b;
}

// Repeating the high bits in the new low bits maps 0 to 0 and the maximum to 0xff exactly.
std::uint32_t widen5(std::uint32_t v) {
    return (v << 3) | (v >> 2);
}
std::uint32_t widen6(std::uint32_t v) {
    return (v << 2) | (v >> 4);
}

// Rows may start at any byte (odd pitch), so pixels are read with memcpy, in native byte
// order as libretro specifies.
template <class T>
T load(const std::uint8_t* p) {
    T value;
    std::memcpy(&value, p, sizeof value);
    return value;
}

std::uint32_t dim(std::uint32_t p) {
    return rgb(((p >> 16) & 0xff) / 3, ((p >> 8) & 0xff) / 3, (p & 0xff) / 3);
}

// ---- PNG (ISO/IEC 15948) --------------------------------------------------------------------

constexpr std::array<std::uint8_t, 8> kSignature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
constexpr std::uint32_t kMaxChunkLength = 0x7fffffff;  // the specification's limit
constexpr std::size_t kIdatChunkSize = 65536;          // split IDAT like common encoders do
constexpr std::size_t kChannels = 3;                   // RGB, 8 bits each
constexpr int kZlibLevel = 6;

enum Filter : std::uint8_t { kNone = 0, kSub = 1, kUp = 2, kAverage = 3, kPaeth = 4 };
constexpr int kFilterCount = 5;

int paeth(int a, int b, int c) {
    const int p = a + b - c;
    const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

// The value a filter predicts for byte i of a row from the bytes left of it in the same row
// and the row above (both unfiltered). Encoding subtracts it, decoding adds it back.
int predict(std::uint8_t filter, const std::uint8_t* row, const std::uint8_t* above,
            std::size_t i) {
    const int left = i >= kChannels ? row[i - kChannels] : 0;
    const int up = above[i];
    const int up_left = i >= kChannels ? above[i - kChannels] : 0;
    switch (filter) {
        case kSub:
            return left;
        case kUp:
            return up;
        case kAverage:
            return (left + up) / 2;
        case kPaeth:
            return paeth(left, up, up_left);
        default:
            return 0;
    }
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    out.push_back(static_cast<std::uint8_t>(v >> 24));
    out.push_back(static_cast<std::uint8_t>(v >> 16));
    out.push_back(static_cast<std::uint8_t>(v >> 8));
    out.push_back(static_cast<std::uint8_t>(v));
}

std::uint32_t get_u32(const std::uint8_t* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
           std::uint32_t{p[3]};
}

// CRC-32 over the chunk type and data, as the specification defines it.
std::uint32_t chunk_crc(const std::uint8_t* type_and_data, std::size_t size) {
    return static_cast<std::uint32_t>(crc32_z(crc32_z(0, nullptr, 0), type_and_data, size));
}

void put_chunk(std::vector<std::uint8_t>& out, const char* type, const std::uint8_t* data,
               std::size_t size) {
    assert(size <= kMaxChunkLength);
    put_u32(out, static_cast<std::uint32_t>(size));
    const std::size_t type_at = out.size();
    out.insert(out.end(), type, type + 4);
    out.insert(out.end(), data, data + size);
    put_u32(out, chunk_crc(out.data() + type_at, 4 + size));
}

Error png_error(const std::string& what) {
    return make_error(ErrorCode::kIo, "PNG: " + what);
}

bool is_chunk_type(const std::uint8_t* type) {
    return std::all_of(type, type + 4, [](std::uint8_t c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    });
}

struct Header {
    unsigned width = 0, height = 0;
};

Result<Header> parse_header(const std::uint8_t* data, std::uint32_t length) {
    if (length != 13) return png_error(fmt::format("IHDR is {} bytes long, expected 13", length));
    const std::uint32_t width = get_u32(data), height = get_u32(data + 4);
    const int depth = data[8], color_type = data[9];
    const int compression = data[10], filter = data[11], interlace = data[12];
    if (width == 0 || height == 0) {
        return png_error(fmt::format("image size {}x{} has no pixels", width, height));
    }
    if (width > kMaxPngSide || height > kMaxPngSide ||
        std::size_t{width} * height > kMaxPngPixels) {
        return png_error(
            fmt::format("image size {}x{} exceeds the limit of {} pixels per side "
                        "and {} pixels in all",
                        width, height, kMaxPngSide, kMaxPngPixels));
    }
    if (depth != 8 || color_type != 2) {
        return png_error(
            fmt::format("bit depth {} with colour type {} is not supported "
                        "(only 8-bit RGB, colour type 2)",
                        depth, color_type));
    }
    if (compression != 0) return png_error(fmt::format("unknown compression {}", compression));
    if (filter != 0) return png_error(fmt::format("unknown filter method {}", filter));
    if (interlace == 1) return png_error("interlaced images are not supported");
    if (interlace != 0) return png_error(fmt::format("unknown interlace method {}", interlace));
    return Header{width, height};
}

// Inflates `compressed` into exactly `expected` bytes. The buffer grows with the data that
// actually comes out, so a small file claiming a large picture allocates little.
Result<std::vector<std::uint8_t>> inflate_exact(const std::vector<std::uint8_t>& compressed,
                                                std::size_t expected) {
    if (compressed.size() > UINT_MAX) return png_error("IDAT data is too large");
    z_stream zs{};
    if (inflateInit(&zs) != Z_OK) return png_error("cannot initialise zlib");
    zs.next_in = const_cast<Bytef*>(compressed.data());  // zlib's API is not const-correct
    zs.avail_in = static_cast<uInt>(compressed.size());

    // One byte more than needed, so that too much data is noticed.
    const std::size_t capacity = expected + 1;
    std::vector<std::uint8_t> raw(std::min<std::size_t>(capacity, 1 << 20));
    std::size_t produced = 0;
    for (;;) {
        if (produced == raw.size()) {
            if (raw.size() == capacity) break;
            raw.resize(std::min(capacity, raw.size() * 2));
        }
        const auto room = static_cast<uInt>(std::min<std::size_t>(raw.size() - produced, UINT_MAX));
        zs.next_out = raw.data() + produced;
        zs.avail_out = room;
        const int rc = inflate(&zs, Z_NO_FLUSH);
        produced += room - zs.avail_out;
        if (rc == Z_STREAM_END) break;
        if (rc == Z_OK) continue;
        const std::string why = rc == Z_BUF_ERROR   ? "the zlib stream is truncated"
                                : zs.msg != nullptr ? std::string("corrupt zlib stream: ") + zs.msg
                                                    : fmt::format("zlib error {}", rc);
        inflateEnd(&zs);
        return png_error(why);
    }
    inflateEnd(&zs);
    if (produced > expected) {
        return png_error(
            fmt::format("image data inflates to more than the {} bytes IHDR's "
                        "size needs",
                        expected));
    }
    if (produced < expected) {
        return png_error(fmt::format("image data inflates to {} bytes, IHDR's size needs {}",
                                     produced, expected));
    }
    raw.resize(expected);
    return raw;
}

}  // namespace

Image to_image(const VideoFrame& frame) {
    Image image;
    const std::size_t row_bytes =
        static_cast<std::size_t>(frame.width) * bytes_per_pixel(frame.format);
    if (frame.data == nullptr || frame.pitch < row_bytes) return image;
    image.width = frame.width;
    image.height = frame.height;
    image.pixels.resize(static_cast<std::size_t>(frame.width) * frame.height);
    const auto* base = static_cast<const std::uint8_t*>(frame.data);
    for (unsigned y = 0; y < frame.height; ++y) {
        const std::uint8_t* in = base + y * frame.pitch;
        std::uint32_t* out = image.pixels.data() + static_cast<std::size_t>(y) * frame.width;
        switch (frame.format) {
            case PixelFormat::k0RGB1555:
                for (unsigned x = 0; x < frame.width; ++x) {
                    const std::uint32_t p = load<std::uint16_t>(in + 2 * x);
                    out[x] =
                        rgb(widen5((p >> 10) & 0x1f), widen5((p >> 5) & 0x1f), widen5(p & 0x1f));
                }
                break;
            case PixelFormat::kRGB565:
                for (unsigned x = 0; x < frame.width; ++x) {
                    const std::uint32_t p = load<std::uint16_t>(in + 2 * x);
                    out[x] =
                        rgb(widen5((p >> 11) & 0x1f), widen6((p >> 5) & 0x3f), widen5(p & 0x1f));
                }
                break;
            case PixelFormat::kXRGB8888:
                for (unsigned x = 0; x < frame.width; ++x) {
                    out[x] = load<std::uint32_t>(in + 4 * x) & 0xffffff;
                }
                break;
        }
    }
    return image;
}

Image side_by_side(const std::vector<const Image*>& images, unsigned gap, std::uint32_t gap_color) {
    Image out;
    for (std::size_t i = 0; i < images.size(); ++i) {
        assert(images[i] != nullptr);
        out.width += images[i]->width + (i > 0 ? gap : 0);
        out.height = std::max(out.height, images[i]->height);
    }
    out.pixels.assign(static_cast<std::size_t>(out.width) * out.height, gap_color);
    std::size_t left = 0;
    for (const Image* image : images) {
        for (unsigned y = 0; y < image->height; ++y) {
            const auto row = image->pixels.begin() + static_cast<std::ptrdiff_t>(y) * image->width;
            std::copy(row, row + image->width,
                      out.pixels.begin() + static_cast<std::ptrdiff_t>(
                                               static_cast<std::size_t>(y) * out.width + left));
        }
        left += image->width + gap;
    }
    return out;
}

Image diff_highlight(const Image& a, const Image& b, std::size_t* differing_pixels) {
    Image out;
    out.width = std::max(a.width, b.width);
    out.height = std::max(a.height, b.height);
    out.pixels.assign(static_cast<std::size_t>(out.width) * out.height, kDiffColor);
    std::size_t differing = 0;
    for (unsigned y = 0; y < out.height; ++y) {
        for (unsigned x = 0; x < out.width; ++x) {
            const bool in_both = x < a.width && y < a.height && x < b.width && y < b.height;
            if (in_both && a.at(x, y) == b.at(x, y)) {
                out.pixels[static_cast<std::size_t>(y) * out.width + x] = dim(b.at(x, y));
            } else {
                ++differing;
            }
        }
    }
    if (differing_pixels != nullptr) *differing_pixels = differing;
    return out;
}

std::vector<std::uint8_t> encode_png(const Image& image) {
    assert(image.width > 0 && image.height > 0);
    assert(image.width <= kMaxChunkLength && image.height <= kMaxChunkLength);
    assert(image.pixels.size() == static_cast<std::size_t>(image.width) * image.height);

    const std::size_t row_bytes = static_cast<std::size_t>(image.width) * kChannels;
    std::vector<std::uint8_t> above(row_bytes, 0), row(row_bytes), trial(row_bytes),
        best(row_bytes);
    std::vector<std::uint8_t> filtered;
    filtered.reserve((row_bytes + 1) * image.height);
    for (unsigned y = 0; y < image.height; ++y) {
        for (unsigned x = 0; x < image.width; ++x) {
            const std::uint32_t p = image.at(x, y);
            row[x * kChannels + 0] = static_cast<std::uint8_t>(p >> 16);
            row[x * kChannels + 1] = static_cast<std::uint8_t>(p >> 8);
            row[x * kChannels + 2] = static_cast<std::uint8_t>(p);
        }
        // The usual heuristic: the filter whose output, read as signed bytes, is smallest.
        std::uint8_t best_filter = kNone;
        std::uint64_t best_cost = UINT64_MAX;
        for (int f = 0; f < kFilterCount; ++f) {
            const auto filter = static_cast<std::uint8_t>(f);
            std::uint64_t cost = 0;
            for (std::size_t i = 0; i < row_bytes; ++i) {
                trial[i] = static_cast<std::uint8_t>(row[i] -
                                                     predict(filter, row.data(), above.data(), i));
                cost += static_cast<std::uint64_t>(std::abs(static_cast<std::int8_t>(trial[i])));
            }
            if (cost < best_cost) {
                best_cost = cost;
                best_filter = filter;
                best.swap(trial);
            }
        }
        filtered.push_back(best_filter);
        filtered.insert(filtered.end(), best.begin(), best.end());
        above.swap(row);
    }

    uLongf compressed_size = compressBound(filtered.size());
    std::vector<std::uint8_t> compressed(compressed_size);
    const int rc = compress2(compressed.data(), &compressed_size, filtered.data(), filtered.size(),
                             kZlibLevel);
    if (rc == Z_MEM_ERROR) throw std::bad_alloc();
    assert(rc == Z_OK);  // the buffer is compressBound() large, so nothing else can happen
    compressed.resize(compressed_size);

    std::vector<std::uint8_t> png(kSignature.begin(), kSignature.end());
    std::vector<std::uint8_t> header;
    put_u32(header, image.width);
    put_u32(header, image.height);
    header.insert(header.end(), {8, 2, 0, 0, 0});  // 8 bits, RGB, deflate, filter 0, no interlace
    put_chunk(png, "IHDR", header.data(), header.size());
    for (std::size_t at = 0; at < compressed.size(); at += kIdatChunkSize) {
        put_chunk(png, "IDAT", compressed.data() + at,
                  std::min(kIdatChunkSize, compressed.size() - at));
    }
    put_chunk(png, "IEND", nullptr, 0);
    return png;
}

Status write_png(const fs::path& path, const Image& image) {
    if (image.width == 0 || image.height == 0 ||
        image.pixels.size() != static_cast<std::size_t>(image.width) * image.height) {
        return make_error(
            ErrorCode::kIo,
            fmt::format("cannot write '{}': the image ({}x{}, {} pixels) is empty "
                        "or inconsistent",
                        path.string(), image.width, image.height, image.pixels.size()));
    }
    return write_file_atomic(path, encode_png(image));
}

Result<Image> decode_png_rgb8(std::span<const std::uint8_t> png) {
    if (png.size() < kSignature.size() ||
        !std::equal(kSignature.begin(), kSignature.end(), png.begin())) {
        return png_error("not a PNG file (signature missing)");
    }
    std::size_t pos = kSignature.size();
    bool have_header = false, in_data = false, data_done = false;
    Header header;
    std::vector<std::uint8_t> compressed;
    for (;;) {
        // Every chunk is length (4), type (4), data (length), CRC (4).
        if (png.size() - pos < 12) {
            return png_error(
                fmt::format("truncated at byte {}: no room for another chunk and "
                            "no IEND seen",
                            pos));
        }
        const std::uint32_t length = get_u32(&png[pos]);
        if (length > kMaxChunkLength || length > png.size() - pos - 12) {
            return png_error(fmt::format("chunk at byte {} claims {} data bytes, only {} remain",
                                         pos, length, png.size() - pos - 12));
        }
        const std::uint8_t* type = &png[pos + 4];
        const std::uint8_t* data = type + 4;
        if (!is_chunk_type(type)) return png_error(fmt::format("bad chunk type at byte {}", pos));
        const std::string_view name(reinterpret_cast<const char*>(type), 4);
        if (get_u32(data + length) != chunk_crc(type, 4 + std::size_t{length})) {
            return png_error(fmt::format("CRC mismatch in {} chunk at byte {}", name, pos));
        }
        pos += 12 + std::size_t{length};

        if (!have_header) {
            if (name != "IHDR") return png_error(fmt::format("first chunk is {}, not IHDR", name));
            auto parsed = parse_header(data, length);
            if (!parsed) return parsed.error();
            header = parsed.value();
            have_header = true;
        } else if (name == "IHDR") {
            return png_error("second IHDR chunk");
        } else if (name == "IDAT") {
            if (data_done) return png_error("IDAT chunks are not consecutive");
            in_data = true;
            compressed.insert(compressed.end(), data, data + length);
        } else {
            if (in_data) data_done = true;
            if (name == "IEND") break;
            // PLTE is only a suggestion for RGB images; ancillary chunks (lower-case first
            // letter) may be ignored by any decoder.
            if (name != "PLTE" && (type[0] & 0x20) == 0) {
                return png_error(fmt::format("unsupported critical chunk {}", name));
            }
        }
    }
    if (!in_data) return png_error("no IDAT chunk");

    const std::size_t row_bytes = std::size_t{header.width} * kChannels;
    auto inflated = inflate_exact(compressed, (row_bytes + 1) * header.height);
    if (!inflated) return inflated.error();
    std::vector<std::uint8_t>& raw = inflated.value();

    // Undo the filters in place, top to bottom; the row above the first is all zero.
    const std::vector<std::uint8_t> zero_row(row_bytes, 0);
    const std::uint8_t* above = zero_row.data();
    for (unsigned y = 0; y < header.height; ++y) {
        std::uint8_t* line = raw.data() + y * (row_bytes + 1);
        const std::uint8_t filter = line[0];
        if (filter >= kFilterCount) {
            return png_error(fmt::format("row {} has unknown filter type {}", y, filter));
        }
        std::uint8_t* row = line + 1;
        for (std::size_t i = 0; i < row_bytes; ++i) {
            row[i] = static_cast<std::uint8_t>(row[i] + predict(filter, row, above, i));
        }
        above = row;
    }

    Image image;
    image.width = header.width;
    image.height = header.height;
    image.pixels.resize(std::size_t{header.width} * header.height);
    for (unsigned y = 0; y < header.height; ++y) {
        const std::uint8_t* row = raw.data() + y * (row_bytes + 1) + 1;
        for (unsigned x = 0; x < header.width; ++x) {
            const std::uint8_t* p = row + x * kChannels;
            image.pixels[std::size_t{y} * header.width + x] = rgb(p[0], p[1], p[2]);
        }
    }
    return image;
}

Result<Image> read_png(const fs::path& path) {
    auto bytes = read_file(path);
    if (!bytes) return bytes.error();
    auto image = decode_png_rgb8(bytes.value());
    if (!image) {
        return make_error(image.error().code, "'" + path.string() + "': " + image.error().message);
    }
    return image;
}

}  // namespace framelock::frontend
