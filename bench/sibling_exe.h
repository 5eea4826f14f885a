// The build puts the benchmarks next to the framelock and proxy executables (one
// RUNTIME_OUTPUT_DIRECTORY): a benchmark finds them beside itself, and no benchmark source
// carries a path of its checkout (which would make it a ccache miss in another).
#pragma once

#include <filesystem>
#include <string>

namespace framelock::bench {

inline std::string sibling_exe(const char* name) {
    return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / name).string();
}

}  // namespace framelock::bench
