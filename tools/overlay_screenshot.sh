#!/usr/bin/env bash
# Regenerates docs/overlay.png: the netplay overlay during a real two-player loopback
# session of the bundled arcade game. `framelock host` plays in a window on a private Xvfb,
# `framelock join` plays headless, both with bots on the pads, the join side through the
# impairment proxy (framelock_netem: 30 ms each way, +-4 ms jitter) so ping, delay and the
# graph have something to show. framelock saves its own window (--window-screenshot) at
# frame 3840, 64 s in, when the graph spans its full minute.
#
#   bash tools/overlay_screenshot.sh [BUILD_DIR]     (default: build; needs xvfb)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
OUT=docs/overlay.png
FRAMES=3900
SHOT=3840
. tools/lib/screenshot_common.sh
shot_begin
shot_start_xvfb
echo "== Xvfb on $DISPLAY"

printf '' >"$WORK/framelock.toml"  # the defaults, whatever ~/.config holds
SDL_AUDIODRIVER=dummy "$B/framelock" host --port 0 --port-file "$WORK/host.port" --players 2 \
    --video sdl --config "$WORK/framelock.toml" --name alice --random 1 --frames "$FRAMES" \
    --screenshot-frame "$SHOT" --screenshot "$WORK/core.png" --window-screenshot "$OUT" \
    >"$WORK/host.out" 2>"$WORK/host.err" &
HOST=$!
SHOT_PIDS+=($HOST)
shot_wait_file "$WORK/host.port"
PORT=$(head -n1 "$WORK/host.port")

shot_spawn "$B/framelock_netem" --listen 127.0.0.1:0 --forward "127.0.0.1:$PORT" --delay 30 --jitter 4 \
    --duration 120 --port-file "$WORK/netem.port" >"$WORK/netem.out" 2>&1
shot_wait_file "$WORK/netem.port"
PROXY=$(head -n1 "$WORK/netem.port")

echo "== a session of $FRAMES frames (about $((FRAMES / 60)) s)"
"$B/framelock" join "127.0.0.1:$PROXY" --video none --name bob --slot 2 --random 2 \
    --frames "$FRAMES" >"$WORK/join.out" 2>"$WORK/join.err"
wait "$HOST" || { cat "$WORK/host.err" >&2; exit 1; }
cat "$WORK/host.out"
echo "== wrote $OUT"
