// A private X server (Xvfb) for one test: Xvfb picks a free display number itself
// (-displayfd), so tests running in parallel never collide; DISPLAY is set in this process
// (every framelock process the test starts inherits it) and restored, and the server is
// stopped, when the test ends. Tests skip (exit 77) when Xvfb is not installed.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "support/skip.h"

#define FRAMELOCK_SKIP_UNLESS_XVFB() \
    FRAMELOCK_SKIP_UNLESS_FILE("/usr/bin/Xvfb", "apt-get install xvfb xauth")
#define FRAMELOCK_SKIP_UNLESS_XDOTOOL() \
    FRAMELOCK_SKIP_UNLESS_FILE("/usr/bin/xdotool", "apt-get install xdotool")

namespace framelock::test {

class Xvfb {
  public:
    // Starts Xvfb with one screen of width x height x 24 bits and waits until it accepts
    // connections (at most kReadyLimit, support/process.h; the test fails otherwise).
    explicit Xvfb(int width = 1280, int height = 1024);
    ~Xvfb();
    Xvfb(const Xvfb&) = delete;
    Xvfb& operator=(const Xvfb&) = delete;

    const std::string& display() const { return m_display; }  // ":N"

  private:
    pid_t m_pid = -1;
    std::string m_display;
    std::string m_saved_display;
    bool m_had_display = false;
};

// Runs /usr/bin/xdotool with `args` against this process's DISPLAY; its stdout.
std::string xdotool(const std::vector<std::string>& args);

}  // namespace framelock::test
