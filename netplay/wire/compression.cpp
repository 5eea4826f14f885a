#include "netplay/wire/compression.h"

#include <zlib.h>

#include <string>

namespace framelock::netplay {

std::vector<std::uint8_t> deflate_bytes(std::span<const std::uint8_t> in, int level) {
    uLongf size = compressBound(static_cast<uLong>(in.size()));
    std::vector<std::uint8_t> out(size);
    const int rc = compress2(out.data(), &size, in.data(), static_cast<uLong>(in.size()), level);
    if (rc != Z_OK) return {};  // only on out-of-memory: compressBound is always enough
    out.resize(size);
    return out;
}

Result<std::vector<std::uint8_t>> inflate_bounded(std::span<const std::uint8_t> in,
                                                  std::size_t declared, std::size_t cap) {
    if (declared > cap) {
        return make_error(ErrorCode::kState, "declared size " + std::to_string(declared) +
                                                 " bytes is over the limit of " +
                                                 std::to_string(cap));
    }
    std::vector<std::uint8_t> out(declared);
    z_stream z{};
    if (inflateInit(&z) != Z_OK) return make_error(ErrorCode::kState, "zlib: cannot start");
    z.next_in = const_cast<Bytef*>(in.data());
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    int rc = inflate(&z, Z_FINISH);
    // Room left over, or data left over: both mean the size was not the declared one.
    std::uint8_t probe = 0;
    if (rc == Z_BUF_ERROR && z.avail_out == 0) {
        z.next_out = &probe;
        z.avail_out = 1;
        rc = inflate(&z, Z_FINISH);
        inflateEnd(&z);
        return make_error(ErrorCode::kState, "compressed data inflates to more than the declared " +
                                                 std::to_string(declared) + " bytes");
    }
    const bool ended = rc == Z_STREAM_END;
    const std::size_t produced = declared - z.avail_out;
    const bool all_input = z.avail_in == 0;
    inflateEnd(&z);
    if (!ended) {
        return make_error(ErrorCode::kState, produced < declared && rc != Z_DATA_ERROR
                                                 ? "compressed data ends early (" +
                                                       std::to_string(produced) + " of " +
                                                       std::to_string(declared) + " bytes)"
                                                 : "corrupt compressed data");
    }
    if (produced != declared) {
        return make_error(ErrorCode::kState, "compressed data inflates to " +
                                                 std::to_string(produced) + " bytes, " +
                                                 std::to_string(declared) + " declared");
    }
    if (!all_input) return make_error(ErrorCode::kState, "bytes after the compressed data");
    return out;
}

std::uint32_t crc32_of(std::span<const std::uint8_t> bytes) {
    return static_cast<std::uint32_t>(crc32(0L, bytes.data(), static_cast<uInt>(bytes.size())));
}

}  // namespace framelock::netplay
