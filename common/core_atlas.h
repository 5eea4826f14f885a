// What the core atlas says of a core in a session mode: `framelock atlas` measures every core
// (frontend/app/atlas.h) and writes docs/cores.json; the build compiles that file in
// (core_atlas_data.cpp.in), so the lobby's room list and the player's `--mode auto` read the
// same verdicts without a file to find at run time.
//
// A verdict for a core build and content: safe in every mode, safe in the frame lock only
// (its savestates do not replay), desyncs (two runs disagree), or not measured. A room's
// core is matched by its libretro name and version: another version is unknown, not assumed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "netplay/base/result.h"

namespace framelock {

enum class AtlasVerdict {
    kSafe,           // every check passed: rollback, the hybrid and the frame lock
    kFrameLockOnly,  // identical in the frame lock; its savestates fail a rollback check
    kDesyncs,        // two runs or a frame-lock session disagree: no mode is safe
    kNotMeasured,    // cannot run here, not installed, or its content reads no pads
};

// "safe", "framelock-only", "desyncs", "not-measured": the JSON's words, and back (an unknown
// word reads as kNotMeasured).
std::string_view verdict_word(AtlasVerdict verdict);
AtlasVerdict verdict_from_word(std::string_view word);

// Whether a session in `mode` ("framelock", "nowait", "rollback", "hybrid") is safe with a
// core of this verdict: the one rule behind the JSON's "modes" and every answer below.
bool safe_in_mode(AtlasVerdict verdict, std::string_view mode);

// A core in a mode, as the atlas answers it.
enum class ModeVerdict { kSafe, kUnsafe, kUnknown };
std::string_view mode_verdict_word(ModeVerdict verdict);  // "safe", "unsafe", "unknown"

struct CoreAtlasAnswer {
    ModeVerdict verdict = ModeVerdict::kUnknown;
    AtlasVerdict atlas = AtlasVerdict::kNotMeasured;
    // Why it is unsafe or unknown, in a sentence a player reads; empty when safe.
    std::string reason;
};

class CoreAtlas {
  public:
    // The JSON `framelock atlas --json` writes. kConfig error when it is not that.
    static Result<CoreAtlas> parse(std::string_view json);

    // `core_name` and `core_version` as the core reports them (retro_system_info). Several
    // rows of one core (one per content, as mGBA's Game Boy and Game Boy Advance ROMs) answer
    // with the least safe of them.
    CoreAtlasAnswer answer(std::string_view core_name, std::string_view core_version,
                           std::string_view mode) const;

    std::size_t size() const { return m_rows.size(); }

  private:
    struct Row {
        std::string name, core_name, version, system, reason;
        AtlasVerdict verdict = AtlasVerdict::kNotMeasured;
    };
    std::vector<Row> m_rows;
};

// The atlas this build compiled in (docs/cores.json when it was built).
const CoreAtlas& built_in_core_atlas();

}  // namespace framelock
