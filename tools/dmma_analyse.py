#!/usr/bin/env python3
"""Decides what f64 DMMA computes from tcnum_dmma_probe's raw tiles (probes/dmma_probe.cu).

Usage: tools/dmma_analyse.py DIR [--models a,b] [--corpus OUTDIR --keep N]

For every DIR/<instruction>.f64 it evaluates each output element under candidate models,
exactly (fractions), and prints how many device results each reproduces bit for bit:
  fma_chain     d = c; d = fma(a_k, b_k, d) for k = 0..K-1 (IEEE f64, round to nearest even)
  fma_reverse   the same chain, k = K-1..0
  fused         c + every product summed exactly, one rounding to nearest even
  fused_k4      fused over each k-step of 4 (sm_80's m8n8k4 shape), chained in k order
  pairs_fused   products summed exactly per pair, then the pairs and C as an fma_chain of sums
With --corpus, writes OUTDIR/<instruction>.tcf64.gz: the first N cases as corpus-style lines
"sm_90 <instruction> <A> <B> <C> <D>" with 16 hex digits per f64 (docs/corpus-format.md).
"""
from __future__ import annotations

import argparse
import gzip
import math
import os
import re
import struct
import sys
from fractions import Fraction

import numpy as np

SHAPE = re.compile(r"mma\.m(\d+)n(\d+)k(\d+)\.f64\.f64\.f64\.f64$")


def rnd(x: Fraction, zero_negative: bool) -> float:
    """x rounded to nearest even f64 (overflow to ±Inf); an exact zero gets the given sign."""
    if x == 0:
        return -0.0 if zero_negative else 0.0
    try:
        return float(x)  # int/int true division: correctly rounded, ties to even
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def special_sum(terms: list[float]) -> float | None:
    """IEEE result when a term is Inf or NaN (products given as floats): NaN, or the Inf."""
    if any(math.isnan(t) for t in terms):
        return math.nan
    infs = [t for t in terms if math.isinf(t)]
    if not infs:
        return None
    return math.nan if (math.inf in infs and -math.inf in infs) else infs[0]


def product(a: float, b: float) -> float | Fraction:
    """The exact product, or the IEEE special (NaN, ±Inf) when an operand is not finite."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if math.isinf(a) or math.isinf(b):
        return math.nan if (a == 0 or b == 0) else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return Fraction(a) * Fraction(b)


def neg_zero_product(a: float, b: float) -> bool:
    return (math.copysign(1.0, a) * math.copysign(1.0, b)) < 0


def fused(c: float, pairs: list[tuple[float, float]]) -> float:
    prods = [product(a, b) for a, b in pairs]
    sp = special_sum([p for p in prods if isinstance(p, float)] + ([c] if not math.isfinite(c) else []))
    if sp is not None:
        return sp
    total = Fraction(c) + sum(prods, Fraction(0))
    all_neg_zero = math.copysign(1.0, c) < 0 and c == 0 and all(
        p == 0 and neg_zero_product(a, b) for p, (a, b) in zip(prods, pairs))
    return rnd(total, all_neg_zero)


def fma(a: float, b: float, c: float) -> float:
    p = product(a, b)
    if isinstance(p, float) or not math.isfinite(c):
        sp = special_sum(([p] if isinstance(p, float) else []) + ([c] if not math.isfinite(c) else []))
        if sp is not None:
            return sp
    total = p + Fraction(c)
    neg = p == 0 and c == 0 and neg_zero_product(a, b) and math.copysign(1.0, c) < 0
    return rnd(total, neg)


def fma_chain(c, pairs):
    d = c
    for a, b in pairs:
        d = fma(a, b, d)
    return d


def models():
    return {
        "fma_chain": fma_chain,
        "fma_reverse": lambda c, p: fma_chain(c, p[::-1]),
        "fused": fused,
        "fused_k4": lambda c, p: _chain_blocks(c, p, 4),
        "pairs_fused": lambda c, p: _chain_blocks(c, p, 2),
    }


def _chain_blocks(c, pairs, size):
    d = c
    for s in range(0, len(pairs), size):
        d = fused(d, pairs[s:s + size])
    return d


def same(x: float, y: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return struct.pack("<d", x) == struct.pack("<d", y)


def tiles(path: str, m: int, n: int, k: int):
    raw = np.fromfile(path, dtype="<f8")
    per = m * k + n * k + 2 * m * n
    if raw.size % per:
        sys.exit(f"{path}: size is not a whole number of tiles")
    for t in range(raw.size // per):
        x = raw[t * per:(t + 1) * per]
        a = x[:m * k].reshape(m, k)
        b = x[m * k:m * k + n * k].reshape(n, k)
        c = x[m * k + n * k:m * k + n * k + m * n].reshape(m, n)
        d = x[m * k + n * k + m * n:].reshape(m, n)
        yield t, a, b, c, d


def hexes(values) -> str:
    return "".join(f"{struct.unpack('<Q', struct.pack('<d', float(v)))[0]:016x}" for v in values)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--corpus", help="write the first --keep cases of each instruction here")
    ap.add_argument("--keep", type=int, default=2000)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--models", default=",".join(models()), help="comma-separated candidates (default: all)")
    args = ap.parse_args()
    files = sorted(f for f in os.listdir(args.dir) if f.endswith(".f64"))
    if not files:
        print(f"{args.dir}: no .f64 files", file=sys.stderr)
        return 2
    chosen = {key: fn for key, fn in models().items() if key in args.models.split(",")}
    if not chosen:
        print(f"--models: none of {args.models!r}; valid: {', '.join(models())}", file=sys.stderr)
        return 2
    for f in files:
        name = f[:-4]
        shape = SHAPE.match(name)
        if not shape:
            print(f"{f}: not a DMMA instruction name", file=sys.stderr)
            return 2
        m, n, k = map(int, shape.groups())
        hits = {key: 0 for key in chosen}
        first_miss = {}
        cases = 0
        lines = []
        for t, a, b, c, d in tiles(os.path.join(args.dir, f), m, n, k):
            for i in range(m):
                for j in range(n):
                    pairs = [(float(a[i, kk]), float(b[j, kk])) for kk in range(k)]
                    got = float(d[i, j])
                    cases += 1
                    for key, fn in chosen.items():
                        want = fn(float(c[i, j]), pairs)
                        if same(want, got):
                            hits[key] += 1
                        elif key not in first_miss:
                            first_miss[key] = (t % 7, float(c[i, j]), pairs, got, want)
                    if args.corpus and len(lines) < args.keep:
                        lines.append(f"{args.arch} {name} {hexes(a[i])} {hexes(b[j])} {hexes([c[i, j]])} {hexes([got])}")
        print(f"{name}: {cases} cases")
        for key, h in hits.items():
            print(f"  {key:12s} {h:7d} of {cases} ({100.0 * h / cases:.3f} %)")
        for key, (dist, c, pairs, got, want) in first_miss.items():
            print(f"  first {key} miss: distribution {dist}, c = {c!r}, pairs = {pairs!r}: device {got!r}, {key} {want!r}")
        if args.corpus:
            os.makedirs(args.corpus, exist_ok=True)
            with gzip.open(os.path.join(args.corpus, name + ".tcf64.gz"), "wt", compresslevel=9) as out:
                out.write(f"# f64 DMMA on an H100, recorded by probes/dmma_probe.cu (tcnum_dmma_probe); {len(lines)} of "
                          f"{cases} cases; fields: arch instruction A B C D, 16 hex digits per f64\n")
                out.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
