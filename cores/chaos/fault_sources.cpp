#include "fault_sources.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>

namespace framelock::cores::chaos {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
    state += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Per loaded copy of the core, deliberately outside the savestate: memory a process reuses holds
// whatever its previous user left, so a second run in the same process sees other leftovers.
std::uint64_t g_leftover_calls = 0;

}  // namespace

std::uint64_t wallclock_ns() {
    const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch).count());
}

void fill_leftover_bytes(std::span<std::uint8_t> out, const void* owner) {
    // Reading memory that was never written is undefined behaviour, and what it yields in
    // practice is unreliable for a test: a fresh process gets zero pages from the kernel, and
    // sanitizers or hardened allocators fill with fixed patterns, so two runs could agree by
    // luck. So this does not read uninitialised memory at all. It simulates what such a read
    // returns in a long-running process -- stale pointers and ids -- from values that really do
    // differ per process and per copy of the core: ASLR'd stack and heap addresses, the pid,
    // the owner's address and a per-copy call count.
    const auto probe = std::make_unique<std::uint64_t>(0);
    std::uint64_t stack_marker = 0;
    std::uint64_t seed = reinterpret_cast<std::uintptr_t>(probe.get());
    seed ^= static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&stack_marker)) << 1;
    seed ^= static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(owner)) << 3;
    seed ^= static_cast<std::uint64_t>(::getpid()) << 40;
    seed ^= ++g_leftover_calls * 0x2545f4914f6cdd1dULL;

    std::uint64_t word = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (i % 8 == 0) word = splitmix64(seed);
        out[i] = static_cast<std::uint8_t>(word >> (8 * (i % 8)));
    }
}

void crash_now() {
    // abort() rather than a null store: under FRAMELOCK_SANITIZERS, UBSan/ASan intercept a null
    // store and exit with status 1, while SIGABRT kills the process the same way in every build,
    // so tests can expect one outcome.
    std::abort();
}

}  // namespace framelock::cores::chaos
