// libFuzzer's entry point for one target: FRAMELOCK_FUZZ_FUNCTION names it (one executable
// per target, tests/fuzz/CMakeLists.txt). A broken invariant aborts, so libFuzzer saves the
// input as a crash.
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/fuzz_targets.h"

namespace framelock::fuzz {

void fuzz_fail(const char* what, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", file, line, what);
    std::abort();
}

}  // namespace framelock::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return framelock::fuzz::FRAMELOCK_FUZZ_FUNCTION(data, size);
}
