// `framelock atlas`: every core of the catalogue (cores/atlas.toml) that is installed here,
// measured for netplay (frontend/app/atlas_checks.h), with a verdict per core and per session
// mode (frontend/app/atlas_report.h), written as a Markdown page and a JSON file.
//
// The checks run in child processes from two pools at once: the sessions (long, mostly
// asleep: they play in real time) and the synctest checks (short, CPU-bound).
#pragma once

#include <string>
#include <vector>

#include "frontend/app/atlas_checks.h"

namespace framelock::frontend {

struct AtlasOptions {
    std::string catalogue = "cores/atlas.toml";
    std::string info_dir = "/usr/share/libretro/info";  // libretro-core-info's files
    std::string markdown_out;                           // empty: not written
    std::string json_out;                               // empty: not written
    std::vector<std::string> only;                      // core names; empty: all
    int cpu_jobs = 2;                                   // synctest checks at once
    int sessions = 32;  // sessions at once: every core's two side by side (13 cores: 26)
    bool progress = true;
    AtlasSettings settings;
};

// Runs the atlas and prints one line per core. Exit code 0 when every installed core was
// measured (whatever its verdict), the ErrorCode of a setup error otherwise.
int run_atlas(const AtlasOptions& options);

}  // namespace framelock::frontend
