#!/usr/bin/env bash
# libFuzzer runs of framelock's fuzz targets (tests/fuzz, docs/fuzzing.md).
#
#   bash tools/fuzz.sh [--time SECONDS | --runs N] [TARGET...]
#       builds build-fuzz/ (clang, FRAMELOCK_FUZZ=ON, only the fuzz targets) and runs every
#       target (or the ones named) for SECONDS each (default 60) or N executions, on a
#       scratch copy of its committed corpus and regressions (the committed seeds are never
#       touched). Prints each target's executions, seconds and verdict; exit status 1 if
#       any target crashed (the input is kept under build-fuzz/crashes/, and the run's log
#       next to it).
#   bash tools/fuzz.sh --build-only
#       only builds build-fuzz/.
#   bash tools/fuzz.sh --capture
#       regenerates tests/fuzz/corpus from simulated sessions (tests/fuzz/capture_corpus.cpp,
#       built in build/).
#
# Environment: FUZZ_BUILD_DIR (default build-fuzz; the test command runs the targets of its
# ASan+UBSan build, build-asan), FUZZ_ARGS (extra libFuzzer flags),
# FUZZ_JOBS (targets run at once, default one per core),
# FUZZ_NO_BUILD=1 (skip the build step), FUZZ_BUILD_JOBS (compile jobs, default one per core).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS_ALL=(protocol server client state_transfer replay config input_script lobby desync_bundle)
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
limit=(-max_total_time=60)
targets=()
capture=0
build_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --time) limit=(-max_total_time="$2"); shift 2 ;;
        --runs) limit=(-runs="$2"); shift 2 ;;
        --capture) capture=1; shift ;;
        --build-only) build_only=1; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *)
            if [[ ! " ${TARGETS_ALL[*]} " == *" $1 "* ]]; then
                echo "fuzz.sh: no fuzz target '$1' (targets: ${TARGETS_ALL[*]})" >&2
                exit 2
            fi
            targets+=("$1"); shift ;;
    esac
done
[ ${#targets[@]} -eq 0 ] && targets=("${TARGETS_ALL[@]}")
JOBS=$(nproc 2>/dev/null || echo 2)

if [ "$capture" = 1 ]; then
    [ -f build/CMakeCache.txt ] || cmake -S . -B build -G Ninja -DFRAMELOCK_TESTS=ON >/dev/null
    cmake --build build -j "$JOBS" --target capture_corpus
    rm -rf tests/fuzz/corpus
    ./build/tests/capture_corpus tests/fuzz/corpus docs/config.md
    exit 0
fi

if ! command -v clang++ >/dev/null; then
    echo "fuzz.sh: clang++ not found: apt-get install clang libclang-rt-14-dev" >&2
    exit 2
fi
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    launcher=()
    if command -v ccache >/dev/null 2>&1; then
        export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR=1
        launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    fi
    CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DFRAMELOCK_FUZZ=ON -DFRAMELOCK_SDL=OFF -DFRAMELOCK_TESTS=OFF -DFRAMELOCK_BENCH=OFF \
        -DFRAMELOCK_WERROR=ON "${launcher[@]}" >/dev/null
fi
# FUZZ_NO_BUILD=1: run what is built (several runs in parallel share one build dir).
[ -n "${FUZZ_NO_BUILD:-}" ] ||
    cmake --build "$BUILD" -j "${FUZZ_BUILD_JOBS:-$JOBS}" --target "${targets[@]/#/fuzz_}"
[ "$build_only" = 1 ] && exit 0

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$BUILD/crashes"
# One target: its row of the table into $scratch/$t.row, and $scratch/$t.crashed on a crash.
run_target() {
    local t=$1 corpus="$scratch/$1" max_len log start status seconds execs rate result
    mkdir -p "$corpus"
    for kind in corpus regressions; do
        if [ -d "tests/fuzz/$kind/$t" ]; then cp "tests/fuzz/$kind/$t"/* "$corpus"/; fi
    done
    # Inputs are op streams for the session targets: 1 KiB is a second or two of a
    # session's traffic (a handshake, the start, inputs), which keeps them fast enough for
    # millions of runs (the server's, which answers three peers, half that); whole files
    # for the replay target.
    case "$t" in
        server) max_len=512 ;;
        client) max_len=1024 ;;
        replay) max_len=8192 ;;
        *) max_len=4096 ;;
    esac
    log="$BUILD/crashes/$t.log"
    start=$(date +%s.%N)
    status=0
    # -timeout: one input running 10 s is a hang; -rss_limit_mb: the default, said aloud.
    # shellcheck disable=SC2086
    "$BUILD/fuzz/fuzz_$t" "$corpus" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$BUILD/crashes/$t-" \
        ${FUZZ_ARGS:-} >"$log" 2>&1 || status=$?
    seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    execs=${execs:-0}
    result="ok"
    [ "$status" -eq 0 ] || result="CRASH (exit $status): see $log"
    rate=$(awk -v n="$execs" -v s="$seconds" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
    printf '%-16s %12s %8s %10s  %s\n' "$t" "$execs" "$seconds" "$rate" "$result" >"$scratch/$t.row"
    [ "$status" -eq 0 ] || touch "$scratch/$t.crashed"
}

# One target per core at a time (FUZZ_JOBS): each still gets its seconds of a whole core.
parallel=${FUZZ_JOBS:-$JOBS}
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
    run_target "$t" &
done
wait
failed=0
printf '%-16s %12s %8s %10s  %s\n' target execs seconds execs/s result
for t in "${targets[@]}"; do
    cat "$scratch/$t.row"
    [ ! -e "$scratch/$t.crashed" ] || failed=1
done
exit $failed
