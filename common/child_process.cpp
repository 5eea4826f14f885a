#include "common/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace framelock {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(5);

ExitStatus decode_status(int status) {
    ExitStatus exit;
    if (WIFEXITED(status)) exit.code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
    return exit;
}

// In the child between fork and exec only async-signal-safe calls are allowed: plain
// open/dup2/write, no allocation.
[[noreturn]] void exec_child(char* const* argv, const char* out_path, const char* err_path,
                             bool err_to_out, int report_fd, int in_fd, int out_fd) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    const auto redirect = [](const char* path, int flags, int target) {
        const int fd = ::open(path, flags, 0644);
        if (fd < 0) return false;
        ::dup2(fd, target);
        ::close(fd);
        return true;
    };
    bool ok = in_fd >= 0 ? ::dup2(in_fd, 0) == 0 : redirect("/dev/null", O_RDONLY, 0);
    if (ok && out_fd >= 0) ok = ::dup2(out_fd, 1) == 1;
    if (ok && out_path) ok = redirect(out_path, O_WRONLY | O_CREAT | O_TRUNC, 1);
    if (ok && err_to_out) ok = ::dup2(1, 2) == 2;
    if (ok && err_path && !err_to_out) ok = redirect(err_path, O_WRONLY | O_CREAT | O_TRUNC, 2);
    if (ok) ::execv(argv[0], argv);
    const int error = errno;
    // The parent reads errno from the pipe; a successful exec closes it (O_CLOEXEC) instead.
    [[maybe_unused]] const auto written = ::write(report_fd, &error, sizeof error);
    ::_exit(127);
}

}  // namespace

std::string ExitStatus::describe() const {
    if (signal != 0) {
        const char* name = ::strsignal(signal);
        return "killed by signal " + std::to_string(signal) + " (" + (name ? name : "?") + ")";
    }
    return "exit code " + std::to_string(code);
}

Result<ChildProcess> ChildProcess::spawn(const std::vector<std::string>& args,
                                         const std::string& stdout_path,
                                         const std::string& stderr_path) {
    return spawn_with(args, stdout_path, stderr_path, false);
}

Result<ChildProcess> ChildProcess::spawn_piped(const std::vector<std::string>& args,
                                               const std::string& stderr_path) {
    return spawn_with(args, "", stderr_path, true);
}

Result<ChildProcess> ChildProcess::spawn_with(const std::vector<std::string>& args,
                                              const std::string& stdout_path,
                                              const std::string& stderr_path, bool piped) {
    if (args.empty()) return make_error(ErrorCode::kUsage, "no program to start");
    const std::string name = std::filesystem::path(args[0]).filename().string();
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    // [0]: the child's stdin (read end) and our end; [1]: our end and the child's stdout.
    int to_child[2] = {-1, -1}, from_child[2] = {-1, -1};
    if (piped && (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0)) {
        for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]})
            if (fd >= 0) ::close(fd);
        return make_error(ErrorCode::kIo,
                          "cannot start " + name + ": pipe: " + std::strerror(errno));
    }
    const auto close_child_ends = [&] {
        if (!piped) return;
        ::close(to_child[0]);
        ::close(from_child[1]);
    };
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) {
        return make_error(ErrorCode::kIo,
                          "cannot start " + name + ": pipe: " + std::strerror(errno));
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int error = errno;
        ::close(report[0]);
        ::close(report[1]);
        close_child_ends();
        if (piped) {
            ::close(to_child[1]);
            ::close(from_child[0]);
        }
        return make_error(ErrorCode::kIo,
                          "cannot start " + name + ": fork: " + std::strerror(error));
    }
    if (pid == 0) {
        ::close(report[0]);
        exec_child(argv.data(), stdout_path.empty() ? nullptr : stdout_path.c_str(),
                   stderr_path.empty() ? nullptr : stderr_path.c_str(),
                   !stdout_path.empty() && stderr_path == stdout_path, report[1],
                   piped ? to_child[0] : -1, piped ? from_child[1] : -1);
    }
    ::close(report[1]);
    close_child_ends();
    ChildProcess child(pid, name);
    if (piped) {
        child.m_stdin = to_child[1];
        child.m_stdout = from_child[0];
    }
    int error = 0;
    ssize_t got;
    do {
        got = ::read(report[0], &error, sizeof error);
    } while (got < 0 && errno == EINTR);
    ::close(report[0]);
    if (got == static_cast<ssize_t>(sizeof error)) {
        child.kill_and_reap();
        return make_error(ErrorCode::kIo, "cannot start '" + args[0] +
                                              "': " + std::strerror(error) +
                                              " (or its output files cannot be created)");
    }
    return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : m_pid(other.m_pid),
      m_name(std::move(other.m_name)),
      m_status(other.m_status),
      m_stdin(other.m_stdin),
      m_stdout(other.m_stdout) {
    other.m_pid = -1;
    other.m_stdin = other.m_stdout = -1;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
    if (this != &other) {
        kill_and_reap();
        close_pipes();
        m_pid = other.m_pid;
        m_name = std::move(other.m_name);
        m_status = other.m_status;
        m_stdin = other.m_stdin;
        m_stdout = other.m_stdout;
        other.m_pid = -1;
        other.m_stdin = other.m_stdout = -1;
    }
    return *this;
}

ChildProcess::~ChildProcess() {
    close_pipes();
    kill_and_reap();
}

void ChildProcess::close_pipes() {
    if (m_stdin >= 0) ::close(m_stdin);
    if (m_stdout >= 0) ::close(m_stdout);
    m_stdin = m_stdout = -1;
}

void ChildProcess::kill_and_reap() {
    if (m_pid <= 0) return;
    ::kill(m_pid, SIGKILL);
    int status = 0;
    while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    m_status = decode_status(status);
    m_pid = -1;
}

bool ChildProcess::running() {
    if (m_pid <= 0) return false;
    int status = 0;
    const pid_t done = ::waitpid(m_pid, &status, WNOHANG);
    if (done == m_pid) {
        m_status = decode_status(status);
        m_pid = -1;
        return false;
    }
    return true;
}

std::optional<ExitStatus> ChildProcess::wait_until(Deadline deadline) {
    while (running()) {
        if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
        std::this_thread::sleep_for(kPollInterval);
    }
    return m_status;
}

void ChildProcess::send_signal(int sig) {
    if (running()) ::kill(m_pid, sig);
}

ExitStatus ChildProcess::stop(std::chrono::milliseconds grace) {
    send_signal(SIGTERM);
    if (!wait_until(std::chrono::steady_clock::now() + grace)) kill_and_reap();
    return m_status.value_or(ExitStatus{});
}

std::optional<std::uint16_t> parse_port_file(const std::string& text) {
    const std::string line = text.substr(0, text.find('\n'));
    unsigned port = 0;
    const auto [end, error] = std::from_chars(line.data(), line.data() + line.size(), port);
    if (error != std::errc() || end != line.data() + line.size() || port == 0 || port > 65535)
        return std::nullopt;
    return static_cast<std::uint16_t>(port);
}

Result<std::uint16_t> wait_for_port_file(const std::string& path, ChildProcess& writer,
                                         ChildProcess::Deadline deadline) {
    for (;;) {
        // Written atomically (temporary file + rename): any content seen is complete.
        std::ifstream in(path);
        if (in) {
            std::stringstream text;
            text << in.rdbuf();
            if (auto port = parse_port_file(text.str())) return *port;
            return make_error(ErrorCode::kIo, writer.name() + " wrote '" + text.str() +
                                                  "' to its port file " + path +
                                                  ", not a port number");
        }
        if (!writer.running()) {
            return make_error(ErrorCode::kIo, writer.name() + " ended (" +
                                                  writer.status()->describe() +
                                                  ") before writing its port file " + path);
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return make_error(ErrorCode::kIo,
                              writer.name() + " did not write its port file " + path + " in time");
        }
        std::this_thread::sleep_for(kPollInterval);
    }
}

}  // namespace framelock
