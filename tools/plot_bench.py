#!/usr/bin/env python3
"""Plot tcnum_bench results: the bit-exact GEMM's speed as a share of Eigen's float GEMM.

Usage: tools/plot_bench.py RESULTS.json OUT.png
RESULTS.json is Google Benchmark's --benchmark_out (with --benchmark_repetitions, the medians
are used). The share is Eigen's CPU time over the oracle's CPU time for the same size, from the
same run (the `cpu_vs_eigen_float` counter), for one thread and every thread.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        runs = json.load(f)["benchmarks"]
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
    configs = sorted({k[0] for k in rows})
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.25
    for n, (size, threads, label) in enumerate([(512, 1, "512³, 1 thread"), (1024, 1, "1024³, 1 thread"),
                                                  (1024, 0, "1024³, all threads")]):
        xs = [i + (n - 1) * width for i in range(len(configs))]
        ax.bar(xs, [rows.get((c, size, threads), 0) for c in configs], width, label=label)
    ax.axhline(10, color="black", linestyle="--", linewidth=1, label="goal: 10% of Eigen per core")
    ax.set_xticks(range(len(configs)))
    ax.set_xticklabels(configs, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("% of Eigen float GEMM speed (CPU time)")
    ax.set_title("tcnum bit-exact GEMM vs Eigen float GEMM (-O3 -march=native), same run")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
