// Hash logs: a line per frame, "FRAME HASH[ NAME=HASH...]" (the state's hash and each memory
// region's, 16 hex digits each; frontend/host/headless.h writes them). The determinism lab's
// run-twice check compares two processes' lines as they come and keeps the first run's as
// report/hashes.log; `framelock synctest --compare A B` compares two such logs from two
// machines (or any two runs): the third check, across machines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace framelock::frontend {

// A parsed hash-log line.
struct HashLogEntry {
    std::uint64_t frame = 0;
    std::uint64_t hash = 0;
    std::vector<std::pair<std::string, std::uint64_t>> regions;
};
// nullopt when `line` is not a hash-log line.
std::optional<HashLogEntry> parse_hash_log_entry(const std::string& line);

// The regions of `a` whose hashes differ in `b` (or that `b` lacks), two lines of the same
// frame; empty when either line is not a hash-log line.
std::vector<std::string> differing_region_names(const std::string& a, const std::string& b);

// `framelock synctest --compare A B`: prints the first frame whose state hash or any region
// hash differs and which regions. 0 when identical, 1 when not, kIo/kUsage when a file is
// missing or malformed.
int run_synctest_compare(const std::string& a, const std::string& b);

}  // namespace framelock::frontend
