#include "frontend/app/synctest_hash_log.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "netplay/base/result.h"
#include "netplay/determinism/state_hash.h"

namespace framelock::frontend {

std::optional<HashLogEntry> parse_hash_log_entry(const std::string& line) {
    std::istringstream in(line);
    HashLogEntry entry;
    std::string frame, hash;
    if (!(in >> frame >> hash) || hash.size() != 16) return std::nullopt;
    char* end = nullptr;
    entry.frame = std::strtoull(frame.c_str(), &end, 10);
    if (frame.empty() || *end) return std::nullopt;
    entry.hash = std::strtoull(hash.c_str(), &end, 16);
    if (*end) return std::nullopt;
    std::string field;
    while (in >> field) {
        const auto eq = field.rfind('=');
        if (eq == std::string::npos || field.size() - eq - 1 != 16) return std::nullopt;
        const std::uint64_t value = std::strtoull(field.c_str() + eq + 1, &end, 16);
        if (*end) return std::nullopt;
        entry.regions.emplace_back(field.substr(0, eq), value);
    }
    return entry;
}

std::vector<std::string> differing_region_names(const std::string& a, const std::string& b) {
    std::vector<std::string> names;
    const auto ea = parse_hash_log_entry(a), eb = parse_hash_log_entry(b);
    if (!ea || !eb) return names;
    // Not a structured binding: clang before 16 cannot capture one in the lambda.
    for (const auto& region : ea->regions) {
        const std::string& name = region.first;
        auto it = std::find_if(eb->regions.begin(), eb->regions.end(),
                               [&](const auto& r) { return r.first == name; });
        if (it == eb->regions.end() || it->second != region.second) names.push_back(name);
    }
    return names;
}

int run_synctest_compare(const std::string& a_path, const std::string& b_path) {
    std::vector<HashLogEntry> logs[2];
    const std::string paths[2] = {a_path, b_path};
    for (int i = 0; i < 2; ++i) {
        std::ifstream in(paths[i]);
        if (!in) {
            std::fprintf(stderr, "framelock: error: cannot read hash log '%s'\n", paths[i].c_str());
            return static_cast<int>(ErrorCode::kIo);
        }
        std::string line;
        std::size_t number = 0;
        while (std::getline(in, line)) {
            ++number;
            if (line.empty()) continue;
            auto entry = parse_hash_log_entry(line);
            if (!entry) {
                std::fprintf(stderr,
                             "framelock: error: %s line %zu is not a hash-log line "
                             "(FRAME HASH[ NAME=HASH...]): '%s'\n",
                             paths[i].c_str(), number, line.substr(0, 80).c_str());
                return static_cast<int>(ErrorCode::kUsage);
            }
            logs[i].push_back(std::move(*entry));
        }
    }
    const std::size_t common = std::min(logs[0].size(), logs[1].size());
    for (std::size_t i = 0; i < common; ++i) {
        const HashLogEntry& x = logs[0][i];
        const HashLogEntry& y = logs[1][i];
        if (x.frame != y.frame) {
            fmt::print("line {}: the logs cover different frames ({} and {})\n", i + 1, x.frame,
                       y.frame);
            return 1;
        }
        std::vector<std::string> regions;
        for (const auto& region : x.regions) {
            const std::string& name = region.first;
            auto it = std::find_if(y.regions.begin(), y.regions.end(),
                                   [&](const auto& r) { return r.first == name; });
            if (it != y.regions.end() && it->second != region.second) regions.push_back(name);
        }
        if (x.hash != y.hash || !regions.empty()) {
            std::string names;
            for (const auto& n : regions) names += (names.empty() ? "" : ", ") + n;
            fmt::print("DIVERGED at frame {}: state {} vs {}; regions that differ: {}\n", x.frame,
                       netplay::hash_to_hex(x.hash), netplay::hash_to_hex(y.hash),
                       names.empty() ? "none (or not logged)" : names);
            return 1;
        }
    }
    if (logs[0].size() != logs[1].size()) {
        fmt::print("identical for the {} frames both cover; {} has {} lines, {} has {}\n", common,
                   a_path, logs[0].size(), b_path, logs[1].size());
        return 1;
    }
    fmt::print("identical: {} frames\n", common);
    return 0;
}

}  // namespace framelock::frontend
