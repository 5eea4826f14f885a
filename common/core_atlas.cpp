#include "common/core_atlas.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace framelock {
namespace {

// Cores report their version with stray spaces ("1.52.0 "): compared without them.
std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

}  // namespace

std::string_view verdict_word(AtlasVerdict verdict) {
    switch (verdict) {
        case AtlasVerdict::kSafe:
            return "safe";
        case AtlasVerdict::kFrameLockOnly:
            return "framelock-only";
        case AtlasVerdict::kDesyncs:
            return "desyncs";
        case AtlasVerdict::kNotMeasured:
            return "not-measured";
    }
    return "not-measured";
}

AtlasVerdict verdict_from_word(std::string_view word) {
    for (AtlasVerdict v :
         {AtlasVerdict::kSafe, AtlasVerdict::kFrameLockOnly, AtlasVerdict::kDesyncs})
        if (word == verdict_word(v)) return v;
    return AtlasVerdict::kNotMeasured;
}

bool safe_in_mode(AtlasVerdict verdict, std::string_view mode) {
    if (verdict == AtlasVerdict::kSafe) return true;
    if (verdict == AtlasVerdict::kFrameLockOnly) return mode == "framelock" || mode == "nowait";
    return false;
}

std::string_view mode_verdict_word(ModeVerdict verdict) {
    switch (verdict) {
        case ModeVerdict::kSafe:
            return "safe";
        case ModeVerdict::kUnsafe:
            return "unsafe";
        case ModeVerdict::kUnknown:
            return "unknown";
    }
    return "unknown";
}

Result<CoreAtlas> CoreAtlas::parse(std::string_view json) {
    const auto root = nlohmann::json::parse(json, nullptr, false);
    if (root.is_discarded() || !root.is_object() || !root.contains("cores") ||
        !root["cores"].is_array())
        return make_error(ErrorCode::kConfig, "the core atlas is not `framelock atlas --json`'s");
    // A field of another type reads as empty: the lobby answers from what it can read.
    const auto text = [](const nlohmann::json& object, const char* key) {
        const auto it = object.find(key);
        return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    CoreAtlas atlas;
    for (const auto& core : root["cores"]) {
        if (!core.is_object()) continue;
        Row row;
        row.name = text(core, "name");
        row.core_name = text(core, "core_name");
        row.version = text(core, "version");
        row.system = text(core, "system");
        row.reason = text(core, "reason");
        row.verdict = verdict_from_word(text(core, "verdict"));
        if (!row.core_name.empty()) atlas.m_rows.push_back(std::move(row));
    }
    return atlas;
}

CoreAtlasAnswer CoreAtlas::answer(std::string_view core_name, std::string_view core_version,
                                  std::string_view mode) const {
    CoreAtlasAnswer out;
    std::vector<const Row*> same_core, same_version;
    for (const Row& row : m_rows) {
        if (row.core_name != core_name) continue;
        same_core.push_back(&row);
        if (trimmed(row.version) == trimmed(core_version)) same_version.push_back(&row);
    }
    if (same_core.empty()) {
        out.reason = fmt::format("{} is not in the core atlas", core_name);
        return out;
    }
    if (same_version.empty()) {
        out.reason = fmt::format("the core atlas measured {} {}, not {}", core_name,
                                 trimmed(same_core.front()->version), trimmed(core_version));
        return out;
    }
    // The least safe of its rows: not measured, then unsafe in this mode, then safe.
    const Row* answer = same_version.front();
    const auto rank = [&](const Row* row) {
        if (row->verdict == AtlasVerdict::kNotMeasured) return 0;
        return safe_in_mode(row->verdict, mode) ? 2 : 1;
    };
    for (const Row* row : same_version)
        if (rank(row) < rank(answer)) answer = row;
    out.atlas = answer->verdict;
    if (answer->verdict == AtlasVerdict::kNotMeasured) {
        out.reason =
            fmt::format("the core atlas could not measure {}: {}", answer->name, answer->reason);
        return out;
    }
    out.verdict = safe_in_mode(answer->verdict, mode) ? ModeVerdict::kSafe : ModeVerdict::kUnsafe;
    if (out.verdict == ModeVerdict::kUnsafe) {
        const std::string with =
            same_version.size() > 1 ? fmt::format(" with {} content", answer->system) : "";
        out.reason = fmt::format(
            "the core atlas found {} {}{} {}: {}", core_name, trimmed(core_version), with,
            answer->verdict == AtlasVerdict::kDesyncs ? "desyncing in every mode"
                                                      : "safe in the frame lock only",
            answer->reason);
    }
    return out;
}

}  // namespace framelock
