// A child process this process started and must not leave behind: `framelock demo` runs a
// server, the impairment proxy and two clients this way, and the end-to-end tests run
// sessions with it. Whatever happens, a child is killed and reaped: by the destructor, and
// by the kernel (PR_SET_PDEATHSIG) if this process dies first.
//
// Threading: none; one owner.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "netplay/base/result.h"

namespace framelock {

// How a child ended: an exit code, or the signal that killed it.
struct ExitStatus {
    int code = -1;   // valid when signal == 0
    int signal = 0;  // non-zero: killed by this signal
    bool success() const { return signal == 0 && code == 0; }
    std::string describe() const;  // "exit code 3", "killed by signal 9 (Killed)"
};

class ChildProcess {
  public:
    using Deadline = std::chrono::steady_clock::time_point;

    // Starts args[0] (a path; no PATH search) with `args`. stdout and stderr go to the
    // given files (created or truncated; empty: inherited; the same path for both: one file
    // with both streams), stdin reads /dev/null. kIo error
    // naming the program when it cannot be started (missing, not executable).
    static Result<ChildProcess> spawn(const std::vector<std::string>& args,
                                      const std::string& stdout_path,
                                      const std::string& stderr_path);

    // As spawn(), but the child's stdin and stdout are pipes to this process: write
    // commands to stdin_fd(), read its output from stdout_fd() (both closed by the destructor
    // or close_pipes()).
    static Result<ChildProcess> spawn_piped(const std::vector<std::string>& args,
                                            const std::string& stderr_path);

    ChildProcess(ChildProcess&& other) noexcept;
    ChildProcess& operator=(ChildProcess&& other) noexcept;
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;
    // A child still running is killed (SIGKILL) and reaped.
    ~ChildProcess();

    pid_t pid() const { return m_pid; }
    const std::string& name() const { return m_name; }  // the program's file name, for messages

    // Reaps the child if it has ended; true while it runs. Never blocks.
    bool running();
    // How it ended, once running() has seen it end.
    const std::optional<ExitStatus>& status() const { return m_status; }

    // Waits (polling every few ms) until the child ends or `deadline` passes; the status,
    // or nothing on timeout.
    std::optional<ExitStatus> wait_until(Deadline deadline);

    // Sends `sig` to a running child (nothing once it has ended).
    void send_signal(int sig);

    // SIGTERM, then SIGKILL if it has not ended after `grace`; reaps it. The status.
    ExitStatus stop(std::chrono::milliseconds grace);

    int stdin_fd() const { return m_stdin; }    // -1 unless spawned piped
    int stdout_fd() const { return m_stdout; }  // -1 unless spawned piped
    void close_pipes();

  private:
    ChildProcess(pid_t pid, std::string name) : m_pid(pid), m_name(std::move(name)) {}
    static Result<ChildProcess> spawn_with(const std::vector<std::string>& args,
                                           const std::string& stdout_path,
                                           const std::string& stderr_path, bool piped);
    void kill_and_reap();

    pid_t m_pid = -1;  // -1 once reaped or moved from
    std::string m_name;
    std::optional<ExitStatus> m_status;
    int m_stdin = -1, m_stdout = -1;
};

// Reads a port number that `writer` writes atomically to `path` once it is listening
// (`framelock server --port-file`, `framelock_netem --port-file`). Errors when the writer
// ends first or `deadline` passes, naming the program and the file.
Result<std::uint16_t> wait_for_port_file(const std::string& path, ChildProcess& writer,
                                         ChildProcess::Deadline deadline);

// The first line of a port file: a port number 1..65535, or nothing.
std::optional<std::uint16_t> parse_port_file(const std::string& text);

}  // namespace framelock
