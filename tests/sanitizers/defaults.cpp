// Linked into every executable of a FRAMELOCK_SANITIZERS or FRAMELOCK_TSAN build: the runtimes
// read these before main(), so tests, manual runs and the framelock processes the tests
// start all use the same settings and the suppressions for Debian's cores.
extern "C" {

// alloc_dealloc_mismatch=0: Debian's mednafen_pce_fast frees new[] memory with free()
// while loading content, and ASan applies no library-scoped suppression to that report.
// Our own code is covered for this bug at compile time by -Wmismatched-new-delete
// (part of -Wall; -Werror in CI). Every other ASan check stays on.
const char* __asan_default_options() {
    return "detect_leaks=1:alloc_dealloc_mismatch=0";
}

const char* __lsan_default_options() {
    return "suppressions=" FRAMELOCK_SANITIZER_DIR "/lsan.supp";
}

const char* __ubsan_default_options() {
    return "print_stacktrace=1:halt_on_error=1";
}

// ThreadSanitizer: the first race fails the process (and so the test that started it).
const char* __tsan_default_options() {
    return "halt_on_error=1:second_deadlock_stack=1:suppressions=" FRAMELOCK_SANITIZER_DIR
           "/tsan.supp";
}
}
