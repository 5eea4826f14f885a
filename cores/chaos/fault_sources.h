// The chaos core's only impure inputs. Everything else in the core is a function of its state and
// the pad words, so any divergence a checker finds traces back to one of these calls.
#pragma once

#include <cstdint>
#include <span>

namespace framelock::cores::chaos {

// Nanoseconds since the Unix epoch (CLOCK_REALTIME): differs on every call and in every process.
std::uint64_t wallclock_ns();

// Fills `out` with a stand-in for the contents of uninitialised memory. The bytes depend on the
// process (pid, ASLR'd stack and heap addresses), on `owner`'s address (so two copies of the core
// loaded in one process differ) and on how often this was called before in this copy of the core.
void fill_leftover_bytes(std::span<std::uint8_t> out, const void* owner);

// Ends the process the way a core hitting a fatal bug does: SIGABRT, in every build.
[[noreturn]] void crash_now();

}  // namespace framelock::cores::chaos
