#!/usr/bin/env bash
# One job per file: no source file is longer than the limit (docs/architecture.md). A file
# that grows past it holds several jobs: split it by job, not by line count.
# Exit 1 and one line per longer file: its name and its length.
#
#   bash tools/check_file_length.sh [REPO] [LIMIT] [FOLDER...]
#       (limit 600; folders: netplay frontend lobby common bench tools)
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
shift || true
limit=${1:-600}
shift || true
[ $# -gt 0 ] || set -- netplay frontend lobby common bench tools

mapfile -t sources < <(find "$@" \( -name '*.h' -o -name '*.cpp' -o -name '*.c' -o -name '*.py' \
    -o -name '*.sh' \) -type f 2>/dev/null | sort)
[ ${#sources[@]} -gt 0 ] || { echo "check_file_length: no sources under $*" >&2; exit 2; }
longest=0
status=0
for f in "${sources[@]}"; do
    n=$(wc -l <"$f")
    [ "$n" -gt "$longest" ] && longest=$n
    if [ "$n" -gt "$limit" ]; then
        echo "$f: $n lines  <- no source file over $limit lines"
        status=1
    fi
done
[ "$status" -eq 0 ] && echo "file length: ${#sources[@]} files, the longest $longest lines (limit $limit)"
exit "$status"
