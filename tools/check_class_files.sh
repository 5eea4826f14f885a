#!/usr/bin/env bash
# A class owns its state and lives in one file pair: every class's member functions that are
# defined out of line are defined in one .cpp (docs/architecture.md). A class whose functions
# spread over several .cpp files is several jobs in one class: split it into parts that own
# their state (shared/docs/style.md), not into slices of one class.
# Exit 1 and one line per class defined in more than one .cpp: the class, then its files.
#
#   bash tools/check_class_files.sh [REPO] [FOLDER...]   (folders: netplay frontend lobby)
# Reads the definitions with Universal Ctags (Debian's universal-ctags).
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
shift || true
[ $# -gt 0 ] || set -- netplay frontend lobby
command -v ctags >/dev/null || { echo "check_class_files: needs ctags (apt-get install universal-ctags)" >&2; exit 2; }

mapfile -t sources < <(find "$@" -name '*.cpp' 2>/dev/null | sort)
[ ${#sources[@]} -gt 0 ] || { echo "check_class_files: no .cpp under $*" >&2; exit 2; }
# One line per (class, file) with a member function defined there: the scope ctags gives an
# out-of-line definition is the class's qualified name (an anonymous namespace has a name of
# its file's own, so two files' local helpers never meet).
report=$(ctags -f - --language-force=C++ --kinds-C++=f --fields=+s "${sources[@]}" |
    awk -F'\t' '{
        for (i = 4; i <= NF; i++)
            if ($i ~ /^(class|struct):/) { sub(/^(class|struct):/, "", $i); print $i "\t" $2 }
    }' | sort -u |
    awk -F'\t' '
        { files[$1] = files[$1] " " $2; count[$1]++ }
        END { for (c in count) if (count[c] > 1) print c ":" files[c] }' | sort)
classes=$(ctags -f - --language-force=C++ --kinds-C++=f --fields=+s "${sources[@]}" |
    grep -cE $'\t(class|struct):' || true)
if [ -n "$report" ]; then
    while IFS= read -r line; do echo "$line  <- a class defines its member functions in one .cpp"; done <<<"$report"
    exit 1
fi
echo "class files: every class defines its member functions in one .cpp (${#sources[@]} files, $classes member function definitions)"
