// The core atlas's results: each core's checks, its verdict and what that verdict means for
// each session mode; written as docs/cores.md (the table and its notes) and as JSON (the
// same facts for programs: the lobby, `--mode auto`).
#pragma once

#include <string>
#include <vector>

#include "common/core_atlas.h"  // AtlasVerdict, its words and what it means per mode
#include "frontend/app/atlas_checks.h"
#include "netplay/base/result.h"

namespace framelock::frontend {

struct AtlasCoreResult {
    AtlasCore core;
    std::string core_path;  // empty: not installed
    std::string declares;   // the core info file's savestate_features
    AtlasCoreIdentity identity;
    std::vector<AtlasCheck> checks;  // empty when not measured
    std::string not_measured;        // why, when it was not
    AtlasVerdict verdict = AtlasVerdict::kNotMeasured;
    std::string reason;  // the first failing check, in words
};

// Sets `verdict` and `reason` from the checks.
void decide_verdict(AtlasCoreResult& result);

// What the atlas measured with, for the report's header.
struct AtlasRun {
    std::uint64_t check_frames = 0, session_frames = 0;
    double start_gap_s = 0;
    double seconds = 0;  // how long the whole run took
};

std::string atlas_markdown(const std::vector<AtlasCoreResult>& results, const AtlasRun& run);
std::string atlas_json(const std::vector<AtlasCoreResult>& results, const AtlasRun& run);

}  // namespace framelock::frontend
