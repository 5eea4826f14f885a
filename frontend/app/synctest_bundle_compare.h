// `framelock synctest --compare` of desync bundles (frontend/files/desync_bundle.h): two
// bundles, one from each player of a desync, or one that holds both states (a repaired
// player's). Checks they are of the same session, desync, core and content, then names the
// first differing byte of the two states with its memory region and address, every region
// that differs, and the frames whose inputs differ. docs/desync.md shows its output.
#pragma once

#include <string>
#include <vector>

#include "frontend/files/desync_bundle.h"

namespace framelock::frontend {

// Whether the file at `path` begins like a desync bundle (false when it cannot be read).
bool file_is_desync_bundle(const std::string& path);

// What the comparison found, for the caller to print (`text`, a line each) and exit with.
struct BundleComparison {
    std::vector<std::string> lines;
    bool differ = false;  // the states, or the inputs both hold, differ
};
// `a` holds both states when `b` is null. kUsage errors name both sides' values when the
// bundles are not of the same desync, or say what is missing (a bundle without a state).
Result<BundleComparison> compare_bundles(const DesyncBundle& a, const DesyncBundle* b);

// Prints the comparison of the bundles at `paths` (one or two): 0 when the states (and the
// inputs both hold) are identical, 1 when they differ, an ErrorCode when a file is missing,
// is not a bundle, or the two are not of the same desync.
int run_bundle_compare(const std::vector<std::string>& paths);

}  // namespace framelock::frontend
