#include "support/xvfb.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "support/process.h"

namespace framelock::test {

Xvfb::Xvfb(int width, int height) {
    if (const char* d = std::getenv("DISPLAY")) {
        m_had_display = true;
        m_saved_display = d;
    }
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const std::string screen = std::to_string(width) + "x" + std::to_string(height) + "x24";
    const std::string fd = std::to_string(fds[1]);
    const pid_t parent = ::getpid();
    m_pid = ::fork();
    REQUIRE(m_pid >= 0);
    if (m_pid == 0) {
        // Never outlive the test, whatever happens to it.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);
        ::close(fds[0]);
        const int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(null, 2);
        ::execl("/usr/bin/Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", screen.c_str(),
                "-nolisten", "tcp", "-noreset", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(fds[1]);
    // Xvfb writes the display number once it accepts connections.
    std::string number;
    const auto deadline = ready_deadline();
    while (number.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
        pollfd p{fds[0], POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0) continue;
        char buffer[16];
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n <= 0) break;
        number.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    if (number.find('\n') == std::string::npos)
        FAIL("Xvfb did not start within " << kReadyLimit.count() << " s");
    m_display = ":" + number.substr(0, number.find('\n'));
    ::setenv("DISPLAY", m_display.c_str(), 1);
}

Xvfb::~Xvfb() {
    if (m_had_display)
        ::setenv("DISPLAY", m_saved_display.c_str(), 1);
    else
        ::unsetenv("DISPLAY");
    if (m_pid > 0) {
        ::kill(m_pid, SIGTERM);
        int status = 0;
        for (int i = 0; i < 200 && ::waitpid(m_pid, &status, WNOHANG) == 0; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (::waitpid(m_pid, &status, WNOHANG) == 0) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, &status, 0);
        }
    }
}

std::string xdotool(const std::vector<std::string>& args) {
    std::vector<std::string> all{"/usr/bin/xdotool"};
    all.insert(all.end(), args.begin(), args.end());
    const ProcessResult r = run_process(all, std::chrono::seconds(20));
    INFO("xdotool " << r.err);
    CHECK_FALSE(r.timed_out);
    return r.out;
}

}  // namespace framelock::test
