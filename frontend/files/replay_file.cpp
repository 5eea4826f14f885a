#include "frontend/files/replay_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

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
        std::fclose(w->m_file);
        w->m_file = nullptr;
        return make_error(ErrorCode::kIo, "cannot write replay '" + part + "'");
    }
    w->m_thread = std::thread([writer = w.get()] { writer->run(); });
    return w;
}

ReplayWriter::~ReplayWriter() {
    if (!m_file) return;
    (void)hand_over(std::nullopt);
    stop_thread();
    std::fclose(m_file);
}

void ReplayWriter::run() {
    std::unique_lock lock(m_mutex);
    while (true) {
        m_changed.wait(lock, [this] { return m_stopping || !m_jobs.empty(); });
        if (m_jobs.empty()) return;  // stopping, and everything written
        Job job = std::move(m_jobs.front());
        m_jobs.pop_front();
        const bool failed = !m_error.ok();
        lock.unlock();
        bool ok = true;
        if (!failed) {
            const std::vector<std::uint8_t> bytes = job.pack();
            ok = std::fwrite(bytes.data(), 1, bytes.size(), m_file) == bytes.size() &&
                 (!job.sync || (std::fflush(m_file) == 0 && ::fdatasync(::fileno(m_file)) == 0));
        }
        lock.lock();
        if (!ok && m_error.ok())
            m_error = make_error(ErrorCode::kIo, "writing replay '" + m_path + ".part' failed");
        m_changed.notify_all();  // room in the queue
    }
}

Status ReplayWriter::first_error() {
    std::lock_guard lock(m_mutex);
    return m_error;
}

void ReplayWriter::stop_thread() {
    if (!m_thread.joinable()) return;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_changed.notify_all();
    m_thread.join();
}

Status ReplayWriter::hand_over(std::optional<Job> next) {
    std::unique_lock lock(m_mutex);
    if (!m_error.ok()) return m_error;
    // A disk far behind holds the session up rather than the queue growing without end.
    constexpr std::size_t kMaxQueued = 32;
    m_changed.wait(lock, [this] { return m_jobs.size() < kMaxQueued || !m_error.ok(); });
    if (!m_pending.empty()) {
        const auto count = static_cast<std::uint32_t>(m_pending.size());
        m_jobs.push_back(
            {[first = m_next_block_frame, frames = std::move(m_pending), players = m_players] {
                 return netplay::encode_replay_frames(first, frames, players);
             },
             true});
        m_next_block_frame += count;
        m_pending.clear();
    }
    if (next) m_jobs.push_back(std::move(*next));
    lock.unlock();
    m_changed.notify_all();
    return {};
}

Status ReplayWriter::add(const netplay::ReplayFrame& frame) {
    m_pending.push_back(frame);
    ++m_added;
    if (m_pending.size() >= kFramesPerFlush) return hand_over(std::nullopt);
    return first_error();
}

Status ReplayWriter::add_mask(const netplay::EvidenceMask& mask) {
    return hand_over(Job{[mask] { return netplay::encode_replay_mask(mask); }, false});
}

Status ReplayWriter::add_chat(const netplay::ChatLine& line) {
    return hand_over(Job{[line] { return netplay::encode_replay_chat(line); }, false});
}

Status ReplayWriter::add_keyframe(std::uint32_t frame, std::vector<std::uint8_t> state) {
    auto shared = std::make_shared<std::vector<std::uint8_t>>(std::move(state));
    return hand_over(
        Job{[frame, shared] { return netplay::encode_replay_keyframe(frame, *shared); }, false});
}

Status ReplayWriter::close() {
    if (!m_file) return {};
    (void)hand_over(std::nullopt);
    stop_thread();
    Status written = first_error();
    const bool synced = std::fflush(m_file) == 0 && ::fdatasync(::fileno(m_file)) == 0;
    const bool closed = std::fclose(m_file) == 0;
    m_file = nullptr;
    if (!written) return written;
    if (!synced || !closed)
        return make_error(ErrorCode::kIo, "closing replay '" + m_path + ".part' failed");
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
