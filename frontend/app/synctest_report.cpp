#include "frontend/app/synctest_report.h"

#include <fmt/core.h>

#include <utility>

#include "frontend/app/command_error.h"
#include "frontend/files/atomic_file.h"

namespace framelock::frontend::synctest {

namespace fs = std::filesystem;

Json ranges_json(const netplay::ByteDiff& diff, std::uint64_t base) {
    Json ranges = Json::array();
    for (const auto& r : diff.ranges) {
        ranges.push_back({{"offset", r.offset},
                          {"address", fmt::format("0x{:x}", base + r.offset)},
                          {"length", r.length}});
    }
    return {{"differing_bytes", diff.differing_bytes},
            {"range_count", diff.range_count},
            {"sizes_differ", diff.sizes_differ},
            {"ranges", ranges}};
}

Json regions_json(const std::vector<netplay::RegionDiff>& regions) {
    Json out = Json::array();
    for (const auto& r : regions) {
        Json one = ranges_json(r.diff, r.start);
        one["name"] = r.name;
        one["start"] = fmt::format("0x{:x}", r.start);
        out.push_back(std::move(one));
    }
    return out;
}

Status write_bytes(const fs::path& path, std::span<const std::uint8_t> bytes) {
    return write_file_atomic(path.string(), bytes);
}

Status write_comparison_png(const fs::path& path, const Image& a, const Image& b,
                            std::size_t* differing) {
    if (a.pixels.empty() || b.pixels.empty()) return {};
    const Image diff = diff_highlight(a, b, differing);
    return write_png(path, side_by_side({&a, &b, &diff}, 4, 0x404040));
}

int write_report(const ReportSubject& subject, const std::vector<CheckReport>& checks,
                 const fs::path& report_dir, const std::optional<fs::path>& hash_log) {
    bool all = true;
    std::string text = fmt::format("core     {} {}\ncontent  {} ({})\nframes   {} of {}\n",
                                   subject.core_name, subject.core_version, subject.content,
                                   subject.content_hash, subject.frames, subject.input);
    Json json = {{"core", subject.core_name},
                 {"core_version", subject.core_version},
                 {"content", subject.content},
                 {"content_hash", subject.content_hash},
                 {"frames", subject.frames},
                 {"input", subject.input},
                 {"check_distance", subject.check_distance}};
    Json json_checks = Json::array();
    for (const auto& c : checks) {
        all = all && c.passed;
        text += fmt::format("{:<9} {:<13} {}\n", c.name, c.passed ? "PASS" : "FAIL " + c.verdict,
                            c.message);
        Json one = {{"name", c.name}, {"passed", c.passed}, {"verdict", c.verdict}};
        if (c.frame) one["frame"] = *c.frame;
        one["message"] = c.message;
        one["details"] = c.details;
        json_checks.push_back(std::move(one));
    }
    if (hash_log) {
        text += "hashes   " + hash_log->string() +
                " (compare with another machine's: framelock synctest --compare A B)\n";
        json["hash_log"] = hash_log->filename().string();
    }
    text += std::string("verdict  ") +
            (all ? "deterministic: every selected check passed"
                 : "NOT deterministic: see the failed checks above and the files in " +
                       report_dir.string()) +
            "\n";
    json["checks"] = json_checks;
    json["passed"] = all;
    fmt::print("{}", text);
    const std::string json_text = json.dump(2) + "\n";
    Status written = write_file_atomic(report_dir / "summary.txt", text);
    if (written) written = write_file_atomic(report_dir / "summary.json", json_text);
    if (!written) return fail(written.error());
    return all ? 0 : 1;
}

}  // namespace framelock::frontend::synctest
