#!/usr/bin/env bash
# Two players of the same session joining G seconds apart, on every core the tests install
# (with the project's ROMs) and the bundled ones: desyncs reported, hash logs compared from
# frame 0, the final states compared. Prints the table docs/netplay.md keeps.
#
#   bash tools/start_state_table.sh [BUILD] [--frames N] [--gaps "0 3 10"] [--cores "..."]
#       BUILD: a build dir with framelock, the cores and the test ROMs (default: build).
#       Sessions run PARALLEL at a time (default 3; each is two emulators at 60 fps, light).
#       Extra server arguments: SERVER_ARGS (for example --no-common-start, to compare).
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
frames=3600
gaps="0 3 10"
cores="arcade chaos nestopia pce_fast gambatte mgba_gb"
while [ $# -gt 0 ]; do
    case "$1" in
        --frames) frames=$2; shift 2 ;;
        --gaps) gaps=$2; shift 2 ;;
        --cores) cores=$2; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        -*) echo "start_state_table.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) build=$1; shift ;;
    esac
done
fl=$build/framelock
[ -x "$fl" ] || { echo "start_state_table.sh: $fl not built" >&2; exit 2; }
system=$(sed -n 's/^FRAMELOCK_SYSTEM_CORE_DIR:[A-Z]*=//p' "$build/CMakeCache.txt")
system=${system:-/usr/lib/x86_64-linux-gnu/libretro}

# core name -> "core path|content|ports"
core_args() {
    case "$1" in
        arcade) echo "$build/cores/framelock_arcade_libretro.so||2" ;;
        chaos) echo "$build/cores/framelock_chaos_libretro.so||2" ;;
        nestopia) echo "$system/nestopia_libretro.so|$build/roms/framelock_test.nes|2" ;;
        pce_fast) echo "$system/mednafen_pce_fast_libretro.so|$build/roms/framelock_test.pce|2" ;;
        gambatte) echo "$system/gambatte_libretro.so|$build/roms/framelock_test.gb|2" ;;
        mgba_gb) echo "$system/mgba_libretro.so|$build/roms/framelock_test.gb|2" ;;
        *) echo "start_state_table.sh: no core case '$1'" >&2; return 1 ;;
    esac
}

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One session: row into $out/$name-$gap.row
session() {
    local name=$1 gap=$2 dir="$out/$1-$2" spec core content ports
    spec=$(core_args "$name")
    IFS='|' read -r core content ports <<<"$spec"
    mkdir -p "$dir"
    if [ ! -f "$core" ] || { [ -n "$content" ] && [ ! -f "$content" ]; }; then
        printf '| %s | %s s | - | - | - | not installed or not built |\n' "$name" "$gap" >"$dir.row"
        return 0
    fi
    local args=(--core "$core" --video none --audio none --no-sram --frames "$frames" --ports "$ports")
    [ -n "$content" ] && args+=(--content "$content")
    # shellcheck disable=SC2086
    "$fl" server --bind 127.0.0.1 --port 0 --players 2 --hash-interval 60 --port-file "$dir/port" \
        --stats-json "$dir/server.json" ${SERVER_ARGS:-} >"$dir/server.log" 2>&1 &
    local server=$!
    for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.05; done
    local address="127.0.0.1:$(head -1 "$dir/port")"
    "$fl" join "$address" "${args[@]}" --random 11 --name one --hash-log "$dir/one.log" \
        --stats-json "$dir/one.json" >"$dir/one.out" 2>&1 &
    local one=$!
    sleep "$gap"
    "$fl" join "$address" "${args[@]}" --random 22 --name two --hash-log "$dir/two.log" \
        --stats-json "$dir/two.json" >"$dir/two.out" 2>&1 &
    local two=$!
    local status=ok
    wait "$one" || status="player one failed"
    wait "$two" || status="player two failed"
    wait "$server" || status="server failed"
    local desyncs lines differ final
    desyncs=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["sessions"][0]["desyncs"])' \
        "$dir/server.json" 2>/dev/null || echo "?")
    lines=$(wc -l <"$dir/one.log")
    differ=$(paste -d' ' "$dir/one.log" "$dir/two.log" | awk '$1 != $3 || $2 != $4' | wc -l)
    if [ "$(tail -1 "$dir/one.log")" = "$(tail -1 "$dir/two.log")" ]; then final=same; else final=DIFFERENT; fi
    printf '| %s | %s s | %s | %s of %s | %s | %s |\n' "$name" "$gap" "$desyncs" "$differ" "$lines" \
        "$final" "$status" >"$dir.row"
}

parallel=${PARALLEL:-3}
for name in $cores; do
    for gap in $gaps; do
        while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
        session "$name" "$gap" &
    done
done
wait
echo "| core | gap | desyncs reported | hash-log lines that differ | final state | players |"
echo "|---|---|---|---|---|---|"
failed=0
for name in $cores; do
    for gap in $gaps; do
        row=$(cat "$out/$name-$gap.row")
        echo "$row"
        case "$row" in *"| 0 | 0 of $frames | same | ok |"*) ;; *"not installed"*) ;; *) failed=1 ;; esac
    done
done
exit $failed
