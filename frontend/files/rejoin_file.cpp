#include "frontend/files/rejoin_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "frontend/files/user_dirs.h"

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
    bool in_use = false;
    return open(path, in_use);
}

Result<RejoinFile> RejoinFile::open(const std::filesystem::path& path, bool& in_use) {
    in_use = false;
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) return io_error(path, "cannot create its folder: " + ec.message());
    // Never through a symbolic link (a file in a shared folder could point anywhere), and
    // only a regular file of this user's, readable by this user alone.
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return io_error(path,
                        errno == ELOOP ? "is a symbolic link: refused" : std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
        ::close(fd);
        return io_error(path, "not a regular file of this user's: refused");
    }
    if ((st.st_mode & 077) != 0) ::fchmod(fd, 0600);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        ::close(fd);
        in_use = err == EWOULDBLOCK;
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
    // The default folder holds keys to slots: this user's alone.
    std::error_code ec;
    if (base.has_parent_path()) {
        std::filesystem::create_directories(base.parent_path(), ec);
        std::filesystem::permissions(base.parent_path(), std::filesystem::perms::owner_all,
                                     std::filesystem::perm_options::replace, ec);
    }
    for (int n = 1; n <= 16; ++n) {
        std::filesystem::path path = base;
        if (n > 1) path += "-" + std::to_string(n);
        bool in_use = false;
        auto file = open(path, in_use);
        if (file || !in_use) return file;
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
    // One small write at offset 0 of a file locked by this process. A crash between the
    // truncation and the write leaves the file empty (and a torn write, unreadable): the next
    // run then joins as a new player, which is what it would do without the file.
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
