# Shared by the tools/*_screenshot.sh scripts (sourced, not run): a scratch directory that
# is removed with every background process on exit, a private Xvfb, a throwaway lobby.
#
#   shot_begin                    sets WORK (a temp dir) and the exit trap
#   shot_spawn CMD ARGS...        starts CMD in the background; killed on exit
#   shot_wait_file FILE [TRIES]   waits (0.1 s a try, default 100) until FILE is not empty
#   shot_start_xvfb               a private Xvfb; exports DISPLAY
#   shot_start_lobby BUILD_DIR    `framelock lobby serve` on SQLite in WORK; sets LOBBY (its URL)

shot_begin() {
    WORK=$(mktemp -d)
    SHOT_PIDS=()
    trap shot_cleanup EXIT
}

shot_cleanup() {
    local pid
    for pid in "${SHOT_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}

shot_spawn() {
    "$@" &
    SHOT_PIDS+=($!)
}

shot_wait_file() {
    local tries=${2:-100}
    for _ in $(seq "$tries"); do
        [ -s "$1" ] && return 0
        sleep 0.1
    done
    echo "timed out waiting for $1" >&2
    return 1
}

shot_start_xvfb() {
    command -v Xvfb >/dev/null || {
        echo "needs Xvfb: apt-get install xvfb xauth" >&2
        exit 1
    }
    # Xvfb picks a free display and writes its number to fd 5. -noreset: SDL's probe opens
    # and closes a connection first, and a server resetting then refuses the real one.
    Xvfb -displayfd 5 -screen 0 1280x1024x24 -nolisten tcp -noreset 5>"$WORK/display" \
        2>/dev/null &
    SHOT_PIDS+=($!)
    shot_wait_file "$WORK/display"
    DISPLAY=":$(head -n1 "$WORK/display")"
    export DISPLAY
}

shot_start_lobby() {
    shot_spawn "$1/framelock" lobby serve --listen 127.0.0.1:0 --db "sqlite:$WORK/lobby.db" \
        --quiet >"$WORK/lobby.out" 2>"$WORK/lobby.err"
    local port=""
    for _ in $(seq 200); do
        port=$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$WORK/lobby.out" 2>/dev/null)
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || {
        cat "$WORK/lobby.err" >&2
        exit 1
    }
    LOBBY="http://127.0.0.1:$port"
}
