// Tests whose length buys nothing more under a sanitizer run a shorter variant there, and
// say so in their names ("... (N under sanitizers)"). The normal build runs every test at
// full length; the ASan+UBSan and TSan builds run every test binary, with these shortened:
// what they check (frame identity, hash agreement, the bounds) is checked again, on fewer
// frames. FRAMELOCK_SANITIZED is defined for test targets by tests/CMakeLists.txt.
#pragma once

namespace framelock::test {

#ifdef FRAMELOCK_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// `full` in the normal build, `shortened` under the sanitizers.
template <class T>
constexpr T full_or_sanitized(T full, T shortened) {
    return kSanitized ? shortened : full;
}

}  // namespace framelock::test
