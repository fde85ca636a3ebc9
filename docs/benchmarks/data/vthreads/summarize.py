#!/usr/bin/env python3
"""The docs/benchmarks.md table from run.sh's JMH JSON files (one file per round).

usage: summarize.py FILE.json...
For each benchmark and parallelism: the median (and min-max) of every measured iteration of
every round for each scheduler, and the median (and min-max) over rounds of the round's
gmp/default ratio of per-round medians. sleep10k's secondary counters give the carrier threads
alive after an operation (JMH sums EVENTS counters over iterations: divided back here).
"""
import collections
import json
import statistics
import sys


def load(files):
    runs = collections.defaultdict(lambda: collections.defaultdict(dict))
    for f in files:
        for r in json.load(open(f)):
            name = r["benchmark"].rsplit(".", 1)[1]
            p = r["params"]
            vals = [v for fork in r["primaryMetric"]["rawData"] for v in fork]
            sec = {k: sum(v for fork in m["rawData"] for v in fork)
                   for k, m in r.get("secondaryMetrics", {}).items()}
            runs[(name, int(p["parallelism"]))][f][p["scheduler"]] = (
                vals, r["primaryMetric"]["scoreUnit"], sec)
    return runs


def rng(xs, fmt):
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"


def main(files):
    print("| benchmark | p | gmp: median (min-max) | default: median (min-max) | unit |"
          " gmp / default per round: median (min-max) | rounds |")
    print("|---|--:|--:|--:|---|--:|--:|")
    carriers = []
    for (name, p), by_file in sorted(load(files).items()):
        g_all, d_all, ratios, unit = [], [], [], ""
        for f, by in by_file.items():
            if "gmp" not in by or "default" not in by:
                continue
            g, unit, gs = by["gmp"]
            d, _, ds = by["default"]
            g_all += g
            d_all += d
            ratios.append(statistics.median(g) / statistics.median(d))
            for s, sec, n in (("gmp", gs, len(g)), ("default", ds, len(d))):
                if sec.get("sleepOps"):
                    carriers.append((s, sec["carrierThreads"] / sec["sleepOps"],
                                     sec["peakCarriers"] / n))
        if not ratios:
            continue
        print(f"| {name} | {p} | {rng(g_all, '{:.4g}')} | {rng(d_all, '{:.4g}')} | {unit} |"
              f" {rng(ratios, '{:.2f}')} | {len(ratios)} |")
    for s in ("gmp", "default"):
        xs = [c for c in carriers if c[0] == s]
        if xs:
            print(f"\nsleep10k, {s}: carrier threads alive after an operation, per round"
                  f" (mean, peak): " + ", ".join(f"{m:.1f}/{pk:.0f}" for _, m, pk in xs))


if __name__ == "__main__":
    main(sys.argv[1:])
