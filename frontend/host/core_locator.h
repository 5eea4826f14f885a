// `--core nestopia` or `--core arcade` instead of a full path: where framelock looks.
#pragma once

#include <string>
#include <vector>

#include "netplay/base/result.h"

namespace framelock::frontend {

// In order: directories from the config, $FRAMELOCK_CORE_PATH (':'-separated), the
// bundled cores next to the executable, the system's libretro directory.
std::vector<std::string> core_search_dirs(const std::vector<std::string>& configured);

// A value with a '/' or ending in ".so" is a path and returned as is; a name N is looked
// up as N_libretro.so, then framelock_N_libretro.so, in each directory.
Result<std::string> locate_core(const std::string& name_or_path,
                                const std::vector<std::string>& dirs);

// The bundled arcade game, the default core.
inline constexpr const char* kDefaultCore = "arcade";

}  // namespace framelock::frontend
