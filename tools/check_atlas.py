#!/usr/bin/env python3
"""The core atlas on this machine agrees with the one in docs/: every core's verdict, its
answer for each session mode and the core's name and version, as `framelock atlas --json`
measured them here, equal docs/cores.json's.

    python3 tools/check_atlas.py docs/cores.json build/atlas.json [--again build/framelock]

With --again, the cores that moved are measured once more, alone (`framelock atlas --only
...`, two sessions at a time), before anything is called a difference: the atlas plays its
26 sessions side by side on two cores, and a check a loaded machine could not finish (a host
that lost its own server, a session that fell behind) says nothing of the core. A core
whose verdict moves again is a difference. A check that passed in one run and not in the
other without moving a verdict is printed as a note.

Exit 1 and one line per difference, naming the core and both sides' values (with this
machine's finding); a core measured in docs but not here (not installed, its ROM not built)
is a difference too. Exit 0 prints how many cores agreed, and the notes.
"""
import argparse
import json
import os
import subprocess
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return {core["name"]: core for core in json.load(f)["cores"]}


def compare(name, doc, here, documented_path):
    """The differences of one core, and its notes."""
    differences, notes = [], []
    if here is None:
        return [f"{name}: in {documented_path}, not measured here"], []
    for field in ("core_name", "version"):
        if doc.get(field) != here.get(field):
            differences.append(f"{name}: {field} {doc.get(field)!r} in {documented_path}, "
                               f"{here.get(field)!r} here")
    if doc["verdict"] != here["verdict"] or doc.get("modes") != here.get("modes"):
        differences.append(f"{name}: verdict {doc['verdict']} in {documented_path}, "
                           f"{here['verdict']} here ({here['reason']})")
    here_checks = {c["name"]: c for c in here["checks"]}
    for check in doc["checks"]:
        other = here_checks.get(check["name"])
        if other is None:
            differences.append(f"{name}: {check['name']} not run here")
        elif other["passed"] != check["passed"]:
            notes.append(f"{name}: {check['name']} {check['summary']!r} in {documented_path}, "
                         f"{other['summary']!r} here: {other['message']}")
    return differences, notes


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("documented")
    parser.add_argument("measured")
    parser.add_argument("--again", help="framelock, to measure the cores that moved again")
    args = parser.parse_args()
    documented, measured = load(args.documented), load(args.measured)
    results = {name: compare(name, doc, measured.get(name), args.documented)
               for name, doc in documented.items()}
    moved = sorted(name for name, (differences, _) in results.items()
                   if differences and name in measured)
    if moved and args.again:
        again = os.path.splitext(args.measured)[0] + "-again.json"
        print(f"check_atlas: {', '.join(moved)} moved; measuring them again, alone")
        sys.stdout.flush()
        run = subprocess.run([args.again, "atlas", "--only", ",".join(moved), "--sessions", "2",
                              "--json", again, "--work",
                              os.path.join(os.path.dirname(args.measured) or ".", "atlas-again"),
                              "--no-progress"])
        if run.returncode == 0:
            remeasured = load(again)
            for name in moved:
                first, _ = results[name]
                results[name] = compare(name, documented[name], remeasured.get(name),
                                        args.documented)
                if not results[name][0]:
                    results[name][1].append(f"{name}: moved in the first run, not when measured "
                                            f"alone: {'; '.join(first)}")
    differences = [d for ds, _ in results.values() for d in ds]
    notes = [n for _, ns in results.values() for n in ns]
    for line in notes:
        print("note: " + line)
    for line in differences:
        print(line)
    if differences:
        print(f"check_atlas: {len(differences)} differences; measure again with "
              f"`framelock atlas --markdown docs/cores.md --json docs/cores.json` if the "
              f"change is meant")
        return 1
    print(f"check_atlas: {len(documented)} cores' verdicts agree with {args.documented}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
