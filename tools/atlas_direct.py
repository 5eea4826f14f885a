#!/usr/bin/env python3
"""The core atlas's verdicts against direct runs: every core docs/cores.json marks safe plays
a rollback session of two real processes through the impairment proxy at 80 ms with 1% loss
(bench_hybrid_sessions --mode rollback --networks 80ms), which must be identical; every core
it marks unsafe names its failing check with the frame and, where the core exposes memory,
the region.

    python3 tools/atlas_direct.py [BUILD_DIR] [--frames 3600] [--only a,b]

Prints a line per core and exits 1 when a direct run disagrees with the atlas.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--atlas", default="docs/cores.json")
    parser.add_argument("--frames", type=int, default=3600)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    cores = json.load(open(args.atlas, encoding="utf-8"))["cores"]
    disagreements = 0
    for core in cores:
        if only and core["name"] not in only:
            continue
        verdict = core["verdict"]
        if verdict == "not-measured":
            print(f"{core['name']:<18} not measured: {core['reason']}")
            continue
        if verdict != "safe":
            failed = [c for c in core["checks"] if c.get("passed") is False]
            first = failed[0] if failed else None
            named = first is not None and ("frame" in first or first["summary"] == "refused")
            disagreements += not named
            where = (f"at frame {first['frame']}" if first and "frame" in first else "")
            region = f" in {first['region']}" if first and first.get("region") else ""
            print(f"{core['name']:<18} {verdict}: {first['name'] if first else '?'} "
                  f"{where}{region}: {first['message'] if first else 'no failing check'}"[:400])
            continue
        command = [os.path.join(args.build, "bench_hybrid_sessions"), "--mode", "rollback",
                   "--networks", "80ms", "--frames", str(args.frames),
                   "--core", core["core"], "--ports", str(core["ports"])]
        if core["content"]:
            command += ["--content", os.path.join(args.build, "roms", core["content"])]
        for option in core["options"]:
            command += ["--option", option]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "figures.json")
            run = subprocess.run(command + ["--json", out], capture_output=True, text=True)
            if run.returncode != 0 or not os.path.exists(out):
                disagreements += 1
                print(f"{core['name']:<18} safe, but the direct run failed:\n{run.stdout}{run.stderr}")
                continue
            f = json.load(open(out))["networks"][0]
        identical = f["hash_logs_identical"]
        disagreements += not identical
        print(f"{core['name']:<18} safe: rollback through the proxy at 80 ms, 1% loss, "
              f"{f['frames']} frames: {'identical' if identical else 'NOT IDENTICAL'}, "
              f"stall frames {f['stall_frames'][0]}, {f['stall_frames'][1]}, corrections p99 "
              f"{f['correction_depth_p99']} deep, {f['correction_time_p99_ms']:.2f} ms")
        sys.stdout.flush()
    print(f"atlas_direct: {'every verdict agrees with its direct run' if not disagreements else f'{disagreements} disagree'}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
