#!/usr/bin/env python3
"""Plot `numprobe chain` results like Sun et al.'s Fig. 17 (chain matrix multiplication).

Reads per-trial CSVs (numprobe chain --out) or summary CSVs (--summary), and writes
PREFIX.png and PREFIX.svg: mean relative L2 error (their equation 1) against the chain
length N, log scale, one line per dtype x init (x instruction where several are given);
left panel against the FP32 CPU chain (the paper's baseline), right panel against the exact
(MPFR) chain. Means are over the trials whose D_N is finite. A line is solid while every
trial is finite, dotted once some trials have overflowed (the paper's mean over all trials
stops there), and ends where more than half have; an 'x' marks the first N with an overflow.

Needs matplotlib (Debian: apt-get install python3-matplotlib; run with /usr/bin/python3).

  tools/plot_chain.py docs/chain/a100-summary.csv -o docs/chain/a100 --title "A100 model (sm_80)"
"""
import argparse
import csv
import math
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"tf32": "tab:blue", "bf16": "tab:orange", "fp16": "tab:green", "e4m3": "tab:red", "e5m2": "tab:purple"}
# wgmma (or any second family) lines get a darker shade of their dtype's colour
DARK = {"tf32": "navy", "bf16": "saddlebrown", "fp16": "darkgreen", "e4m3": "darkred", "e5m2": "indigo"}
# fp16 is drawn hollow and larger: with the same draws it lies on top of tf32 until it overflows
DTYPE_MARKER = {"tf32": ("o", 3.5, True), "bf16": ("s", 3.5, True), "fp16": ("o", 7, False),
                "e4m3": ("^", 4, True), "e5m2": ("v", 4, True)}
DTYPE_ORDER = ["tf32", "bf16", "fp16", "e4m3", "e5m2"]
INIT_STYLE = {"low": "-", "fp32": "--"}
SCALING_STYLE = {"amax": "-", "pow2": "--", "none": ":"}  # when one figure compares scalings


def fnum(s):
    try:
        return float(s)
    except ValueError:
        return math.nan


def load(paths):
    """Returns {(dtype, init, instr, scaling): {n: point}} with mean errors and overflow fraction."""
    series = defaultdict(dict)
    for path in paths:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        if not rows:
            continue
        if "mean_rel_err_fp32" in rows[0]:  # summary CSV
            for r in rows:
                key = (r["dtype"], r["init"], r["instr"], r.get("scaling", "none"))
                series[key][int(r["n"])] = {
                    "fp32": fnum(r["mean_rel_err_fp32"]),
                    "exact": fnum(r["mean_rel_err_exact"]),
                    "overflow": float(r["overflow_fraction"]),
                }
            continue
        acc = defaultdict(lambda: {"fp32": [], "exact": [], "trials": 0, "overflowed": 0})
        for r in rows:  # per-trial CSV
            key = (r["dtype"], r["init"], r["instr"], r.get("scaling", "none"))
            a = acc[(key, int(r["n"]))]
            a["trials"] += 1
            if r["overflow"] == "1":
                a["overflowed"] += 1
                continue
            for ref in ("fp32", "exact"):
                v = fnum(r["rel_err_" + ref])
                if math.isfinite(v):
                    a[ref].append(v)
        for (key, n), a in acc.items():
            series[key][n] = {
                "fp32": sum(a["fp32"]) / len(a["fp32"]) if a["fp32"] else math.nan,
                "exact": sum(a["exact"]) / len(a["exact"]) if a["exact"] else math.nan,
                "overflow": a["overflowed"] / a["trials"],
            }
    return series


def label_of(key, many_instr, many_scaling):
    dtype, init, instr, scaling = key
    text = f"{dtype}, init {init}"
    if many_instr:
        text += f", {instr.split('.')[0]} {instr.split('.')[1]}"
    if many_scaling:
        text += f", scaling {scaling}"
    return text


def sort_key(k):
    return (DTYPE_ORDER.index(k[0]) if k[0] in DTYPE_ORDER else 99, k[2], k[1], k[3])


def plot(series, prefix, title, ymax=None):
    keys = sorted(series, key=sort_key)
    many_instr = len({k[2].split(".")[0] + k[2].split(".")[1] for k in keys}) > 1
    many_scaling = len({k[3] for k in keys}) > 1
    families = sorted({k[2].split(".")[0] for k in keys})
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), sharey=True)
    for ax, ref, name in zip(axes, ("fp32", "exact"), ("vs FP32 CPU chain (paper's baseline)", "vs exact chain (MPFR)")):
        for k in keys:
            pts = series[k]
            ns = sorted(pts)
            solid_x, solid_y, dot_x, dot_y = [], [], [], []
            first_overflow = None
            for n in ns:
                p = pts[n]
                if p["overflow"] > 0 and first_overflow is None:
                    first_overflow = n
                if p["overflow"] > 0.5 or not math.isfinite(p[ref]) or p[ref] <= 0:
                    continue
                if first_overflow is None:
                    solid_x.append(n)
                    solid_y.append(p[ref])
                else:
                    dot_x.append(n)
                    dot_y.append(p[ref])
            second = families.index(k[2].split(".")[0]) > 0
            color = (DARK if second else COLORS).get(k[0], "black")
            style = SCALING_STYLE.get(k[3], "-") if many_scaling else INIT_STYLE.get(k[1], "-")
            marker, size, filled = DTYPE_MARKER.get(k[0], ("o", 3.5, True))
            face = color if filled and not second else "none"
            if second:  # drawn hollow and larger on top: mma and wgmma curves often coincide
                size *= 1.8
            ax.plot(solid_x, solid_y, style, color=color, marker=marker, markersize=size, markerfacecolor=face,
                    label=label_of(k, many_instr, many_scaling))
            if dot_x:
                xs = solid_x[-1:] + dot_x
                ys = solid_y[-1:] + dot_y
                ax.plot(xs, ys, ":", color=color, marker=marker, markersize=size * 0.7, markerfacecolor=face,
                        alpha=0.7)
            if first_overflow is not None:
                y = pts[first_overflow][ref] if math.isfinite(pts[first_overflow][ref]) else (solid_y or [1])[-1]
                ax.plot([first_overflow], [y], "x", color=color, markersize=10, markeredgewidth=2)
                if k[1] == "low":
                    ax.annotate(f"{k[0]}: first Inf at N={first_overflow} ({100 * pts[first_overflow]['overflow']:.1f}%"
                                " of trials);\ndotted: mean of finite trials", (first_overflow, y),
                                textcoords="offset points", xytext=(8, -22), fontsize=7, color=color)
        ax.set_yscale("log")
        if ymax:
            ax.set_ylim(top=ymax)
        ax.set_xlabel("chain length N")
        ax.set_title(name, fontsize=10)
        ax.grid(True, which="major", alpha=0.4)
        ax.grid(True, which="minor", alpha=0.1)
        ax.set_xticks(range(0, max(max(series[k]) for k in keys) + 1, 2))
    axes[0].set_ylabel("mean relative L2 error (eq. 1)")
    axes[0].legend(fontsize=7.5, loc="lower right")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{prefix}.{ext}", dpi=130, metadata={"Date": None} if ext == "svg" else None)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="numprobe chain per-trial or summary CSV files")
    ap.add_argument("-o", "--out", required=True, help="output prefix: writes PREFIX.png and PREFIX.svg")
    ap.add_argument("--title", default="Chain matrix multiplication (Sun et al. Fig. 17 set-up)")
    ap.add_argument("--dtype", action="append", help="only these dtypes (repeatable)")
    ap.add_argument("--init", action="append", help="only these initialisations (repeatable)")
    ap.add_argument("--ymax", type=float, help="upper limit of the error axis")
    ap.add_argument("--table", default="", help="also print a markdown table of the means at these N (e.g. 1,5,10,20)")
    args = ap.parse_args(argv)
    series = load(args.csv)
    if args.dtype:
        series = {k: v for k, v in series.items() if k[0] in args.dtype}
    if args.init:
        series = {k: v for k, v in series.items() if k[1] in args.init}
    if not series:
        sys.exit("plot_chain: no data")
    plot(series, args.out, args.title, args.ymax)
    print(f"wrote {args.out}.png and {args.out}.svg")
    if args.table:
        print_table(series, [int(n) for n in args.table.split(",")])


def print_table(series, ns):
    """Markdown: one row per series, 'vs fp32 / vs exact' mean errors at each N ('overflow' past 50%)."""
    print("| dtype | init | instr | scaling | " + " | ".join(f"N = {n}" for n in ns) + " |")
    print("|---|---|---|---|" + "---|" * len(ns))
    for k in sorted(series, key=sort_key):
        cells = []
        for n in ns:
            p = series[k].get(n)
            if p is None:
                cells.append("")
            elif p["overflow"] > 0.5 or not math.isfinite(p["fp32"]):
                cells.append(f"overflow ({100 * p['overflow']:.0f}%)")
            else:
                extra = f" ({100 * p['overflow']:.1f}% ovf)" if p["overflow"] > 0 else ""
                cells.append(f"{p['fp32']:.3e} / {p['exact']:.3e}{extra}")
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
