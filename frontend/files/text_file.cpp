#include "frontend/files/text_file.h"

#include <fmt/core.h>

#include <cerrno>
#include <cstring>

namespace framelock::frontend {

Result<std::unique_ptr<TextFile>> TextFile::open(const std::string& path, std::string what) {
    std::unique_ptr<TextFile> file(new TextFile());
    file->m_file = std::fopen(path.c_str(), "w");
    if (!file->m_file) {
        return make_error(ErrorCode::kIo, fmt::format("cannot write {} '{}': {}", what, path,
                                                      std::strerror(errno)));
    }
    file->m_path = path;
    file->m_what = std::move(what);
    return file;
}

TextFile::~TextFile() {
    if (m_file) std::fclose(m_file);
}

Status TextFile::close() {
    if (!m_file) return {};
    const bool failed = std::ferror(m_file) != 0;
    const bool close_failed = std::fclose(m_file) != 0;
    m_file = nullptr;
    if (failed || close_failed)
        return make_error(ErrorCode::kIo, "writing " + m_what + " '" + m_path + "' failed");
    return {};
}

}  // namespace framelock::frontend
