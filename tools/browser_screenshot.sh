#!/usr/bin/env bash
# Regenerates docs/browser.png: `framelock browse` listing a lobby's rooms. A throwaway
# lobby (SQLite in a temporary directory) gets a few rooms, the browser opens on a private
# Xvfb, Down moves the selection, and the screenshot hotkey (F12) saves the window.
#
#   bash tools/browser_screenshot.sh [BUILD_DIR]     (default: build; needs xvfb, xdotool, curl)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
OUT=docs/browser.png
for tool in xdotool curl; do
    command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install xvfb xauth xdotool curl)" >&2; exit 1; }
done

. tools/lib/screenshot_common.sh
shot_begin
shot_start_xvfb
shot_start_lobby "$B"

room() {  # host game mode players slots port [password]
    local password=""
    [ -n "${7:-}" ] && password=",\"password\":\"$7\""
    curl -fsS -o /dev/null -H 'Content-Type: application/json' "$LOBBY/api/rooms" -d \
        "{\"host_name\":\"$1\",\"game_name\":\"$2\",\"content_hash\":\"0123456789abcdef\",\"core_name\":\"framelock arcade\",\"core_version\":\"1\",\"mode\":\"$3\",\"players\":$4,\"slots\":$5,\"server_address\":\"127.0.0.1:$6\"$password}"
}
room alice "Framelock Arcade" framelock 1 2 7100
room bob "Framelock Arcade" rollback 2 2 7101
room carol "Chaos Test" nowait 1 4 7102 secret
room dave "Framelock Arcade" rollback 3 4 7103

printf '[video]\nscreenshot_dir = "%s"\n' "$WORK/shots" >"$WORK/framelock.toml"
shot_spawn "$B/framelock" browse --lobby "$LOBBY" --core "$B/cores/framelock_arcade_libretro.so" \
    --video sdl --audio none --config "$WORK/framelock.toml" >"$WORK/browse.log" 2>&1
for _ in $(seq 100); do grep -q 'rooms: ' "$WORK/browse.log" && break; sleep 0.1; done
ID=$(xdotool search --name '^framelock - rooms' | head -n1)
xdotool windowfocus --sync "$ID"
xdotool key Down
sleep 0.5
xdotool key F12
for _ in $(seq 50); do ls "$WORK/shots"/*.png >/dev/null 2>&1 && break; sleep 0.1; done
cp "$(ls "$WORK/shots"/*.png | head -n1)" "$OUT"
echo "== wrote $OUT"
