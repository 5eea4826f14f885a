#!/usr/bin/env python3
"""The architecture map cannot drift: docs/architecture.md's "The map" names every source
folder and file with its one-line purpose, and names nothing that does not exist.

    python3 tools/check_map.py [REPO]

Exit 1 and one line per breach: a source file or folder the map leaves out, a name in the
map that is not in the tree, an entry without its purpose. The map's form (its section,
"## The map"):

    ### `netplay/server/`: what the folder is for
    - `server.{h,cpp}`: what the file is for

A name may hold one {a,b,...} group: `server.{h,cpp}` names server.h and server.cpp.
Source files are those git tracks (or, outside a checkout, every file) below the folders
the map covers, with the endings in SOURCE_ENDINGS; data (ROM images, fuzz corpora, the
breach fixtures) is not source.
"""
import os
import re
import subprocess
import sys

DOC = "docs/architecture.md"
ROOTS = ("netplay", "frontend", "lobby", "common", "cores", "tools", "bench", "tests")
SOURCE_ENDINGS = (".h", ".cpp", ".c", ".py", ".sh", ".s", ".inc", ".in")
NOT_SOURCE = re.compile(r"^tests/(fuzz/(corpus|regressions)|fixtures)/")
HEADING = re.compile(r"^###\s+`([^`]+)/`\s*(?::\s*(.*))?$")
ENTRY = re.compile(r"^-\s+`([^`]+)`\s*(?::\s*(.*))?$")


def tracked_files(repo):
    try:
        out = subprocess.run(["git", "-C", repo, "ls-files", "--cached", "--others",
                              "--exclude-standard", *ROOTS],
                             check=True, capture_output=True, text=True).stdout.split("\n")
        files = [f for f in out if f and os.path.exists(os.path.join(repo, f))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root in ROOTS:
            for base, _, names in os.walk(os.path.join(repo, root)):
                files += [os.path.relpath(os.path.join(base, n), repo) for n in names]
    return sorted(f for f in files
                  if f.endswith(SOURCE_ENDINGS) and not NOT_SOURCE.match(f))


def expand(name):
    group = re.search(r"\{([^{}]+)\}", name)
    if not group:
        return [name]
    return [name[:group.start()] + part + name[group.end():] for part in group.group(1).split(",")]


def read_map(repo, breaches):
    """{folder: purpose} and {file: (line, purpose)} from the map section."""
    folders, files = {}, {}
    path = os.path.join(repo, DOC)
    try:
        lines = open(path, encoding="utf-8").read().split("\n")
    except OSError as error:
        breaches.append(f"{DOC}: cannot read it ({error.strerror})")
        return folders, files
    in_map, folder = False, None
    for number, line in enumerate(lines, 1):
        if line.startswith("## "):
            in_map = line.strip() == "## The map"
            continue
        if not in_map:
            continue
        heading = HEADING.match(line)
        if heading:
            folder = heading.group(1)
            if not heading.group(2):
                breaches.append(f"{DOC}:{number}: `{folder}/` has no purpose after it")
            folders[folder] = number
            continue
        entry = ENTRY.match(line)
        if entry and folder:
            if not entry.group(2):
                breaches.append(f"{DOC}:{number}: `{entry.group(1)}` has no purpose after it")
            for name in expand(entry.group(1)):
                files[f"{folder}/{name}"] = number
    if not folders:
        breaches.append(f"{DOC}: no \"## The map\" section with `### \\`folder/\\`` headings")
    return folders, files


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    breaches = []
    folders, mapped = read_map(repo, breaches)
    sources = tracked_files(repo)
    for f in sources:
        if f not in mapped:
            breaches.append(f"{f}  <- missing from the map in {DOC}: add it with its purpose")
    for folder in sorted({os.path.dirname(f) for f in sources}):
        if folder not in folders:
            breaches.append(f"{folder}/  <- a source folder missing from the map in {DOC}")
    for f, number in sorted(mapped.items(), key=lambda item: item[1]):
        if not os.path.isfile(os.path.join(repo, f)):
            breaches.append(f"{DOC}:{number}: `{f}` is not in the tree: remove or rename it")
    for folder, number in sorted(folders.items(), key=lambda item: item[1]):
        if not os.path.isdir(os.path.join(repo, folder)):
            breaches.append(f"{DOC}:{number}: `{folder}/` is not in the tree")
    for line in breaches:
        print(line)
    if breaches:
        return 1
    print(f"architecture map: names all {len(sources)} source files in "
          f"{len(folders)} folders, and nothing else")
    return 0


if __name__ == "__main__":
    sys.exit(main())
