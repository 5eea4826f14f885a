// Skipping a test whose package is missing: print why, exit 77 (CTest's SKIP_RETURN_CODE
// for framelock tests). CI installs every package, so there nothing is skipped.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#define FRAMELOCK_SKIP_UNLESS_FILE(path, how_to_get)                                        \
    do {                                                                                    \
        const std::string framelock_skip_path = (path);                                     \
        if (framelock_skip_path.empty() || !std::filesystem::exists(framelock_skip_path)) { \
            std::printf("SKIPPED: '%s' is missing (%s)\n", framelock_skip_path.c_str(),     \
                        (how_to_get));                                                      \
            std::fflush(stdout);                                                            \
            std::_Exit(77);                                                                 \
        }                                                                                   \
    } while (0)

// Skipping for a reason other than a missing file (no root, no network namespaces): the
// reason is printed as given.
#define FRAMELOCK_SKIP_BECAUSE(reason)                             \
    do {                                                           \
        std::printf("SKIPPED: %s\n", std::string(reason).c_str()); \
        std::fflush(stdout);                                       \
        std::_Exit(77);                                            \
    } while (0)
