#include "frontend/files/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace framelock::frontend {
namespace fs = std::filesystem;

namespace {

Error io_error(const std::string& what, const fs::path& path, int err) {
    return make_error(ErrorCode::kIo, what + " '" + path.string() + "': " + std::strerror(err));
}

bool write_all(int fd, const std::uint8_t* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

Status write_file_atomic(const fs::path& path, std::span<const std::uint8_t> bytes) {
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    const fs::path temp =
        dir / ("." + path.filename().string() + ".tmp." + std::to_string(::getpid()));
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return io_error("cannot create", temp, errno);
    if (!write_all(fd, bytes.data(), bytes.size()) || ::fsync(fd) != 0) {
        const int err = errno;
        ::close(fd);
        ::unlink(temp.c_str());
        return io_error("cannot write", temp, err);
    }
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        return io_error("cannot write", temp, err);
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        return io_error("cannot replace", path, err);
    }
    // The rename itself must reach the disk, or a power cut could bring the old name back.
    const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd >= 0) {
        ::fsync(dir_fd);
        ::close(dir_fd);
    }
    return {};
}

Status write_file_atomic(const fs::path& path, std::string_view text) {
    return write_file_atomic(path,
                             {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

Result<std::vector<std::uint8_t>> read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return io_error("cannot open", path, errno ? errno : ENOENT);
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
    if (in.bad()) return io_error("cannot read", path, errno ? errno : EIO);
    return bytes;
}

Status ensure_writable_directory(const fs::path& dir, const char* what) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) {
        return make_error(ErrorCode::kIo, std::string(what) + " '" + dir.string() +
                                              "' cannot be created: " +
                                              (ec ? ec.message() : std::string("not a directory")));
    }
    const fs::path probe = dir / (".framelock-write-test." + std::to_string(::getpid()));
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        return make_error(ErrorCode::kIo, std::string(what) + " '" + dir.string() +
                                              "' is not writable: " + std::strerror(errno));
    }
    ::close(fd);
    ::unlink(probe.c_str());
    return {};
}

}  // namespace framelock::frontend
