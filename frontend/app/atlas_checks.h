// The core atlas's checks of one core, each run in child processes of this executable (a
// core that crashes or hangs costs one check, not the atlas):
//   inputs     a run with random pads and one with none end in different states
//   twice      `synctest --mode twice`: two processes from power-on agree after every frame
//   roundtrip  `synctest --mode roundtrip` at distances 1, 4 and 12: save, load and re-run
//              give the first run's states; also what the state's size did, and the bytes
//              a load changes that are not game state
//   sessions   a two-process session (`host` and, seconds later, `join`) in the frame lock,
//              and one in rollback: both players' hash logs equal, no desync reported
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontend/app/atlas_catalogue.h"

namespace framelock::frontend {

// How the atlas runs its checks.
struct AtlasSettings {
    std::string self;                     // this executable
    std::string roms_dir;                 // where the catalogue's content files are
    std::string work_dir;                 // each check's logs and reports, <work>/<core>/<check>/
    std::uint64_t check_frames = 600;     // frames of the synctest checks (as --mode auto's)
    std::uint64_t session_frames = 3600;  // frames each player of a session plays
    double start_gap_s = 2.0;             // the second player starts this long after the first
};

// One check's result. `passed` empty: informational (the bytes a load changes).
struct AtlasCheck {
    std::string name;  // "inputs", "twice", "roundtrip 1", "framelock session", ...
    std::optional<bool> passed;
    std::string summary;                 // for the table: "ok", "diverged at frame 4 (SYSTEM_RAM)"
    std::string message;                 // the whole finding, for the notes under the table
    std::optional<std::uint64_t> frame;  // the first failing frame
    std::string region;                  // the first differing memory region
};

// What the checks of one core read about the core itself (from a synctest summary).
struct AtlasCoreIdentity {
    std::string name, version;
};

// The tasks of one core, in the order the report shows them. Sessions are long and light;
// the others short and CPU-bound: the atlas runs them from separate pools.
enum class AtlasTask {
    kInputs,
    kTwice,
    kRoundtrip1,
    kRoundtrip4,
    kRoundtrip12,
    kFrameLock,
    kRollback
};
inline constexpr AtlasTask kAtlasTasks[] = {
    AtlasTask::kInputs,      AtlasTask::kTwice,     AtlasTask::kRoundtrip1, AtlasTask::kRoundtrip4,
    AtlasTask::kRoundtrip12, AtlasTask::kFrameLock, AtlasTask::kRollback};
bool is_session_task(AtlasTask task);
std::string task_name(AtlasTask task);

// Runs one task; blocks until its processes end (or their time runs out). The round trip at
// distance 1 also yields "state size" and "load bytes"; the twice check fills `identity`.
std::vector<AtlasCheck> run_atlas_task(const AtlasSettings& settings, const AtlasCore& core,
                                       AtlasTask task, AtlasCoreIdentity* identity);

}  // namespace framelock::frontend
