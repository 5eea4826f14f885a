// Runs a real process for end-to-end tests: arguments, captured stdout/stderr, exit
// code, and a hard time limit after which the process is killed (tests never hang).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace framelock::test {

struct ProcessResult {
    int exit_code = -1;     // valid when !signaled && !timed_out
    bool signaled = false;  // killed by a signal (a crash)
    int signal = 0;
    bool timed_out = false;
    std::string out;
    std::string err;
};

ProcessResult run_process(const std::vector<std::string>& args,
                          std::chrono::milliseconds timeout = std::chrono::seconds(60));

// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
  public:
    explicit TempDir(const std::string& name);
    ~TempDir();
    const std::string& path() const { return m_path; }
    std::string file(const std::string& name) const { return m_path + "/" + name; }

  private:
    std::string m_path;
};

std::string read_text(const std::string& path);
void write_text(const std::string& path, const std::string& text);
std::vector<std::string> read_lines(const std::string& path);

}  // namespace framelock::test
