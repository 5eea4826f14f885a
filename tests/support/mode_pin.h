// The mode a test's processes play: a `framelock server` or `framelock host` started without
// --mode plays the frame lock in the tests, not the product's default (auto, which picks the
// hybrid where it may), so that a test of the frame lock's delays, stalls and repairs keeps
// testing them. The default itself has tests of its own (mode_auto_test.cpp, and the
// frontend's unit tests of the arguments).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace framelock::test {

// `args` (a framelock command line: the program, then its verb) with `--mode framelock` after
// a `server` or `host` verb that has no --mode; any other command line as it is.
inline std::vector<std::string> frame_lock_unless_said(std::vector<std::string> args) {
    if (args.size() < 2 || (args[1] != "server" && args[1] != "host")) return args;
    if (std::find(args.begin(), args.end(), "--mode") != args.end()) return args;
    args.insert(args.begin() + 2, {"--mode", "framelock"});
    return args;
}

}  // namespace framelock::test
