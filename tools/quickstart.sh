#!/usr/bin/env bash
# framelock quick start on a fresh Debian 12 machine.
#   bash tools/quickstart.sh demo   install what is missing, build, run the two-emulator demo
#   bash tools/quickstart.sh test   install what is missing, build, run every test suite
#                                   (normal build, then ASan+UBSan build, the threaded tests
#                                   under TSan), a short libFuzzer pass over every fuzz
#                                   target, then a smoke run of every benchmark and the full
#                                   delay sweep's verdict (bench_netplay_delay --check); prints each
#                                   stage's wall time and the total at the end
set -euo pipefail
cd "$(dirname "$0")/.."

# Everything comes from Debian; nothing is downloaded at build time.
PACKAGES=(
    g++ cmake ninja-build pkg-config clang-format git curl ccache
    retroarch-dev libenet-dev libsdl2-dev zlib1g-dev libpng-dev libfmt-dev libcli11-dev libxxhash-dev
    nlohmann-json3-dev libtomlplusplus-dev
    libsqlite3-dev libpqxx-dev postgresql libmicrohttpd-dev libcpp-httplib-dev libsodium-dev
    libsdl2-ttf-dev libsamplerate0-dev fonts-dejavu-core xvfb xauth xdotool chromium
    catch2 cc65 sdcc nasm binutils-arm-none-eabi python3-matplotlib clang libclang-rt-14-dev
    libretro-nestopia libretro-beetle-pce-fast libretro-gambatte libretro-mgba libretro-core-info
    libretro-bsnes-mercury-accuracy libretro-bsnes-mercury-balanced libretro-bsnes-mercury-performance
    libretro-beetle-wswan libretro-beetle-vb libretro-beetle-psx libretro-desmume
    libminiupnpc-dev iproute2 nftables python3 universal-ctags
    libavcodec-dev libavformat-dev libswscale-dev libswresample-dev libavutil-dev ffmpeg
)

JOBS=$(nproc 2>/dev/null || echo 2)
# Tests: four per core. Most of the suite is end-to-end sessions that run in real time and
# mostly sleep (the normal build's tests kept 0.9 of 2 cores busy at eight at a time), so
# they overlap with the CPU-bound ones instead of queueing behind them. The tests whose
# figures a busy machine would change run apart from them: the audio one alone and first
# (RUN_SERIAL), the input-lag ones (label `quiet`) last, one at a time.
TEST_JOBS=$((JOBS * 4))

# run_suite BUILD_DIR TIMEOUT [ctest options...]: every test of the build dir (the options
# select) but the quiet ones; run_quiet: the quiet ones but the heavy cores', one at a time,
# beside nothing but work at idle priority (at_idle). (Two at a time saved a minute, but one
# of seven paired runs read a wake-up's delay as the network's: the 80 ms session settled a
# frame above its bound, 7.00, beside the loopback one.)
run_suite() {
    local dir=$1 timeout=$2
    shift 2
    ctest --test-dir "$dir" --output-on-failure -j "$TEST_JOBS" --timeout "$timeout" -LE quiet "$@"
}
run_quiet() {
    local dir=$1 timeout=$2
    shift 2
    ctest --test-dir "$dir" --output-on-failure --timeout "$timeout" -L quiet -LE quiet_cpu "$@"
}
# run_quiet_cpu: the heavy cores' sessions (label quiet_cpu), one at a time, with nothing
# beside them, not even at idle priority: their two players keep a core busy, and a build at
# idle priority on the other (which shares its caches and memory) slowed them enough to
# settle a frame higher (the 80 ms one at 7.00 against its bound of 6, in one of three runs
# beside two idle busy loops, and once in CI beside the ASan build).
run_quiet_cpu() {
    local dir=$1 timeout=$2
    shift 2
    ctest --test-dir "$dir" --output-on-failure --timeout "$timeout" -L quiet_cpu "$@"
}

# Runs "$@" (a function of this script, or a command) with the CPU nobody else wants: Linux's
# SCHED_IDLE, which a process of any priority that wakes up takes over at once (nice 19 where
# it is refused). A build or a simulation so runs beside tests whose figures are real time: a
# quiet test's session loses nothing to it (its wake-ups come first), and the build takes
# what the sessions leave, most of two cores.
at_idle() {
    chrt --idle --pid 0 "$BASHPID" >/dev/null 2>&1 || renice -n 19 -p "$BASHPID" >/dev/null
    "$@"
}

install_packages() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "== installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# ccache, when present, keeps compiled objects between builds (CCACHE_BASEDIR makes the
# entries independent of where the checkout lives, so another clone reuses them).
LAUNCHER=()
if command -v ccache >/dev/null 2>&1; then
    export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
    LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

# Compiler flags of these builds. Line tables only (-g1): every backtrace and sanitizer
# report still names file and line, and the build takes a quarter less time than with full
# debug info (-g). The sanitizer builds optimise with -Og, which compiles in less than half
# the time of -O2 (a cold ASan+UBSan build: about 6 min against 14 on 2 cores); their tests
# mostly wait on real time, so they barely notice. For a debugger, configure a build dir of
# your own (cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug).
opt_flags() {
    echo "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$1 -g1 -DNDEBUG"
    echo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$1 -g1 -DNDEBUG"
}
mapfile -t OPTIMISED < <(opt_flags -O2)
mapfile -t SANITIZED < <(opt_flags -Og)

# configure DIR [cmake options...]
# Unity sources: each library and program compiles as a few files that include eight of its
# sources each, so the headers they share (CLI11, nlohmann-json, fmt, httplib) are read and
# their templates instantiated once a batch instead of once a source: the ASan + UBSan
# build's libraries and programs took 303 s of CPU against 486 (the test executables stay one
# file a source, tests/CMakeLists.txt). A clash of two sources' file-local names breaks these
# builds only: configure your own build dir with -DCMAKE_UNITY_BUILD=ON to see it.
configure() {
    local dir=$1
    shift
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
        "${LAUNCHER[@]}" "$@" >/dev/null
}

# build DIR [cmake options...]
build() {
    configure "$@"
    cmake --build "$1" -j "$JOBS"
}

demo() {
    install_packages
    build build -DFRAMELOCK_TESTS=OFF "${OPTIMISED[@]}"
    echo "== framelock demo: a server and two emulators of the bundled arcade game on 127.0.0.1,"
    echo "   bots on the pads, through the impairment proxy at 80 ms round trip, for one minute"
    ./build/framelock demo --out framelock-demo
}

check_format() {
    git ls-files '*.c' '*.h' '*.cpp' | xargs clang-format --dry-run --Werror
}

# A build dir configured with another C++ compiler cannot switch: it starts afresh.
# fresh_for DIR COMPILER (the compiler's file name, a version suffix allowed: clang++, c++)
fresh_for() {
    [ -f "$1/CMakeCache.txt" ] || return 0
    local compiler
    compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$1/CMakeCache.txt")
    case "${compiler##*/}" in
        "$2" | "$2"-*) ;;
        *) rm -rf "$1" ;;
    esac
}

# A bounded libFuzzer pass (tests/fuzz, docs/fuzzing.md): every target for a few seconds
# from its committed corpus. The targets come from the ASan+UBSan build (clang, with
# libFuzzer's coverage), so the test command compiles the sanitized code once, not twice.
# Fails on any crash.
fuzz_pass() {
    FUZZ_BUILD_DIR=build-asan FUZZ_NO_BUILD=1 bash tools/fuzz.sh --time "${FUZZ_SECONDS:-12}"
}

# The threaded tests' binaries under ThreadSanitizer.
tsan_build() {
    configure build-tsan -DFRAMELOCK_TESTS=ON -DFRAMELOCK_TSAN=ON -DFRAMELOCK_BENCH=OFF -DFRAMELOCK_SDL=OFF \
        "${SANITIZED[@]}"
    cmake --build build-tsan -j "$JOBS" --target test_lobby test_upnp test_server_thread
}

# Benchmarks are figures, not tests: the suite only makes sure every benchmark starts, runs
# a few seconds and prints (a failing one fails the stage). The figures come from
# `bash bench/run_all.sh build` (README, Benchmarks).
bench_smoke() {
    local B=build R=build/roms
    "$B/bench_state_transfer"
    "$B/bench_host_overhead" --core arcade --frames 300 --rounds 1
    "$B/bench_synctest" --core arcade --frames 300 --rounds 1
    "$B/bench_rollback" --core arcade --samples 20
    "$B/bench_replay_seek" --check  # the acceptance: 30 minutes, 10 seeks, a few seconds
    "$B/bench_replay_export"        # a minute's replay as .mp4 (under 30 s), .webm, lossless .mkv
    if [ -f "$R/framelock_test.pce" ]; then
        "$B/bench_rollback" --core mednafen_pce_fast --content "$R/framelock_test.pce" --ports 5 \
            --samples 10
    fi
    "$B/bench_bandwidth" --seconds 2 --modes framelock --no-spectator
    "$B/bench_hybrid_sessions" --core arcade --option farcade_players=2 --frames 400 --networks 80ms
    "$B/bench_server_capacity" --sweep 1,2 --seconds 1 --warmup 0.2 --retries 0 \
        --baseline-sessions 1 --no-relay-per-point
    "$B/bench_lobby_load" --rooms 200 --requests 200 --slow-connections 50 --slow-seconds 3
    if [ -x "$B/bench_audio_drc" ]; then "$B/bench_audio_drc" --seconds 5 --skew 0.001 2>/dev/null; fi
}

# Each stage's wall time, printed at the end (and when a stage fails: what ran so far).
STAGES=()
STAGE_NAME=""
STAGE_START=0
RUN_START=$(date +%s)
stage() {
    local now
    now=$(date +%s)
    [ -n "$STAGE_NAME" ] && STAGES+=("$(printf '%-66s %6s s' "$STAGE_NAME" $((now - STAGE_START)))")
    STAGE_NAME=$1
    STAGE_START=$now
    [ -n "$1" ] && echo "== $1"
    return 0
}
SWEEP=""
stage_table() {
    local status=$?
    # A run stopped early leaves nothing behind in the background.
    [ -z "$SWEEP" ] || kill "$SWEEP" 2>/dev/null || true
    # ... nor a build.
    kill $(jobs -p) 2>/dev/null || true
    stage ""
    echo
    echo "== stage times (wall)"
    for line in "${STAGES[@]}"; do echo "   $line"; done
    printf '   %-66s %6s s%s\n' "total" $(($(date +%s) - RUN_START)) \
        "$([ "$status" -eq 0 ] || echo "  (stopped by a failure)")"
}

tests() {
    trap stage_table EXIT
    stage "install packages"
    install_packages
    stage "clang-format (.clang-format)"
    check_format
    stage "build (RelWithDebInfo, -Werror)"
    build build -DFRAMELOCK_TESTS=ON -DFRAMELOCK_WERROR=ON "${OPTIMISED[@]}"
    # The full delay sweep with its bounds (bench_netplay_delay --check: about a minute of one
    # core). Its network is simulated on a virtual clock, so the machine's load cannot move
    # its figures: it runs at idle priority beside the tests, on the core they leave idle
    # (they keep about 0.9 of 2 busy), and its verdict is read at the benchmarks stage.
    (at_idle build/bench_netplay_delay --check --check-bursty) >build/netplay-delay-sweep.log 2>&1 &
    SWEEP=$!
    stage "tests"
    run_suite build 600

    # The core atlas (docs/cores.md): every installed core measured again, alone: its 26
    # sessions play side by side in real time (two of them bsnes-mercury's accuracy profile
    # at 6 ms a frame; on a machine loaded beyond its two cores a host lost its own server
    # once), beside its synctest checks, two at a time. Its verdicts must be
    # docs/cores.json's (tools/check_atlas.py; a core that moved is measured again alone).
    stage "the core atlas, against docs/cores.json"
    build/framelock atlas --json build/atlas.json --markdown build/cores.md --work build/atlas \
        --no-progress
    python3 tools/check_atlas.py docs/cores.json build/atlas.json --again build/framelock

    # Long tests run a shorter variant under the sanitizers (tests/support/sanitized.h; their
    # names say so); benchmarks are not built there. clang builds it with libFuzzer's
    # coverage (FRAMELOCK_FUZZ), and the fuzz targets beside the tests: the fuzz pass needs
    # no build of its own (a cold one took 3 minutes). The build runs at idle priority
    # beside the normal build's quiet tests, which keep a fifth of a core busy for four and a
    # half minutes: a cold build took 340 s so, against 265 alone, and every quiet test kept
    # its bounds.
    stage "build (ASan + UBSan, clang, with the fuzz targets) beside the quiet tests"
    fresh_for build-asan clang++
    (CC=clang CXX=clang++ at_idle build build-asan -DFRAMELOCK_TESTS=ON -DFRAMELOCK_SANITIZERS=ON \
        -DFRAMELOCK_FUZZ=ON -DFRAMELOCK_BENCH=OFF "${SANITIZED[@]}") >build/asan-build.log 2>&1 &
    local asan=$!
    local quiet_status=0
    run_quiet build 600 || quiet_status=$?
    local asan_status=0
    wait "$asan" || asan_status=$?
    tail -n 40 build/asan-build.log
    [ "$quiet_status" -eq 0 ] || { echo "== the quiet tests failed" >&2; return 1; }
    [ "$asan_status" -eq 0 ] || { echo "== the ASan + UBSan build failed (exit $asan_status)" >&2; return 1; }
    stage "the heavy cores' quiet tests, alone"
    run_quiet_cpu build 600
    stage "tests under ASan + UBSan"
    run_suite build-asan 900

    # The fuzz pass (one process at a time, a fixed time per target) and the TSan build run
    # at idle priority beside the sanitized build's quiet tests, as the ASan build beside the
    # normal build's; their output is printed when they ended.
    stage "ASan + UBSan quiet tests, beside the fuzz pass (${FUZZ_SECONDS:-12} s per target) and the TSan build"
    (at_idle fuzz_pass) >build-asan/fuzz-pass.log 2>&1 &
    local fuzz=$!
    (at_idle tsan_build) >build-asan/tsan-build.log 2>&1 &
    local tsan=$!
    quiet_status=0
    run_quiet build-asan 900 || quiet_status=$?
    local fuzz_status=0 tsan_status=0
    wait "$fuzz" || fuzz_status=$?
    wait "$tsan" || tsan_status=$?
    cat build-asan/fuzz-pass.log
    tail -n 20 build-asan/tsan-build.log
    [ "$quiet_status" -eq 0 ] || { echo "== the quiet tests failed" >&2; return 1; }
    [ "$fuzz_status" -eq 0 ] || { echo "== the fuzz pass failed (exit $fuzz_status)" >&2; return 1; }
    [ "$tsan_status" -eq 0 ] || { echo "== the TSan build failed (exit $tsan_status)" >&2; return 1; }
    stage "the heavy cores' quiet tests under ASan + UBSan, alone"
    run_quiet_cpu build-asan 900
    stage "threaded tests under TSan"
    ctest --test-dir build-tsan --output-on-failure -j "$TEST_JOBS" --timeout 900 -L threaded

    stage "benchmark smoke runs, and the full delay sweep's verdict"
    local sweep_status=0
    wait "$SWEEP" || sweep_status=$?
    SWEEP=""
    cat build/netplay-delay-sweep.log
    [ "$sweep_status" -eq 0 ] || { echo "== the delay sweep failed (exit $sweep_status)" >&2; return 1; }
    bench_smoke
}

case "${1:-}" in
    demo) demo ;;
    test) tests ;;
    *)
        echo "usage: bash tools/quickstart.sh demo|test" >&2
        exit 2
        ;;
esac
