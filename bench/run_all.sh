#!/usr/bin/env bash
# Runs every benchmark against a build, prints their figures, writes each one's JSON into a
# results directory, merges them into results.json and renders the report there
# (bench.png: delay and stalls vs RTT, server capacity vs sessions; bench.md: the table).
#
#   bash bench/run_all.sh [BUILD] [--quick] [--out DIR] [--update-docs]
#
#   BUILD          the build directory (default: build)
#   --quick        shorter runs (what CI runs); also FRAMELOCK_BENCH_QUICK=1
#   --out DIR      where the JSON files and the report go (default: bench-results)
#   --update-docs  also write docs/bench.png and docs/bench.md and update the table in
#                  README.md between its bench-table markers (from a full run, to commit)
set -euo pipefail
cd "$(dirname "$0")/.."
B=build
OUT=bench-results
QUICK=${FRAMELOCK_BENCH_QUICK:-0}
UPDATE_DOCS=0
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --out) OUT=$2; shift ;;
        --update-docs) UPDATE_DOCS=1 ;;
        -*) echo "run_all.sh: unknown option $1" >&2; exit 2 ;;
        *) B=$1 ;;
    esac
    shift
done
if [ "$QUICK" = 1 ] && [ "$UPDATE_DOCS" = 1 ]; then
    echo "run_all.sh: --update-docs wants the full run, not --quick" >&2
    exit 2
fi
ROMS=$B/roms
mkdir -p "$OUT"
# A stale file from an earlier run must not reach this run's report (only the files this
# script writes are removed: --out may name a directory that holds other things).
rm -f "$OUT"/{run,results,netplay_delay,state_transfer,bandwidth,server_capacity,replay_seek,replay_export}.json \
    "$OUT"/host_overhead_*.json "$OUT"/rollback_*.json "$OUT"/hybrid_sessions_*.json
# The machine's load says how far to trust the timings (the report prints it).
LOAD_START=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo null)
STARTED=$(date -u '+%Y-%m-%d %H:%M')
# The commit measured (with "+changes" when the tree differs from it), for the report's header.
COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ "$COMMIT" != unknown ] && ! git diff --quiet HEAD -- 2>/dev/null; then COMMIT="$COMMIT+changes"; fi
if [ "$QUICK" = 1 ]; then
    HOST_FRAMES=(--frames 1000 --rounds 3)
    ROLLBACK_SAMPLES=(--samples 100)
    DELAY=(--quick)
    BANDWIDTH=(--seconds 5)
    CAPACITY=(--sweep 1,2,4,8,16,32,64 --seconds 2 --warmup 0.5 --retries 0)
    HYBRID=(--frames 600 --networks 80ms)
    SEEK=(--minutes 5)
else
    HOST_FRAMES=(--frames 3000 --rounds 7)
    ROLLBACK_SAMPLES=()
    DELAY=()
    BANDWIDTH=(--seconds 20)
    CAPACITY=()
    HYBRID=()
    SEEK=()
fi

"$B/bench_netplay_delay" "${DELAY[@]}" --json "$OUT/netplay_delay.json"
"$B/bench_state_transfer" --json "$OUT/state_transfer.json"
# Seeking in a 30-minute replay of the bundled arcade core (10 random frames; 5 minutes with
# --quick), against re-running from the start.
"$B/bench_replay_seek" "${SEEK[@]}" --json "$OUT/replay_seek.json"
# The player's window: frame pacing under Xvfb (skips itself without Xvfb), and an
# emulated minute of sound through SDL's disk driver, the emulator 0.1% slow and fast.
if [ -x "$B/bench_frame_pacing" ]; then
    "$B/bench_frame_pacing"
fi
if [ -x "$B/bench_audio_drc" ]; then
    "$B/bench_audio_drc" --skew 0.001 2>/dev/null
    "$B/bench_audio_drc" --skew -0.001 2>/dev/null
fi
"$B/bench_host_overhead" --core arcade --ports 4 --option farcade_players=4 "${HOST_FRAMES[@]}" \
    --json "$OUT/host_overhead_arcade.json"
if [ -f "$ROMS/framelock_test.nes" ]; then
    "$B/bench_host_overhead" --core nestopia --content "$ROMS/framelock_test.nes" "${HOST_FRAMES[@]}" \
        --json "$OUT/host_overhead_nestopia.json"
fi
"$B/bench_synctest" --core arcade --ports 4 --option farcade_players=4 --frames 3000
if [ -f "$ROMS/framelock_test.nes" ]; then
    "$B/bench_synctest" --core nestopia --content "$ROMS/framelock_test.nes" --frames 3000
fi
# replay export: a minute's replay to .mp4, .webm and lossless .mkv beside replay play.
"$B/bench_replay_export" --core arcade --frames 3600 --json "$OUT/replay_export.json"
"$B/bench_rollback" --core arcade --ports 4 --option farcade_players=4 "${ROLLBACK_SAMPLES[@]}" \
    --json "$OUT/rollback_arcade.json"
if [ -f "$ROMS/framelock_test.pce" ]; then
    "$B/bench_rollback" --core mednafen_pce_fast --content "$ROMS/framelock_test.pce" --ports 5 \
        "${ROLLBACK_SAMPLES[@]}" --json "$OUT/rollback_pce.json"
    "$B/bench_host_overhead" --core mednafen_pce_fast --content "$ROMS/framelock_test.pce" --ports 5 \
        "${HOST_FRAMES[@]}" --json "$OUT/host_overhead_pce.json"
fi
# Bandwidth per player in each mode: real processes on 127.0.0.1 through the proxy.
"$B/bench_bandwidth" "${BANDWIDTH[@]}" --json "$OUT/bandwidth.json"
# The hybrid on real processes through the proxy, on the acceptance's networks (80 and 150 ms
# with 1% loss, 40 ms with bursts): what a player feels and what its corrections cost.
"$B/bench_hybrid_sessions" --core arcade --option farcade_players=2 "${HYBRID[@]}" \
    --json "$OUT/hybrid_sessions_arcade.json"
if [ -f "$ROMS/framelock_test.pce" ]; then
    "$B/bench_hybrid_sessions" --core mednafen_pce_fast --content "$ROMS/framelock_test.pce" \
        --ports 5 "${HYBRID[@]}" --json "$OUT/hybrid_sessions_pce.json"
fi
# Server capacity: one framelock server process with N two-player sessions at 60 fps,
# loaded from a second process over ENet on loopback: CPU per session and the added
# forwarding latency (bench_server_capacity --help). The full sweep goes to 256 sessions;
# --quick stops at 64, without retries, so its time is bounded.
"$B/bench_server_capacity" "${CAPACITY[@]}" --json "$OUT/server_capacity.json"
# The lobby with 10,000 rooms: list, filtered list and heartbeat over HTTP, SQLite then
# PostgreSQL (skipped with a note when the PostgreSQL server is not installed).
"$B/bench_lobby_load"

LOAD_END=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo null)
printf '{"bench": "run", "started_utc": "%s", "commit": "%s", "quick": %s, "loadavg_1min_start": %s, "loadavg_1min_end": %s}\n' \
    "$STARTED" "$COMMIT" "$([ "$QUICK" = 1 ] && echo true || echo false)" "$LOAD_START" "$LOAD_END" >"$OUT/run.json"

# The report: results.json, bench.png and bench.md in $OUT (and docs/, README when asked).
# Debian's matplotlib lives in the system python3, which may not be the first on PATH.
PY=python3
if ! "$PY" -c 'import matplotlib' 2>/dev/null && [ -x /usr/bin/python3 ]; then
    PY=/usr/bin/python3
fi
REPORT=("$PY" tools/bench_report.py "$OUT")
if [ "$UPDATE_DOCS" = 1 ]; then
    REPORT+=(--docs docs --update-readme README.md)
fi
"${REPORT[@]}"
