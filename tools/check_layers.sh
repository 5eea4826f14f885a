#!/usr/bin/env bash
# The layering rules of docs/architecture.md, checked on the sources' #include lines.
# Exit 1 and one line per breach (FILE:LINE: the include, and the rule it breaks).
#
#   bash tools/check_layers.sh [REPO]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

status=0
# breach GLOB... -- PATTERN RULE [ALLOWED]: every line of the files that matches PATTERN (and
# not ALLOWED) is a breach.
breach() {
    local files=() pattern rule
    while [ "$1" != "--" ]; do files+=("$1"); shift; done
    shift
    pattern=$1 rule=$2
    local allowed=${3:-} hits
    # No files (a tree without this folder): nothing to check, and grep must not read stdin.
    [ ${#files[@]} -eq 0 ] && return 0
    hits=$(grep -HnE "$pattern" "${files[@]}" 2>/dev/null || true)
    if [ -n "$allowed" ] && [ -n "$hits" ]; then hits=$(grep -vE "$allowed" <<<"$hits" || true); fi
    if [ -n "$hits" ]; then
        while IFS= read -r hit; do echo "$hit  <- $rule"; done <<<"$hits"
        status=1
    fi
}

shopt -s nullglob
# files ROOT...: every .h and .cpp below the given folders.
files() { find "$@" \( -name '*.h' -o -name '*.cpp' \) 2>/dev/null | sort; }

mapfile -t engine < <(files netplay | grep -vE '^netplay/(io|sim)/')
# The engine: pure logic. It sees an Emulator, a Transport and a Clock, nothing else.
breach "${engine[@]}" -- '#include +"(frontend|lobby|common|tools|cores|bench|tests)/' \
    "netplay/ includes nothing of the layers above it"
breach "${engine[@]}" -- '#include +[<"](SDL|libretro|enet/|sys/socket|netinet/|arpa/|dlfcn|chrono|thread|mutex|unistd|httplib)' \
    "netplay/ calls no SDL, libretro, socket, dlopen, clock or thread (netplay/io/ adapts them)"
breach "${engine[@]}" -- '#include +"netplay/io/' \
    "netplay/ does not include its real-world adapters"
# No source sits in netplay/ itself: every file lives in the room of its concern.
for f in netplay/*.h netplay/*.cpp; do
    echo "$f  <- netplay/ keeps its files in rooms (base, interfaces, crypto, wire, timing, determinism, transfer, reach, server, client, sim, io)"
    status=1
done
# The rooms of the engine, lowest first: a room includes of netplay/ only itself and the rooms
# named after it (docs/architecture.md, "The engine's rooms").
# room NAME MAY...: the breach is any netplay/ include outside NAME and MAY.
room() {
    local name=$1
    shift
    local allowed
    allowed=$(IFS='|'; echo "$name${*:+|$*}")
    mapfile -t in_room < <(files "netplay/$name")
    [ ${#in_room[@]} -eq 0 ] && return 0
    breach "${in_room[@]}" -- '#include +"netplay/' \
        "netplay/$name/ includes of netplay/ only ${*:-nothing else}${*:+ (and itself)}" \
        "#include +\"netplay/($allowed)/"
}
room base
room interfaces base
room crypto base
room wire base interfaces crypto
room timing base interfaces wire
room determinism base interfaces wire
room transfer base interfaces wire
room reach base interfaces wire
room server base interfaces crypto wire timing determinism transfer
room client base interfaces crypto wire timing determinism transfer
room sim base interfaces crypto wire timing determinism transfer server client
room io base interfaces wire reach
# Nothing shipped depends on the simulator.
mapfile -t shipped < <(files netplay frontend common lobby | grep -v '^netplay/sim/')
breach "${shipped[@]}" -- '#include +"netplay/sim/' \
    "only the simulator itself, tests and benchmarks include it"
# The player's program (frontend/): every file in the room of what it is (nothing in frontend/
# itself nor in a folder that is no room, besides the build files), the rooms one way.
frontend_rooms="files terminal reach host session player player/sdl video lobby_client app"
while IFS= read -r f; do
    echo "$f  <- frontend/ keeps its files in rooms (${frontend_rooms// /, })"
    status=1
done < <(find frontend -type f ! -name CMakeLists.txt 2>/dev/null |
    grep -vE "^frontend/(${frontend_rooms// /|})/[^/]+\$" | sort)
# The player's rooms, lowest first: a room includes of frontend/ only itself and the rooms named
# after it (docs/architecture.md). player/sdl/ is a room of its own inside player/: a room's
# files are those directly in its folder, and naming player/ does not let a file include
# player/sdl/.
# frontend_room NAME MAY...: the breach is any frontend/ include outside NAME and MAY.
frontend_room() {
    local name=$1
    shift
    local allowed
    allowed=$(IFS='|'; echo "$name${*:+|$*}")
    mapfile -t in_room < <(find "frontend/$name" -maxdepth 1 \( -name '*.h' -o -name '*.cpp' \) \
        2>/dev/null | sort)
    breach "${in_room[@]}" -- '#include +"frontend/' \
        "frontend/$name/ includes of frontend/ only itself${*:+ and $*}" \
        "#include +\"frontend/($allowed)/[^/\"]+\""
}
# files/ (file formats, safe writing) and terminal/ (the progress bar) serve every room and
# include none; reach/ talks to the router and the lobby, not to the rooms that use it; a
# session never includes the window that shows it (the window polls the session); the program
# (app/) opens a window through PlayerWindow, never through player/sdl/ (linked, not included);
# video/ (the encoder, FFmpeg) sees pictures and pads, not the session or the window.
frontend_room files
frontend_room terminal
frontend_room reach
frontend_room host files
frontend_room session files terminal host
frontend_room player files host session
frontend_room player/sdl files host player
frontend_room video files host
frontend_room lobby_client files host session player reach
frontend_room app files terminal reach host session player video lobby_client
# SDL lives in the player's window only: the rooms above it see a PlayerWindow.
mapfile -t not_sdl < <(files frontend | grep -v '^frontend/player/sdl/')
breach "${not_sdl[@]}" -- '#include +[<"]SDL' "SDL only in frontend/player/sdl/"
# FFmpeg's libraries are the video room's: nothing else of the program sees them.
mapfile -t not_video < <(files netplay frontend common lobby | grep -v '^frontend/video/')
breach "${not_video[@]}" -- '#include +<lib(avcodec|avformat|avutil|avfilter|avdevice|swscale|swresample)/' \
    "FFmpeg's libraries only in frontend/video/"
# The lobby is a service of its own (framelock-lobby runs it without the player): nothing of
# the player, its window or the core host, in the service nor in its tests.
breach lobby/*.h lobby/*.cpp lobby/*/*.h lobby/*/*.cpp -- '#include +("frontend/|[<"](SDL|libretro))' \
    "lobby/ includes nothing of frontend/, SDL or libretro"
# Of the engine, the lobby sees its error type, safe text, the path floor's formula (a room's
# expected delay) and the rendezvous datagrams only.
breach lobby/*.h lobby/*.cpp lobby/*/*.h lobby/*/*.cpp -- \
    '#include +"netplay/' "lobby/ includes of netplay/ only base/result.h, base/safe_text.h, timing/path_floor.h, reach/rendezvous.h and crypto/server_identity.h" \
    '#include +"netplay/(base/result|base/safe_text|timing/path_floor|reach/rendezvous|crypto/server_identity)\.h"'

# What the player and the lobby share belongs to neither.
breach common/*.h common/*.cpp -- '#include +("(frontend|lobby)/|[<"](SDL|libretro))' \
    "common/ includes nothing of frontend/, lobby/, SDL or libretro"

[ $status -eq 0 ] && echo "layers: every rule holds"
exit $status
