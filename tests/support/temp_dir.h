// A fresh empty directory under the system temp dir for one test, removed again when
// the test ends (also when an assertion ends it early). Unique per process and call, so
// tests running in parallel never share one.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>

namespace framelock::test {

class TempDir {
  public:
    explicit TempDir(const std::string& name) {
        static std::atomic<int> counter{0};
        m_path = (std::filesystem::temp_directory_path() /
                  ("framelock-" + name + "-" + std::to_string(::getpid()) + "-" +
                   std::to_string(counter++)))
                     .string();
        std::filesystem::remove_all(m_path);
        std::filesystem::create_directories(m_path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::string& path() const { return m_path; }
    std::string file(const std::string& name) const { return m_path + "/" + name; }

  private:
    std::string m_path;
};

}  // namespace framelock::test
