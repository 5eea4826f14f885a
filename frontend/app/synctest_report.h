// The determinism lab's report (`framelock synctest`): what each check concluded, the
// evidence it leaves (byte ranges as JSON, the two pictures side by side, raw files), and
// the summary printed and written as summary.txt and summary.json in the report directory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "frontend/host/image.h"
#include "netplay/base/result.h"
#include "netplay/determinism/byte_diff.h"
#include "netplay/determinism/synctest.h"

namespace framelock::frontend::synctest {

using Json = nlohmann::ordered_json;  // keys in the order written, for people reading them

// What one check concluded, for the summary and the JSON report.
struct CheckReport {
    std::string name;
    bool passed = false;
    std::string verdict;  // deterministic, diverged, crashed, no-savestates, ...
    std::optional<std::uint64_t> frame;
    std::string message;
    Json details = Json::object();
};

// A byte diff as JSON: counts, and each range's offset, length and address (`base` + offset).
Json ranges_json(const netplay::ByteDiff& diff, std::uint64_t base);
// Each differing memory region's byte diff, named, with its start address.
Json regions_json(const std::vector<netplay::RegionDiff>& regions);

// Raw evidence (a state, a memory region), written atomically.
Status write_bytes(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);

// A PNG of `a` and `b` side by side, and a third picture with the pixels that differ
// highlighted; their number in `*differing`. Nothing (and success) when either is empty.
Status write_comparison_png(const std::filesystem::path& path, const Image& a, const Image& b,
                            std::size_t* differing);

// What was checked, for the summary's head.
struct ReportSubject {
    std::string core_name, core_version;
    std::string content, content_hash;
    std::uint64_t frames = 0;
    std::string input;  // "random input (seed 1)", "input script FILE"
    std::uint32_t check_distance = 0;
};

// Prints the summary (a line per check and the verdict) and writes summary.txt and
// summary.json into `report_dir`; `hash_log`, when given, is named as the cross-machine log.
// The exit code: 0 when every check passed, 1 when one failed, the ErrorCode (after printing
// it) when the files could not be written.
int write_report(const ReportSubject& subject, const std::vector<CheckReport>& checks,
                 const std::filesystem::path& report_dir,
                 const std::optional<std::filesystem::path>& hash_log);

}  // namespace framelock::frontend::synctest
