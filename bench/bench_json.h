// A benchmark's figures as JSON (`--json FILE`), beside what it prints: bench/run_all.sh
// collects one file per run and tools/bench_report.py merges them into the report.
// Every file is an object whose "bench" names the benchmark.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>

namespace framelock::bench {

using Json = nlohmann::ordered_json;  // keys in the order written, for people reading the file

// Writes `json` to `path` (to a temporary file beside it, then renamed over it). False after
// printing why to stderr.
inline bool write_json(const std::string& path, const Json& json) {
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::trunc);
        out << json.dump(2) << '\n';
        if (!out.flush()) {
            std::fprintf(stderr, "cannot write %s\n", temporary.c_str());
            return false;
        }
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        std::fprintf(stderr, "cannot write %s: %s\n", path.c_str(), ec.message().c_str());
        return false;
    }
    return true;
}

}  // namespace framelock::bench
