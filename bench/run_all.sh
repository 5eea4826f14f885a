#!/usr/bin/env bash
# Runs every benchmark against the build in $1 (default: build) and prints their figures.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
ROMS=$B/roms
"$B/bench_netplay_delay"
"$B/bench_state_transfer"
# The player's window: frame pacing under Xvfb (skips itself without Xvfb), and an
# emulated minute of sound through SDL's disk driver, the emulator 0.1% slow and fast.
if [ -x "$B/bench_frame_pacing" ]; then
    "$B/bench_frame_pacing"
fi
if [ -x "$B/bench_audio_drc" ]; then
    "$B/bench_audio_drc" --skew 0.001 2>/dev/null
    "$B/bench_audio_drc" --skew -0.001 2>/dev/null
fi
"$B/bench_host_overhead" --core arcade --ports 4 --option farcade_players=4 --frames 3000 --rounds 7
if [ -f "$ROMS/framelock_test.nes" ]; then
    "$B/bench_host_overhead" --core nestopia --content "$ROMS/framelock_test.nes" --frames 3000 --rounds 7
fi
"$B/bench_synctest" --core arcade --ports 4 --option farcade_players=4 --frames 3000
if [ -f "$ROMS/framelock_test.nes" ]; then
    "$B/bench_synctest" --core nestopia --content "$ROMS/framelock_test.nes" --frames 3000
fi
"$B/bench_rollback" --core arcade --ports 4 --option farcade_players=4
if [ -f "$ROMS/framelock_test.pce" ]; then
    "$B/bench_rollback" --core mednafen_pce_fast --content "$ROMS/framelock_test.pce" --ports 5
    "$B/bench_host_overhead" --core mednafen_pce_fast --content "$ROMS/framelock_test.pce" --ports 5 --frames 3000 --rounds 7
fi
# One framelock server process with 1..64 two-player sessions at 60 fps, loaded from a
# second process over ENet on loopback: CPU per session and the added forwarding latency
# (bench_server_capacity --help; the full sweep goes to 256 sessions).
"$B/bench_server_capacity" --sweep 1,2,4,8,16,32,64 --seconds 2 --warmup 0.5 --retries 0
# The lobby with 10,000 rooms: list, filtered list and heartbeat over HTTP, SQLite then
# PostgreSQL (skipped with a note when the PostgreSQL server is not installed).
"$B/bench_lobby_load"
