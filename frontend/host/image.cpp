#include "frontend/host/image.h"

#include <fmt/core.h>
#include <png.h>

#include <algorithm>
#include <cassert>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "frontend/files/atomic_file.h"

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

// One pixel of each libretro format as 0xRRGGBB.
std::uint32_t from_0rgb1555(std::uint32_t p) {
    return rgb(widen5((p >> 10) & 0x1f), widen5((p >> 5) & 0x1f), widen5(p & 0x1f));
}
std::uint32_t from_rgb565(std::uint32_t p) {
    return rgb(widen5((p >> 11) & 0x1f), widen6((p >> 5) & 0x3f), widen5(p & 0x1f));
}
std::uint32_t from_xrgb8888(std::uint32_t p) {
    return p & 0xffffff;
}

// A row of `width` pixels stored as Pixel, each turned into 0xRRGGBB by `to_rgb`.
template <class Pixel, class ToRgb>
void convert_row(const std::uint8_t* in, std::uint32_t* out, unsigned width, ToRgb to_rgb) {
    for (unsigned x = 0; x < width; ++x) out[x] = to_rgb(load<Pixel>(in + sizeof(Pixel) * x));
}

std::uint32_t dim(std::uint32_t p) {
    return rgb(((p >> 16) & 0xff) / 3, ((p >> 8) & 0xff) / 3, (p & 0xff) / 3);
}

// ---- PNG, through libpng --------------------------------------------------------------------
//
// libpng reports an error by calling on_png_error(), which must not return: it longjmps to
// the setjmp() in guarded(). A longjmp skips the frames in between without running their
// destructors, so the steps guarded() runs, and the callbacks libpng calls from them, hold
// no C++ object that owns anything: they pass plain pointers to buffers allocated before
// the step, and messages go into the fixed arrays of PngIo.

constexpr std::size_t kChannels = 3;  // RGB, 8 bits each
constexpr int kZlibLevel = 6;
constexpr std::size_t kIdatChunkSize = 65536;  // split IDAT like common encoders do
// Ancillary chunks are skipped unread, but libpng refuses any chunk other than IDAT that
// claims more than this many bytes (its own default is 8,000,000).
constexpr png_alloc_size_t kMaxChunkBytes = png_alloc_size_t{8} << 20;
// The decoded picture grows with the rows that actually decode, from at most this many
// pixels, so a small file claiming a large picture allocates little.
constexpr std::size_t kInitialPixels = std::size_t{1} << 20;
constexpr png_uint_32 kMaxPngTexts = 8;  // iTXt chunks kept (Image::text)

// What libpng's callbacks read, write and report, reached through png_get_io_ptr() and
// png_get_error_ptr().
struct PngIo {
    std::span<const std::uint8_t> in;  // reading: the file, and how much libpng took
    std::size_t in_pos = 0;
    std::vector<std::uint8_t>* out = nullptr;  // writing: the file so far
    char error[256] = {};
    char warnings[256] = {};
};

PngIo& io_of_error(png_structp png) {
    return *static_cast<PngIo*>(png_get_error_ptr(png));
}

void on_png_error(png_structp png, png_const_charp message) {
    std::snprintf(io_of_error(png).error, sizeof PngIo::error, "%s", message);
    png_longjmp(png, 1);  // libpng's default would print to stderr first
}

// Kept to explain the error that may follow (libpng warns "Image width exceeds user limit
// in IHDR", then fails with "Invalid IHDR data").
void on_png_warning(png_structp png, png_const_charp message) {
    char* warnings = io_of_error(png).warnings;
    const std::size_t used = std::strlen(warnings);
    std::snprintf(warnings + used, sizeof PngIo::warnings - used, "%s%s", used > 0 ? "; " : "",
                  message);
}

void read_from_memory(png_structp png, png_bytep out, std::size_t size) {
    PngIo& io = *static_cast<PngIo*>(png_get_io_ptr(png));
    const std::size_t left = io.in.size() - io.in_pos;
    if (size > left) {
        char message[128];
        std::snprintf(message, sizeof message, "truncated: %zu more bytes needed, only %zu remain",
                      size, left);
        png_error(png, message);
    }
    std::memcpy(out, io.in.data() + io.in_pos, size);
    io.in_pos += size;
}

void write_to_memory(png_structp png, png_bytep data, std::size_t size) {
    PngIo& io = *static_cast<PngIo*>(png_get_io_ptr(png));
    bool stored = true;
    try {
        io.out->insert(io.out->end(), data, data + size);
    } catch (const std::bad_alloc&) {
        stored = false;
    }
    if (!stored) png_error(png, "out of memory");  // outside the catch: no live exception
}

void flush_nothing(png_structp) {}

// Runs step(png, args); false when libpng reported an error instead (the message is in the
// PngIo). See the note above on what a step may hold.
template <class Args>
bool guarded(png_structp png, void (*step)(png_structp, Args*), Args* args) {
    if (setjmp(png_jmpbuf(png)) != 0) return false;
    step(png, args);
    return true;
}

// Owns libpng's read or write structures.
class PngHandle {
  public:
    PngHandle(bool writing, PngIo& io) : m_writing(writing) {
        m_png =
            writing
                ? png_create_write_struct(PNG_LIBPNG_VER_STRING, &io, on_png_error, on_png_warning)
                : png_create_read_struct(PNG_LIBPNG_VER_STRING, &io, on_png_error, on_png_warning);
        if (m_png != nullptr) m_info = png_create_info_struct(m_png);
    }
    ~PngHandle() {
        if (m_writing) {
            png_destroy_write_struct(&m_png, &m_info);
        } else {
            png_destroy_read_struct(&m_png, &m_info, nullptr);
        }
    }
    PngHandle(const PngHandle&) = delete;
    PngHandle& operator=(const PngHandle&) = delete;

    bool ok() const { return m_png != nullptr && m_info != nullptr; }
    png_structp png() const { return m_png; }
    png_infop info() const { return m_info; }

  private:
    bool m_writing;
    png_structp m_png = nullptr;
    png_infop m_info = nullptr;
};

Error png_error_value(const std::string& what) {
    return make_error(ErrorCode::kIo, "PNG: " + what);
}

// libpng's message, what it warned about before, and where in the file it was.
Error libpng_error(const PngIo& io) {
    std::string what = io.error;
    if (io.warnings[0] != '\0') what += fmt::format(" ({})", io.warnings);
    if (!io.in.empty()) what += fmt::format(" after byte {} of {}", io.in_pos, io.in.size());
    return png_error_value(what);
}

std::uint32_t get_u32(const std::uint8_t* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
           std::uint32_t{p[3]};
}

Error size_limit_error(std::uint32_t width, std::uint32_t height) {
    return png_error_value(
        fmt::format("image size {}x{} exceeds the limit of {} pixels per side and {} pixels in all",
                    width, height, kMaxPngSide, kMaxPngPixels));
}

struct WriteArgs {
    png_infop info;
    const Image* image;
    png_bytep row;                 // width * kChannels bytes
    std::vector<png_text>* texts;  // the image's text, as libpng takes it
};

void write_steps(png_structp png, WriteArgs* args) {
    const Image& image = *args->image;
    // Any size PNG allows (libpng's default stops at 1,000,000 pixels per side).
    png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_set_IHDR(png, args->info, image.width, image.height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    // All five filters: libpng picks each row's by the minimum sum of absolute differences.
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_ALL_FILTERS);
    png_set_compression_level(png, kZlibLevel);
    png_set_compression_buffer_size(png, kIdatChunkSize);
    // The text before the pixels.
    if (!args->texts->empty())
        png_set_text(png, args->info, args->texts->data(), static_cast<int>(args->texts->size()));
    png_write_info(png, args->info);
    for (unsigned y = 0; y < image.height; ++y) {
        for (unsigned x = 0; x < image.width; ++x) {
            const std::uint32_t p = image.at(x, y);
            args->row[x * kChannels + 0] = static_cast<png_byte>(p >> 16);
            args->row[x * kChannels + 1] = static_cast<png_byte>(p >> 8);
            args->row[x * kChannels + 2] = static_cast<png_byte>(p);
        }
        png_write_row(png, args->row);
    }
    png_write_end(png, args->info);
}

// The PNG file, or libpng's error (only running out of memory is expected).
Result<std::vector<std::uint8_t>> encode(const Image& image) {
    std::vector<std::uint8_t> file;
    std::vector<png_byte> row(std::size_t{image.width} * kChannels);
    PngIo io;
    io.out = &file;
    PngHandle handle(true, io);
    if (!handle.ok()) return png_error_value("libpng could not start (out of memory)");
    png_set_write_fn(handle.png(), &io, write_to_memory, flush_nothing);
    // Uncompressed UTF-8 (iTXt), pointing into the image's strings.
    std::vector<png_text> texts(image.text.size());
    for (std::size_t i = 0; i < image.text.size(); ++i) {
        texts[i].compression = PNG_ITXT_COMPRESSION_NONE;
        texts[i].key = const_cast<png_charp>(image.text[i].first.c_str());
        texts[i].text = const_cast<png_charp>(image.text[i].second.c_str());
        texts[i].itxt_length = image.text[i].second.size();
    }
    WriteArgs args{handle.info(), &image, row.data(), &texts};
    if (!guarded(handle.png(), write_steps, &args)) return libpng_error(io);
    return file;
}

struct ReadArgs {
    png_infop info;
    png_bytep row;  // reading a row: width * kChannels bytes
};

// Sets the limits, then reads the chunks up to the first IDAT.
void read_info_step(png_structp png, ReadArgs* args) {
    // The side limit is checked by libpng as it reads IHDR, before it allocates for rows.
    png_set_user_limits(png, kMaxPngSide, kMaxPngSide);
    png_set_chunk_malloc_max(png, kMaxChunkBytes);
    // Ancillary chunks are skipped (their CRCs still checked), so none is kept in memory.
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, nullptr, -1);
    // But the text a window's screenshot carries (Image::text, iTXt), a few chunks at most.
    static constexpr png_byte kText[] = {'i', 'T', 'X', 't', '\0'};
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_AS_DEFAULT, kText, 1);
    // libpng keeps one chunk less than the limit, less one more for the chunk it refuses: a
    // file with more text than kMaxPngTexts chunks is refused (benign errors are errors).
    png_set_chunk_cache_max(png, kMaxPngTexts + 2);  // 0 would mean no limit
    // Strict: a bad CRC anywhere, data after the image, or IDATs split by another chunk are
    // errors, not warnings.
    png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
    png_set_benign_errors(png, 0);
    png_read_info(png, args->info);
}
void start_rows_step(png_structp png, ReadArgs*) {
    png_start_read_image(png);
}
void read_row_step(png_structp png, ReadArgs* args) {
    png_read_row(png, args->row, nullptr);
}
// Reads the chunks after the image data up to IEND, checking their CRCs and that no IDAT
// follows.
void read_end_step(png_structp png, ReadArgs* args) {
    png_read_end(png, args->info);  // with no info, libpng would skip unknown critical chunks
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
                convert_row<std::uint16_t>(in, out, frame.width, from_0rgb1555);
                break;
            case PixelFormat::kRGB565:
                convert_row<std::uint16_t>(in, out, frame.width, from_rgb565);
                break;
            case PixelFormat::kXRGB8888:
                convert_row<std::uint32_t>(in, out, frame.width, from_xrgb8888);
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
    assert(image.width <= PNG_UINT_31_MAX && image.height <= PNG_UINT_31_MAX);
    assert(image.pixels.size() == static_cast<std::size_t>(image.width) * image.height);
    auto file = encode(image);
    if (!file) throw std::bad_alloc();  // libpng fails a valid picture only for want of memory
    return std::move(file.value());
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
    auto file = encode(image);
    if (!file) {
        return make_error(ErrorCode::kIo, fmt::format("cannot write '{}': {}", path.string(),
                                                      file.error().message));
    }
    return write_file_atomic(path, file.value());
}

Result<Image> decode_png_rgb8(std::span<const std::uint8_t> file) {
    if (file.size() < 8 || png_sig_cmp(file.data(), 0, 8) != 0) {
        return png_error_value("not a PNG file (signature missing)");
    }
    PngIo io;
    io.in = file;
    PngHandle handle(false, io);
    if (!handle.ok()) return png_error_value("libpng could not start (out of memory)");
    png_structp png = handle.png();
    png_set_read_fn(png, &io, read_from_memory);
    ReadArgs args{handle.info(), nullptr};
    if (!guarded(png, read_info_step, &args)) {
        // IHDR is the first chunk (libpng checks), so the refused size can be quoted.
        if (std::strstr(io.warnings, "exceeds user limit") != nullptr && file.size() >= 24) {
            return size_limit_error(get_u32(&file[16]), get_u32(&file[20]));
        }
        return libpng_error(io);
    }
    const png_uint_32 width = png_get_image_width(png, args.info);
    const png_uint_32 height = png_get_image_height(png, args.info);
    const int depth = png_get_bit_depth(png, args.info);
    const int color_type = png_get_color_type(png, args.info);
    const int interlace = png_get_interlace_type(png, args.info);
    if (std::size_t{width} * height > kMaxPngPixels) return size_limit_error(width, height);
    Image image;
    png_textp texts = nullptr;
    const int text_count = png_get_text(png, args.info, &texts, nullptr);
    for (int i = 0; i < text_count; ++i) {
        const std::size_t length = texts[i].compression >= PNG_ITXT_COMPRESSION_NONE
                                       ? texts[i].itxt_length
                                       : texts[i].text_length;
        image.text.emplace_back(texts[i].key, std::string(texts[i].text, length));
    }
    if (depth != 8 || color_type != PNG_COLOR_TYPE_RGB) {
        return png_error_value(
            fmt::format("bit depth {} with colour type {} is not supported "
                        "(only 8-bit RGB, colour type 2)",
                        depth, color_type));
    }
    if (interlace != PNG_INTERLACE_NONE)
        return png_error_value("interlaced images are not supported");

    // Row by row, so that memory follows the data that actually decodes.
    std::vector<png_byte> row(std::size_t{width} * kChannels);
    args.row = row.data();
    image.width = width;
    image.height = height;
    image.pixels.reserve(std::min(std::size_t{width} * height, kInitialPixels));
    if (!guarded(png, start_rows_step, &args)) return libpng_error(io);
    for (unsigned y = 0; y < height; ++y) {
        if (!guarded(png, read_row_step, &args)) return libpng_error(io);
        for (unsigned x = 0; x < width; ++x) {
            const png_byte* p = row.data() + x * kChannels;
            image.pixels.push_back(rgb(p[0], p[1], p[2]));
        }
    }
    if (!guarded(png, read_end_step, &args)) return libpng_error(io);
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
