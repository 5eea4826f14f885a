// `framelock demo`: a whole netplay session on this machine, as real processes. A server,
// the UDP impairment proxy (framelock_netem, next to the framelock executable) and two
// headless clients of the bundled arcade game with bots on their pads; afterwards the two
// clients' hash logs are compared line by line and their last pictures put side by side.
//
//   client 1 ─┐                              ┌─ server (framelock server)
//             ├─ framelock_netem (delay, ──── ┤
//   client 2 ─┘   jitter, loss each way)     └─ its --stats-json: the delay schedule
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "netplay/base/result.h"
#include "netplay/wire/protocol.h"

namespace framelock::frontend {

struct DemoOptions {
    std::uint64_t frames = 3600;
    double rtt_ms = 80;  // split evenly: half of it each way through the proxy
    double jitter_ms = 0;
    double loss_pct = 0;
    std::string out_dir = "framelock-demo";
};

struct HashLogComparison {
    std::size_t compared = 0;                       // lines present in both
    bool identical = false;                         // same length and every line equal
    std::optional<std::uint64_t> first_difference;  // frame of the first differing line
};

// Two hash logs ("FRAME HASH ..." per line) compared line by line. Logs of different
// length are not identical; the first frame beyond the shorter one is then the difference.
HashLogComparison compare_hash_logs(const std::vector<std::string>& a,
                                    const std::vector<std::string>& b);

struct DemoClientReport {
    std::uint32_t stall_frames = 0;
    double upstream_bytes_per_s = 0;
    double srtt_ms = 0;
};

struct DemoReport {
    HashLogComparison comparison;
    std::vector<netplay::ScheduleEntry> schedule;  // the server's delay decisions (changes)
    std::string mode, mode_reason;                 // what the server played (auto chose), why
    std::vector<DemoClientReport> clients;
    std::string picture_path;
    std::uint64_t picture_frame = 0;
};

// Runs the demo; errors name the process that failed and its log file in out_dir. Every
// child is reaped, and killed if it outlives the time limit (frames / 60 + 30 s).
Result<DemoReport> run_demo(const DemoOptions& options);

void print_demo_report(const DemoReport& report);

}  // namespace framelock::frontend
