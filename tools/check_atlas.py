#!/usr/bin/env python3
"""The core atlas on this machine agrees with the one in docs/: every core's verdict and its
answer for each session mode, as `framelock atlas --json` measured them here, equal
docs/cores.json's. A check that passed in one run and not in the other without moving a
verdict (desmume's frame-lock session: addresses of its process in its state make its players
differ at a varying frame, or not at all) is printed as a note.

    python3 tools/check_atlas.py docs/cores.json build/atlas.json

Exit 1 and one line per difference, naming the core and both sides' values (with this
machine's finding); a core measured in docs but not here (not installed, its ROM not built)
is a difference too. Exit 0 prints how many cores agreed, and the notes.
"""
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return {core["name"]: core for core in json.load(f)["cores"]}


def main(documented_path, measured_path):
    documented, measured = load(documented_path), load(measured_path)
    differences, notes, checks = [], [], 0
    for name, doc in documented.items():
        here = measured.get(name)
        if here is None:
            differences.append(f"{name}: in {documented_path}, not measured here")
            continue
        if doc["verdict"] != here["verdict"]:
            differences.append(f"{name}: verdict {doc['verdict']} in {documented_path}, "
                               f"{here['verdict']} here ({here['reason']})")
        if doc.get("modes") != here.get("modes"):
            differences.append(f"{name}: modes {doc.get('modes')} in {documented_path}, "
                               f"{here.get('modes')} here")
        here_checks = {c["name"]: c for c in here["checks"]}
        for check in doc["checks"]:
            checks += 1
            other = here_checks.get(check["name"])
            if other is None:
                differences.append(f"{name}: {check['name']} not run here")
            elif other["passed"] != check["passed"]:
                notes.append(
                    f"{name}: {check['name']} {check['summary']!r} in {documented_path}, "
                    f"{other['summary']!r} here: {other['message']}")
    for line in notes:
        print("note: " + line)
    for line in differences:
        print(line)
    if differences:
        print(f"check_atlas: {len(differences)} differences; measure again with "
              f"`framelock atlas --markdown docs/cores.md --json docs/cores.json` if the "
              f"change is meant")
        return 1
    print(f"check_atlas: {len(documented)} cores' verdicts agree with {documented_path} "
          f"({checks - len(notes)} of {checks} checks the same)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
