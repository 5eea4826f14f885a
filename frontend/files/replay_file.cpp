#include "frontend/files/replay_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "frontend/files/atomic_file.h"

namespace framelock::frontend {
namespace {
constexpr std::size_t kFramesPerFlush = 60;  // a second at 60 fps
}

Result<std::unique_ptr<ReplayWriter>> ReplayWriter::open(const std::string& path,
                                                         const netplay::ReplayHeader& header) {
    std::unique_ptr<ReplayWriter> w(new ReplayWriter());
    w->m_path = path;
    w->m_players = header.players;
    w->m_next_block_frame = header.start_frame;
    const std::string part = path + ".part";
    w->m_file = std::fopen(part.c_str(), "wb");
    if (!w->m_file) {
        return make_error(ErrorCode::kIo,
                          "cannot write replay '" + part + "': " + std::strerror(errno));
    }
    const auto start = netplay::encode_replay_start(header);
    if (std::fwrite(start.data(), 1, start.size(), w->m_file) != start.size() ||
        std::fflush(w->m_file) != 0) {
        return make_error(ErrorCode::kIo, "cannot write replay '" + part + "'");
    }
    return w;
}

ReplayWriter::~ReplayWriter() {
    if (m_file) {
        (void)write_block();
        std::fclose(m_file);
    }
}

Status ReplayWriter::add(const netplay::ReplayFrame& frame) {
    m_pending.push_back(frame);
    if (m_pending.size() >= kFramesPerFlush) return write_block();
    return {};
}

Status ReplayWriter::add_mask(const netplay::EvidenceMask& mask) {
    return write_now(netplay::encode_replay_mask(mask));
}

Status ReplayWriter::add_chat(const netplay::ChatLine& line) {
    return write_now(netplay::encode_replay_chat(line));
}

Status ReplayWriter::add_keyframe(std::uint32_t frame, std::span<const std::uint8_t> state) {
    return write_now(netplay::encode_replay_keyframe(frame, state));
}

Status ReplayWriter::write_now(const std::vector<std::uint8_t>& block) {
    if (Status s = write_block(); !s) return s;
    if (!m_file) return {};
    if (std::fwrite(block.data(), 1, block.size(), m_file) != block.size())
        return make_error(ErrorCode::kIo, "writing replay '" + m_path + ".part' failed");
    return {};
}

Status ReplayWriter::write_block() {
    if (!m_file || m_pending.empty()) return {};
    const auto bytes = netplay::encode_replay_frames(m_next_block_frame, m_pending, m_players);
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), m_file) == bytes.size() &&
                    std::fflush(m_file) == 0 && ::fdatasync(::fileno(m_file)) == 0;
    m_next_block_frame += static_cast<std::uint32_t>(m_pending.size());
    m_written += m_pending.size();
    m_pending.clear();
    if (!ok) return make_error(ErrorCode::kIo, "writing replay '" + m_path + ".part' failed");
    return {};
}

Status ReplayWriter::close() {
    if (!m_file) return {};
    Status written = write_block();
    const bool closed = std::fclose(m_file) == 0;
    m_file = nullptr;
    if (!written) return written;
    if (!closed) return make_error(ErrorCode::kIo, "closing replay '" + m_path + ".part' failed");
    std::error_code ec;
    std::filesystem::rename(m_path + ".part", m_path, ec);
    if (ec) {
        return make_error(ErrorCode::kIo, "cannot rename '" + m_path + ".part' to '" + m_path +
                                              "': " + ec.message());
    }
    return {};
}

Result<netplay::ReplayContents> read_replay_file(const std::string& path) {
    auto bytes = read_file(path);
    if (!bytes) return bytes.error();
    auto parsed = netplay::parse_replay(bytes.value());
    if (!parsed) return make_error(parsed.error().code, path + ": " + parsed.error().message);
    return parsed;
}

}  // namespace framelock::frontend
