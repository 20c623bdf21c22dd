#!/usr/bin/env python3
"""Plot tcnum_bench results: the bit-exact GEMM's speed as a share of Eigen's float GEMM.

Usage: tools/plot_bench.py RESULTS.json OUT.png
RESULTS.json is Google Benchmark's --benchmark_out (with --benchmark_repetitions, the medians
are used; a .json.gz is read as well). The share is Eigen's CPU time over the oracle's CPU time
for the same size, from the same run (the `cpu_vs_eigen_float` counter): one bar per (size,
threads) the file holds, and issue 22's goals as lines (25 % for the Hopper-era classes, 10 %
for the others).
"""
import gzip
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    opener = gzip.open if sys.argv[1].endswith(".gz") else open
    try:
        with opener(sys.argv[1], "rt", encoding="utf-8") as f:
            runs = json.load(f)["benchmarks"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"plot_bench: {sys.argv[1]} is not Google Benchmark's JSON output: {e}", file=sys.stderr)
        return 2
    rows = {}
    for b in runs:
        name = b["name"]
        if not name.startswith("Gemm/") or "reference:0" not in name:
            continue
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        parts = dict(p.split(":") for p in name.split("/")[2:] if ":" in p)
        config = name.split("/")[1]
        key = (config, int(parts["size"]), int(parts["threads"]))
        rows[key] = 100.0 / b["cpu_vs_eigen_float"]
    if not rows:
        print(f"plot_bench: no Gemm/... reference:0 results in {sys.argv[1]}", file=sys.stderr)
        return 2
    configs = sorted({k[0] for k in rows})
    series = sorted({k[1:] for k in rows}, key=lambda st: (st[1] != 1, st[0], st[1]))
    fig, ax = plt.subplots(figsize=(max(9, 0.55 * len(configs)), 4.5))
    width = 0.8 / len(series)
    for n, (size, threads) in enumerate(series):
        xs = [i + (n - (len(series) - 1) / 2) * width for i in range(len(configs))]
        label = f"{size}³, " + ("1 thread" if threads == 1 else "all threads" if threads == 0 else f"{threads} threads")
        ax.bar(xs, [rows.get((c, size, threads), 0) for c in configs], width, label=label)
    ax.axhline(25, color="black", linestyle="--", linewidth=1, label="goal, Hopper-era classes: 25 %")
    ax.axhline(10, color="grey", linestyle=":", linewidth=1, label="goal, other classes: 10 %")
    ax.set_xticks(range(len(configs)))
    ax.set_xticklabels(configs, rotation=35, ha="right", fontsize=7)
    ax.set_ylabel("% of Eigen float GEMM speed (CPU time)")
    ax.set_title("tcnum bit-exact GEMM vs Eigen float GEMM (-O3 -march=native), same run")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
