#include "frontend/host/core_locator.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace framelock::frontend {
namespace fs = std::filesystem;

namespace {
std::string executable_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(".") : exe.parent_path().string();
}
}  // namespace

std::vector<std::string> core_search_dirs(const std::vector<std::string>& configured) {
    std::vector<std::string> dirs = configured;
    if (const char* env = std::getenv("FRAMELOCK_CORE_PATH"); env && *env) {
        std::string list = env;
        std::size_t start = 0;
        while (start <= list.size()) {
            const auto colon = list.find(':', start);
            if (colon != start) dirs.push_back(list.substr(start, colon - start));
            if (colon == std::string::npos) break;
            start = colon + 1;
        }
    }
    const std::string exe_dir = executable_dir();
    dirs.push_back(exe_dir + "/cores");                   // build tree
    dirs.push_back(exe_dir + "/../lib/framelock/cores");  // installed
    dirs.push_back(FRAMELOCK_SYSTEM_CORE_DIR);            // Debian's libretro-* packages
    return dirs;
}

Result<std::string> locate_core(const std::string& name_or_path,
                                const std::vector<std::string>& dirs) {
    if (name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".so"))
        return name_or_path;
    std::string searched;
    for (const auto& dir : dirs) {
        for (const std::string& file :
             {name_or_path + "_libretro.so", "framelock_" + name_or_path + "_libretro.so"}) {
            const fs::path candidate = fs::path(dir) / file;
            std::error_code ec;
            if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
        }
        searched += "\n  " + dir;
    }
    return make_error(ErrorCode::kCoreLoad, "no core named '" + name_or_path + "' (looked for " +
                                                name_or_path + "_libretro.so in:" + searched +
                                                ")\n  install it (e.g. apt-get install libretro-" +
                                                name_or_path + ") or pass its path");
}

}  // namespace framelock::frontend
