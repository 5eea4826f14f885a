#!/usr/bin/env bash
# Renders the lobby's web page to docs/lobby.png in headless Chromium: a throwaway lobby
# (SQLite in a temp dir) with a few rooms of the kinds players see: different games and
# modes, a password room, a full room, a room on a relay in another region; cores the core
# atlas (docs/cores.json) finds safe in their room's mode, one it finds unsafe there, and
# one it has not measured.
#   bash tools/lobby_screenshot.sh [BUILD_DIR]      (default: build; needs chromium, curl)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
OUT=docs/lobby.png

. tools/lib/screenshot_common.sh
shot_begin
shot_start_lobby "$B"
url=$LOBBY

# A host's own server names its key (docs/netplay.md, "The server's key"); any 32 bytes do here.
SERVER_KEY=$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
# room HOST GAME CORE VERSION MODE PLAYERS SLOTS SPECTATORS REGION [PASSWORD]
room() {
    local body
    body=$(printf '{"host_name":"%s","game_name":"%s","content_hash":"%016x","core_name":"%s",
        "core_version":"%s","mode":"%s","players":%d,"slots":%d,"spectators":%d,"region":"%s",
        "server_address":"203.0.113.7:%d","server_key":"%s"%s}' "$1" "$2" "$RANDOM$RANDOM" "$3" "$4" "$5" "$6" \
        "$7" "$8" "$9" $((7845 + RANDOM % 100)) "$SERVER_KEY" "${10:+,\"password\":\"${10}\"}")
    curl -sf -o /dev/null -H 'Content-Type: application/json' -d "$body" "$url/api/rooms"
}
# Oldest first: the page lists the newest at the top.
room "kasumi" "Garou: Mark of the Wolves" fbneo v1.0.0.03 rollback 2 2 5 eu-west
room "tetsuo" "Super Mario Bros. 3" Nestopia 1.52.0 hybrid 1 2 0 eu-west
room "mika" "Super Bomberman 2" bsnes-mercury "v094 (Performance)" framelock 3 4 1 us-east
room "pcengine_fan" "Bomberman '94" "Mednafen PCE Fast" v0.9.38.7 hybrid 2 5 0 jp "secret"
room "ryo" "Star Lanes" framelock-arcade 1.0 hybrid 0 2 0 ""
room "nina" "Mario Kart: Super Circuit" mGBA 0.10.1 rollback 1 2 12 us-west
sleep 1

chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$WORK/profile" --window-size=1500,620 --virtual-time-budget=3000 \
    --screenshot="$OUT" "$url/" 2>"$WORK/chromium.log" || {
    cat "$WORK/chromium.log" >&2
    exit 1
}
echo "wrote $OUT"
