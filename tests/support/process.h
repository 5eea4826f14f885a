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
