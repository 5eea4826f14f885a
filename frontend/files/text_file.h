// A text file this process writes line by line (hash logs, timing and input logs): write
// errors are not checked at every line but reported once, at close(), naming the file.
// Threading: none.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "netplay/base/result.h"

namespace framelock::frontend {

class TextFile {
  public:
    // Creates or truncates `path`; `what` names it in errors ("hash log"). kIo error
    // "cannot write WHAT 'PATH': why" when it cannot be created.
    static Result<std::unique_ptr<TextFile>> open(const std::string& path, std::string what);
    // Closes the file if close() did not (errors then go unreported).
    ~TextFile();
    TextFile(const TextFile&) = delete;
    TextFile& operator=(const TextFile&) = delete;

    // For fprintf and fwrite; null after close().
    std::FILE* get() const { return m_file; }
    // kIo error "writing WHAT 'PATH' failed" when a write or the close failed. Closing again
    // does nothing.
    Status close();

  private:
    TextFile() = default;
    std::FILE* m_file = nullptr;
    std::string m_path;
    std::string m_what;
};

}  // namespace framelock::frontend
