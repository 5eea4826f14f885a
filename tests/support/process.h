// Runs a real process for end-to-end tests: arguments, captured stdout/stderr, exit
// code, and a hard time limit after which the process is killed (tests never hang).
#pragma once

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.h"

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

std::string read_text(const std::string& path);
void write_text(const std::string& path, const std::string& text);
std::vector<std::string> read_lines(const std::string& path);

// How long a test waits for another process to be ready or to answer: a port file, a
// "listening" line, a log line, a gateway's reply, an HTTP answer, a window. An overall
// deadline that a test polls against, never a time it sleeps: a passing test does not come
// near it, so it can be generous. A process under a sanitizer on a busy 2-core machine starts
// and answers many times slower than alone (a fixed few seconds failed there); only a broken
// one waits this out.
inline constexpr std::chrono::seconds kReadyLimit{60};

// Now + kReadyLimit: the deadline of one wait for readiness.
inline std::chrono::steady_clock::time_point ready_deadline() {
    return std::chrono::steady_clock::now() + kReadyLimit;
}

// Polls `predicate` every 20 ms until it holds or `limit` passes; its last answer.
template <class Predicate>
bool poll_until(Predicate predicate, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (predicate()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return predicate();
}

}  // namespace framelock::test
