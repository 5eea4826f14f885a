#!/usr/bin/env python3
"""framelock's benchmark report.

Merges the JSON files bench/run_all.sh wrote into one results.json, draws bench.png
(delay and stalls vs RTT, server capacity vs sessions, bandwidth per mode) and writes
bench.md (the summary table README quotes, then the details), all in the results
directory; --docs DIR writes bench.png and bench.md there too, and --update-readme FILE
replaces the table between FILE's bench-table markers.

    python3 tools/bench_report.py RESULTS_DIR [--docs docs] [--update-readme README.md]

Needs matplotlib for the picture (Debian: python3-matplotlib); without it the JSON and
the tables are still written and the picture is skipped with a note.
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import sys

README_BEGIN = "<!-- bench-table -->"
README_END = "<!-- /bench-table -->"
CAPACITY_P99_LIMIT_MS = 2.0


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def merge(results_dir):
    """Every benchmark file in results_dir (results.json apart), keyed by file stem."""
    benches = {}
    for name in sorted(os.listdir(results_dir)):
        if not name.endswith(".json") or name == "results.json":
            continue
        path = os.path.join(results_dir, name)
        with open(path, encoding="utf-8") as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as e:
                sys.exit(f"bench_report: {path} is not JSON: {e}")
        if not isinstance(data, dict) or "bench" not in data:
            print(f'bench_report: {path} has no "bench" field: not a benchmark\'s, left out')
            continue
        benches[name[: -len(".json")]] = data
    if not benches:
        sys.exit(f"bench_report: no benchmark JSON in {results_dir}: run bench/run_all.sh first")
    run = benches.pop("run", {})  # run_all.sh's own record: when, how, the machine's load
    quick = run.get("quick", any(b.get("quick") for b in benches.values()))
    return {
        "generated_utc": run.get("started_utc")
        or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
        "machine": f"{cpu_model()}, {os.cpu_count()} logical CPUs",
        "loadavg_1min": [run.get("loadavg_1min_start"), run.get("loadavg_1min_end")],
        "commit": run.get("commit"),
        "quick": quick,
        "benches": benches,
    }


def of_kind(results, kind):
    return [(stem, b) for stem, b in results["benches"].items() if b["bench"] == kind]


def one(results, kind):
    found = of_kind(results, kind)
    return found[0][1] if found else None


def num(value, digits=0):
    return f"{value:,.{digits}f}"


def table(rows):
    out = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows[1:]]
    return "\n".join(out)


def summary_table(results):
    rows = [["benchmark", "measured", "reference (same run) / ratio"]]
    for _, h in of_kind(results, "host_overhead"):
        rows.append(
            [
                f"host overhead, {h['core'].replace('_libretro.so', '')}",
                f"framelock {num(h['framelock_frames_per_s'])} frames/s, bare loop "
                f"{num(h['bare_frames_per_s'])}",
                f"ratio {h['ratio']:.3f} (target ≥ {h['target']:.2f})",
            ]
        )
    capacity = one(results, "server_capacity")
    if capacity:
        best = capacity.get("max_sessions_p99_under_2ms")
        point = next((p for p in capacity["points"] if p["sessions"] == best), None)
        first_over = capacity.get("first_sessions_p99_over_2ms")
        base = capacity.get("baseline", {})
        rows.append(
            [
                "server capacity (2-player sessions at 60 fps, one process)",
                (f"{best} sessions with p99 forwarding < 2 ms" if best else
                 "no session count kept p99 forwarding under 2 ms")
                + (
                    f" (p99 {point['p99_ms']:.2f} ms, {point['cpu_per_session_pct']:.2f}% CPU per "
                    "session)"
                    if point
                    else ""
                ),
                f"baseline p50 {base.get('p50_ms', float('nan')):.3f} / p99 "
                f"{base.get('p99_ms', float('nan')):.3f} ms; "
                + (f"p99 over 2 ms from {first_over} sessions" if first_over else "p99 never over 2 ms"),
            ]
        )
    else:
        rows.append(["server capacity", "not measured in this run (no server_capacity.json)", "-"])
    bw = one(results, "bandwidth")
    if bw:
        reference = bw["link_reference_bytes_per_frame"]
        where = f"{bw['rtt_ms']:.0f} ms RTT" if bw["rtt_ms"] > 0 else "direct"
        lock = next((m for m in bw["modes"] if m["mode"] == "framelock"), None)
        for m in bw["modes"]:
            up, down = m["player_up"], m["player_down"]
            versus = (f"link {m['link_bytes_per_frame']:.0f} B/frame both ways, "
                      f"{m['link_vs_reference']:.2f}× RetroArch's {num(reference)} B/frame")
            if lock and m is not lock:
                versus += f"; {up['bytes_per_s'] / lock['player_up']['bytes_per_s']:.2f}× frame lock's upstream"
            rows.append(
                [
                    f"bandwidth per player, {m['mode']} ({where})",
                    f"up {num(up['bytes_per_s'])} B/s, {up['packets_per_s']:.1f} pkt/s; down "
                    f"{num(down['bytes_per_s'])} B/s, {down['packets_per_s']:.1f} pkt/s",
                    versus,
                ]
            )
        spectators = [m for m in bw["modes"] if "spectator_down" in m]
        if spectators:
            rows.append(
                [
                    "spectator downstream",
                    ", ".join(
                        f"{m['mode']} {num(m['spectator_down']['bytes_per_s'])} B/s" for m in spectators
                    ),
                    "-",
                ]
            )
    st = one(results, "state_transfer")
    if st:
        row = next((r for r in st["rows"] if r["state_bytes"] == 1 << 20), st["rows"][-1])
        rows.append(
            [
                f"late join, {row['state_bytes'] // 1024} KiB state, {st['rtt_ms']} ms RTT",
                f"{row['unlimited_s']:.2f} s unlimited, {row['mbit10_s']:.2f} s at 10 Mbit/s",
                f"the bytes alone at 10 Mbit/s {row['floor_mbit10_s']:.2f} s (ratio "
                f"{row['mbit10_s'] / row['floor_mbit10_s']:.2f})",
            ]
        )
    seek = one(results, "replay_seek")
    if seek:
        rows.append(
            [
                f"replay seek, {seek['frames'] / seek['fps'] / 60:.0f}-minute replay "
                f"({seek['keyframes']} keyframes), {len(seek['seeks'])} random frames",
                f"max {seek['seek_max_ms']:.1f} ms (target < 200 ms); "
                f"{seek['hash_mismatches']} states unlike the recording's",
                f"re-running from the start: max {seek['from_start_max_ms']:.1f} ms",
            ]
        )
    export = one(results, "replay_export")
    if export:
        by_file = {e["file"]: e for e in export["exports"]}
        mp4 = by_file.get("match.mp4")
        rows.append(
            [
                f"replay export, {export['frames']} frames of {export['core']}",
                (f"mp4 {mp4['seconds']:.1f} s (goal < {export['mp4_limit_s']:.0f} s)" if mp4 else "-")
                + "; " + ", ".join(f"{e['file']} {e['seconds']:.1f} s" for e in export["exports"]
                                   if e is not mp4),
                f"replay play of it {export['baseline_play_s']:.2f} s",
            ]
        )
    for _, r in of_kind(results, "rollback"):
        rows.append(
            [
                f"rollback, {r['core']}: load + {r['window_frames']} × (save + run)",
                f"median {r['median_ms']:.3f} ms, p99 {r['p99_ms']:.3f} ms",
                f"{r['median_pct_of_frame']:.0f}% / {r['p99_pct_of_frame']:.0f}% of a "
                f"{r['frame_budget_ms']:.2f} ms frame (target < {r['target_pct_of_frame']}%); "
                f"{r['state_handling_ratio']:.2f}× the plain frames",
            ]
        )
    for _, h in of_kind(results, "hybrid_sessions"):
        nets = h["networks"]
        if not nets:
            continue
        rows.append(
            [
                f"hybrid, {os.path.basename(h['core']).replace('_libretro.so', '')}, real processes "
                f"({', '.join(n['network'] for n in nets)})",
                "mean delay " + ", ".join(f"{n['mean_delay']:.2f}" for n in nets)
                + " (path floor " + ", ".join(str(n["path_floor"]) for n in nets) + "); stall "
                f"frames at most {max(max(n['stall_frames']) for n in nets)} in "
                f"{nets[0]['frames']:,}",
                f"corrections p99 at most {max(n['correction_depth_p99'] for n in nets)} deep, "
                f"{max(n['correction_time_p99_ms'] for n in nets):.2f} ms (budget 11, 8.3 ms); "
                + ("hash logs identical" if all(n["hash_logs_identical"] for n in nets)
                   else "HASH LOGS DIFFER"),
            ]
        )
    nd = one(results, "netplay_delay")
    if nd:
        pts = nd["rtt_sweep"]["points"]
        worst = max(pts, key=lambda p: p["mean_delay_frames"] - p["path_floor_frames"])
        stalls = max(p["stall_frames_per_client_after_2s"] for p in pts)
        rows.append(
            [
                f"adaptive delay, RTT {pts[0]['rtt_ms']}–{pts[-1]['rtt_ms']} ms (1% loss, jitter)",
                f"{stalls:.0f} stall frame{'' if stalls == 1 else 's'} per client after 2 s at most "
                f"({nd['rtt_sweep']['frames']:,} frames)",
                f"mean delay − path floor ≤ {worst['mean_delay_frames'] - worst['path_floor_frames']:+.2f} "
                f"frames (at {worst['rtt_ms']} ms; bound +1)",
            ]
        )
    return table(rows)


def detail_tables(results):
    parts = []
    nd = one(results, "netplay_delay")
    if nd:
        for key in ("rtt_sweep", "rtt_sweep_no_loss"):
            sw = nd.get(key)
            if not sw:
                continue
            rows = [["RTT (ms)", "path floor", "mean delay", "delay − floor",
                     "stall frames/client after 2 s", "Kaillera LAN"] +
                    [f"fixed {f['delay']}" for f in sw["points"][0]["fixed"]]]
            for p in sw["points"]:
                rows.append([p["rtt_ms"], p["path_floor_frames"], f"{p['mean_delay_frames']:.2f}",
                             f"{p['mean_delay_frames'] - p['path_floor_frames']:+.2f}",
                             f"{p['stall_frames_per_client_after_2s']:.1f}",
                             p["kaillera_lan_frames"]] +
                            [">10×" if f["over_ten_times_budget"]
                             else f"{f['stall_frames_per_client_after_2s']:.0f}" for f in p["fixed"]])
            parts.append(f"### Delay vs the path floor, {sw['loss'] * 100:.0f}% loss\n\n"
                         f"`bench_netplay_delay`: 2 clients on the simulated network, "
                         f"{sw['frames']:,} frames per point, one-way jitter ± (2 ms + RTT/20). "
                         "The path floor is the smallest delay with which an ideal pipeline "
                         "never stalls on the same trace; the fixed-delay columns give stall "
                         "frames per client after 2 s on that trace (>10×: ten times the 0.1% "
                         "budget, cut short).\n\n" + table(rows))
        for t in nd.get("impaired", []):
            rows = [["policy", "mean delay", "stall frames/client after 2 s"],
                    ["path floor (never stalls / within the budget)",
                     f"{t['path_floor_frames']} / {t['path_floor_within_budget_frames']}", ""],
                    ["adaptive", f"{t['adaptive_mean_delay']:.2f}",
                     f"{t['adaptive_stall_frames_per_client']:.1f}"],
                    ["hybrid", f"{t['hybrid_mean_delay']:.2f}",
                     f"{t['hybrid_stall_frames_per_client']:.1f} (corrections p99 "
                     f"{t['hybrid_correction_depth_p99']} deep)"]]
            for f in t["fixed"]:
                rows.append([f"fixed {f['delay']}", f["delay"],
                             "> 10× budget" if f["over_ten_times_budget"]
                             else f"{f['stall_frames_per_client_after_2s']:.1f}"])
            verdict = ("within" if t["adaptive_within_fixed_plus_half"] else "OVER")
            parts.append(f"### {t['trace']}\n\n`bench_netplay_delay` (section 4, `--traces`): "
                         "2 clients, 36,000 frames; the link "
                         f"{t['adaptive_link_bytes_per_frame']:.0f} B/frame both ways "
                         "(adaptive). The adaptive mean delay against the smallest fixed delay "
                         f"within the 0.1% stall budget ({t['smallest_fixed_within_budget']}) + "
                         f"0.5: {verdict}.\n\n" + table(rows))
    for _, h in of_kind(results, "hybrid_sessions"):
        rows = [["network", "mean delay", "highest", "path floor (frame lock)", "stall frames",
                 "corrections p99 deep", "re-run p99 ms", "hash logs identical", "within budget"]]
        for n in h["networks"]:
            rows.append([f"{n['network']}: {n['what']}", f"{n['mean_delay']:.2f}", n["max_delay"],
                         n["path_floor"], ", ".join(str(s) for s in n["stall_frames"]),
                         n["correction_depth_p99"], f"{n['correction_time_p99_ms']:.2f}",
                         "yes" if n["hash_logs_identical"] else "NO",
                         "yes" if n["within_budget"] else "NO"])
        core = os.path.basename(h["core"]).replace("_libretro.so", "")
        content = f" on {os.path.basename(h['content'])}" if h.get("content") else ""
        frames = h["networks"][0]["frames"] if h["networks"] else 0
        parts.append(f"### The hybrid on real processes, {core}\n\n`bench_hybrid_sessions`: "
                     f"`framelock server --mode hybrid` and two `framelock join` bots{content}, "
                     f"{frames:,} frames per network, through `framelock_netem`; the delay from "
                     f"frame {h['settled_from_frame']} on. Budget: mean delay ≤ 2, corrections "
                     "p99 ≤ 11 frames deep and re-run within 8.3 ms, stall frames ≤ 0.1%, hash "
                     "logs identical.\n\n" + table(rows))
    capacity = one(results, "server_capacity")
    if capacity:
        rows = [["sessions", "clients", "sustained", "stall frames", "server CPU %",
                 "CPU per session %", "load generator CPU %", "p50 ms", "p99 ms", "updates/s"]]
        for p in capacity["points"]:
            rows.append([p["sessions"], p["clients"], "yes" if p["sustained"] else "NO",
                         p["stall_frames"], f"{p['server_cpu_pct']:.1f}",
                         f"{p['cpu_per_session_pct']:.2f}", f"{p['loadgen_cpu_pct']:.1f}",
                         f"{p['p50_ms']:.3f}", f"{p['p99_ms']:.3f}", num(p["updates_per_s"])])
        base = capacity.get("baseline", {})
        parts.append(f"### Server capacity\n\n`bench_server_capacity`: {capacity['seconds_per_point']} s "
                     f"per point at {capacity['frame_rate']} fps; baseline ({base.get('what', '-')}) "
                     f"p50 {base.get('p50_ms', float('nan')):.3f} ms, p99 "
                     f"{base.get('p99_ms', float('nan')):.3f} ms.\n\n" + table(rows))
    bw = one(results, "bandwidth")
    if bw:
        rows = [["mode", "direction", "wire B/s", "datagrams/s", "payload B/s", "ENet headers B/s",
                 "UDP/IP headers B/s", "payload B/frame"]]
        for m in bw["modes"]:
            for label, key in (("player up", "player_up"), ("player down", "player_down"),
                               ("spectator down", "spectator_down")):
                if key not in m:
                    continue
                f = m[key]
                rows.append([m["mode"], label, num(f["bytes_per_s"]), f"{f['packets_per_s']:.1f}",
                             num(f["payload_bytes_per_s"]), num(f["enet_header_bytes_per_s"]),
                             num(f["udp_ip_header_bytes_per_s"]),
                             f"{f['payload_bytes_per_s'] / bw['frame_rate']:.1f}"])
        where = (f"through the impairment proxy at {bw['rtt_ms']:.0f} ms RTT ± {bw['jitter_ms']:.0f} ms"
                 if bw["rtt_ms"] > 0 else "directly")
        checks = [m["cross_check"] for m in bw["modes"] if "cross_check" in m]
        check = ""
        if checks:
            shares = [c["clients_sent_datagrams"] / c["proxy_up_datagrams"] for c in checks
                      if c["proxy_up_datagrams"]]
            shares += [c["clients_received_datagrams"] / c["proxy_down_datagrams"] for c in checks
                       if c["proxy_down_datagrams"]]
            if shares:
                check = (" The proxy counts every datagram it forwards on its own: the clients' "
                         f"counters hold {min(shares):.3f} to {max(shares):.3f} of them (they stop "
                         "counting at the last frame; the proxy also sees the goodbyes).")
        parts.append(f"### Bandwidth per player\n\n`bench_bandwidth`: `framelock server`, two "
                     f"`framelock join` bots and a spectator on 127.0.0.1, {where}, "
                     f"{bw['seconds_per_mode']:.0f} s per mode; the players' mean, over the "
                     "running phase; wire bytes include 28 bytes of UDP/IP per datagram."
                     + check + "\n\n" + table(rows))
    st = one(results, "state_transfer")
    if st:
        rows = [["state", "unlimited", "50 Mbit/s", "10 Mbit/s", "the bytes alone, twice, at 10 Mbit/s"]]
        for r in st["rows"]:
            rows.append([f"{r['state_bytes'] // 1024:,} KiB", f"{r['unlimited_s']:.3f} s",
                         f"{r['mbit50_s']:.3f} s", f"{r['mbit10_s']:.3f} s",
                         f"{r['floor_mbit10_s']:.3f} s"])
        parts.append(f"### State transfer vs state size\n\n`bench_state_transfer`: late join into a "
                     f"running 2-player session, {st['rtt_ms']} ms RTT, incompressible state, "
                     "connect to running.\n\n" + table(rows))
    return "\n\n".join(parts)


def render_markdown(results, details=""):
    when = f"{results['generated_utc']} UTC on {results['machine']}"
    kind = "a quick run (`--quick`)" if results["quick"] else "a full run"
    start, end = results["loadavg_1min"]
    load = (f" (1-minute load average {start} at the start, {end} at the end)"
            if start is not None and end is not None else "")
    commit = f" at commit `{results['commit']}`" if results.get("commit") else ""
    head = (f"Measured {when}{load}, {kind} of `bash bench/run_all.sh build`{commit}; every ratio "
            f"compares with a figure measured in the same run.{details}\n\n")
    return head + summary_table(results)


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench_report: matplotlib missing (Debian: python3-matplotlib): no picture")
        return False
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    title = "framelock benchmarks, " + results["generated_utc"] + " UTC"
    if results["quick"]:
        title += " (quick run)"
    fig.suptitle(title)

    ax = axes[0]
    nd = one(results, "netplay_delay")
    if nd:
        pts = nd["rtt_sweep"]["points"]
        rtt = [p["rtt_ms"] for p in pts]
        ax.plot(rtt, [p["mean_delay_frames"] for p in pts], "o-", label="adaptive delay (mean)")
        ax.plot(rtt, [p["path_floor_frames"] for p in pts], "s--", label="path floor")
        ax.plot(rtt, [r * nd["rtt_sweep"]["frame_rate"] / 1000 for r in rtt], ":", color="grey",
                label="RTT in frames")
        ax.set_xlabel("round trip (ms), 1% loss, jitter")
        ax.set_ylabel("input delay (frames)")
        twin = ax.twinx()
        twin.bar(rtt, [p["stall_frames_per_client_after_2s"] for p in pts], width=8, alpha=0.35,
                 color="tab:red", label="stall frames/client after 2 s")
        twin.set_ylabel("stall frames per client")
        twin.set_ylim(bottom=0, top=max(10, 1.2 * max(p["stall_frames_per_client_after_2s"] for p in pts)))
        lines, labels = ax.get_legend_handles_labels()
        l2, lb2 = twin.get_legend_handles_labels()
        ax.legend(lines + l2, labels + lb2, loc="upper left", fontsize=8)
        ax.set_title(f"delay and stalls vs RTT ({nd['rtt_sweep']['frames']:,} frames, 2 clients)")
    else:
        ax.text(0.5, 0.5, "netplay_delay.json absent", ha="center", transform=ax.transAxes)

    ax = axes[1]
    capacity = one(results, "server_capacity")
    if capacity and capacity.get("points"):
        pts = capacity["points"]
        n = [p["sessions"] for p in pts]
        ax.plot(n, [p["p50_ms"] for p in pts], "o-", label="p50 added latency")
        ax.plot(n, [p["p99_ms"] for p in pts], "s-", label="p99 added latency")
        ax.axhline(CAPACITY_P99_LIMIT_MS, color="grey", ls=":", label="2 ms")
        ax.set_xlabel("2-player sessions on one server process")
        ax.set_ylabel("forwarding latency (ms)")
        ax.set_xscale("log", base=2)
        ax.set_xticks(n)
        ax.set_xticklabels([str(v) for v in n])
        ax.minorticks_off()
        twin = ax.twinx()
        twin.plot(n, [p["cpu_per_session_pct"] for p in pts], "^--", color="tab:green",
                  label="server CPU per session (%)")
        twin.set_ylabel("server CPU per session (% of a core)")
        twin.set_ylim(bottom=0)
        lines, labels = ax.get_legend_handles_labels()
        l2, lb2 = twin.get_legend_handles_labels()
        ax.legend(lines + l2, labels + lb2, loc="best", fontsize=8)
        ax.set_title("server capacity vs sessions")
    else:
        ax.set_axis_off()
        ax.text(0.5, 0.5, "server capacity not measured in this run\n(no server_capacity.json: "
                "bench_server_capacity\nnot built or not run)", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_title("server capacity vs sessions")

    ax = axes[2]
    bw = one(results, "bandwidth")
    if bw:
        labels, payload, enet, udp = [], [], [], []
        for m in bw["modes"]:
            for label, key in (("up", "player_up"), ("down", "player_down"),
                               ("spect.", "spectator_down")):
                if key in m:
                    f = m[key]
                    labels.append(f"{m['mode']}\n{label}")
                    payload.append(f["payload_bytes_per_s"])
                    enet.append(f["enet_header_bytes_per_s"])
                    udp.append(f["udp_ip_header_bytes_per_s"])
        x = range(len(labels))
        ax.bar(x, payload, label="payload")
        ax.bar(x, enet, bottom=payload, label="ENet headers")
        ax.bar(x, udp, bottom=[a + b for a, b in zip(payload, enet)], label="UDP/IP headers")
        ax.axhline(bw["link_reference_bytes_per_frame"] * bw["frame_rate"] / 2, color="grey",
                   ls=":", label="RetroArch's link, per direction")
        ax.set_xticks(list(x))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel("bytes/s per player on the wire")
        ax.legend(fontsize=8)
        ax.set_title(f"bandwidth per player ({bw['rtt_ms']:.0f} ms RTT)")
    else:
        ax.text(0.5, 0.5, "bandwidth.json absent", ha="center", transform=ax.transAxes)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def update_readme(path, text):
    with open(path, encoding="utf-8") as f:
        readme = f.read()
    pattern = re.compile(re.escape(README_BEGIN) + ".*?" + re.escape(README_END), re.S)
    if not pattern.search(readme):
        sys.exit(f"bench_report: {path} has no {README_BEGIN} ... {README_END} markers")
    replaced = pattern.sub(lambda _: f"{README_BEGIN}\n\n{text}\n\n{README_END}", readme, count=1)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(replaced)
    os.replace(path + ".tmp", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results_dir", help="the directory bench/run_all.sh wrote its JSON to")
    parser.add_argument("--docs", help="also write bench.png and bench.md to this directory")
    parser.add_argument("--update-readme", metavar="FILE",
                        help=f"replace the table between {README_BEGIN} and {README_END}")
    args = parser.parse_args()

    results = merge(args.results_dir)
    with open(os.path.join(args.results_dir, "results.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    quoted = render_markdown(results, " Details and chart: `docs/bench.md`, `docs/bench.png`.")
    markdown = ("# framelock benchmarks\n\n" + render_markdown(results)
                + "\n\n![benchmarks](bench.png)\n\n"
                + detail_tables(results) + "\n")
    with open(os.path.join(args.results_dir, "bench.md"), "w", encoding="utf-8") as f:
        f.write(markdown)
    png = os.path.join(args.results_dir, "bench.png")
    drawn = plot(results, png)
    written = ["results.json", "bench.md"] + (["bench.png"] if drawn else [])
    print(f"bench_report: wrote {', '.join(os.path.join(args.results_dir, w) for w in written)}")
    if args.docs:
        shutil.copyfile(os.path.join(args.results_dir, "bench.md"), os.path.join(args.docs, "bench.md"))
        if drawn:
            shutil.copyfile(png, os.path.join(args.docs, "bench.png"))
        print(f"bench_report: wrote {args.docs}/bench.md" + (f", {args.docs}/bench.png" if drawn else ""))
    if args.update_readme:
        update_readme(args.update_readme, quoted)
        print(f"bench_report: updated the table in {args.update_readme}")
    print()
    print(quoted)


if __name__ == "__main__":
    main()
