#include "frontend/app/command_error.h"

#include <cstdio>

namespace framelock::frontend {

int fail(const Error& error) {
    std::fprintf(stderr, "framelock: error: %s\n", error.message.c_str());
    return static_cast<int>(error.code);
}

}  // namespace framelock::frontend
