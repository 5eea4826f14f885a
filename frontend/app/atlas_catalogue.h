// The core atlas's catalogue (cores/atlas.toml): which libretro cores the atlas measures,
// with which of the project's test ROMs, how many pads and which options; and, for a core
// that cannot run here, why. One entry per core build and content: mGBA appears twice, with
// the Game Boy ROM and with the Game Boy Advance one.
#pragma once

#include <string>
#include <vector>

#include "netplay/base/result.h"

namespace framelock::frontend {

struct AtlasCore {
    std::string name;     // the atlas's name for this row: "nestopia", "mgba_gba"
    std::string core;     // what `--core` takes: a core name ("nestopia") or a path
    std::string package;  // where it comes from: a Debian package, or "built by framelock"
    std::string system;   // "NES", "Super Nintendo", ...
    // The test ROM's file name in the atlas's --roms directory; empty: the core needs none.
    std::string content;
    unsigned ports = 1;                // pads the content reads
    std::vector<std::string> options;  // core options, KEY=VALUE
    // Why it cannot run here (a BIOS that cannot ship, no assembler); empty: it can.
    std::string unavailable;
};

// Reads the catalogue. A kConfig error naming the file and the entry for a missing name,
// core or system, ports outside 1..8, or a name given twice.
Result<std::vector<AtlasCore>> load_atlas_catalogue(const std::string& path);

// What the core declares about its savestates in libretro's core info file
// (<info_dir>/<core file name without .so>.info, savestate_features: "deterministic",
// "serialized", ...); empty when there is no file or no such line.
std::string declared_savestate_features(const std::string& info_dir, const std::string& core_path);

}  // namespace framelock::frontend
