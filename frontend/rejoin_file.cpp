#include "frontend/rejoin_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "frontend/config.h"

namespace framelock::frontend {
namespace {

std::string file_safe(const std::string& text) {
    std::string out;
    for (char c : text) {
        const bool keep = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                          (c >= 'A' && c <= 'Z') || c == '.' || c == '-' || c == '_';
        out += keep ? c : '_';
    }
    return out.substr(0, 100);
}

Error io_error(const std::filesystem::path& path, const std::string& what) {
    return make_error(ErrorCode::kIo, "rejoin token file '" + path.string() + "': " + what);
}

}  // namespace

Result<RejoinFile> RejoinFile::open(const std::filesystem::path& path) {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) return io_error(path, "cannot create its folder: " + ec.message());
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return io_error(path, std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        ::close(fd);
        return io_error(
            path, err == EWOULDBLOCK ? "in use by another running framelock" : std::strerror(err));
    }
    RejoinFile file(path, fd);
    char text[2 * netplay::kRejoinTokenBytes + 2] = {};
    const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
    if (n > 0) {
        std::string content(text, static_cast<std::size_t>(n));
        while (!content.empty() && (content.back() == '\n' || content.back() == '\r'))
            content.pop_back();
        file.m_token = netplay::token_from_hex(content);
    }
    return file;
}

Result<RejoinFile> RejoinFile::open_free(const std::filesystem::path& base) {
    for (int n = 1; n <= 16; ++n) {
        std::filesystem::path path = base;
        if (n > 1) path += "-" + std::to_string(n);
        auto file = open(path);
        if (file || file.error().message.find("in use") == std::string::npos) return file;
    }
    return io_error(base, "it and 15 more beside it are in use by running framelocks");
}

std::filesystem::path RejoinFile::default_path(const std::string& server_address,
                                               const std::string& player_name) {
    return std::filesystem::path(default_state_dir()) / "rejoin" /
           (file_safe(server_address) + "_" + file_safe(player_name) + ".token");
}

RejoinFile::RejoinFile(RejoinFile&& other) noexcept
    : m_path(std::move(other.m_path)), m_fd(other.m_fd), m_token(other.m_token) {
    other.m_fd = -1;
}

RejoinFile& RejoinFile::operator=(RejoinFile&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0) ::close(m_fd);
        m_path = std::move(other.m_path);
        m_fd = other.m_fd;
        m_token = other.m_token;
        other.m_fd = -1;
    }
    return *this;
}

RejoinFile::~RejoinFile() {
    if (m_fd >= 0) ::close(m_fd);
}

Status RejoinFile::write(const netplay::RejoinToken& token) {
    const std::string text = netplay::token_to_hex(token) + "\n";
    // One small write at offset 0 of a file locked by this process: a crash leaves the old
    // token or the new one (a torn write reads as no token, and the join is a new player's).
    if (::ftruncate(m_fd, 0) != 0 ||
        ::pwrite(m_fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()) ||
        ::fsync(m_fd) != 0)
        return io_error(m_path, std::string("cannot write: ") + std::strerror(errno));
    m_token = token;
    return {};
}

void RejoinFile::remove() {
    std::error_code ec;
    std::filesystem::remove(m_path, ec);
}

}  // namespace framelock::frontend
