#!/usr/bin/env python3
"""Does one order of a call's split-K partials reproduce it, or does the order change per element?

For a recorded library call (docs/library-corpus.md) and a slice structure (split count, k-tile,
whole or interleaved tiles), computes every slice's partial per sampled output element with
tcnum, then adds them (and the call's bias, first) in every order of the slices and reports:
  * elements that some order reproduces (the partials are right if this is all of them),
  * orders that reproduce every element (a static schedule exists only if this is > 0),
  * the best single order's count.
A structure whose partials are right but whose order differs per element, within one output
tile, is not a schedule: it is what an atomic (arrival-order) reduction gives.

Example (an sm80_xmma TF32 split-K with a bias, 6 slices of interleaved 64-wide k-tiles):
    PYTHONPATH=build/python python3 tools/libraries/partial_orders.py \\
        corpora/h100-libraries/logged-seed3/bias.jsonl.gz 261 --split 6 --tile 64 --interleaved
"""

from __future__ import annotations

import argparse
import itertools
import sys

import numpy as np


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("index", type=int)
    ap.add_argument("--split", type=int, required=True, help="slice count (at most 8: every order is tried)")
    ap.add_argument("--tile", type=int, required=True, help="k-tile")
    ap.add_argument("--interleaved", action="store_true", help="k-tiles dealt round robin (else whole slices of --align)")
    ap.add_argument("--align", type=int, default=0, help="granule of whole slices (default the tile)")
    ap.add_argument("--instr", default="mma.m16n8k8.f32.tf32.tf32.f32")
    ap.add_argument("--tf32", default="nearest_even")
    args = ap.parse_args(argv)
    import tcnum  # noqa: PLC0415
    from tcnum.libraries.corpus import read_library_corpus  # noqa: PLC0415
    from tcnum.libraries.replay import Operands, _expected  # noqa: PLC0415

    if not 2 <= args.split <= 8:
        print("partial_orders: --split must be in 2..8", file=sys.stderr)
        return 2
    _, calls = read_library_corpus(args.corpus)
    call = next((c for c in calls if c.get("index") == args.index), None)
    if call is None or call["batch"] != 1 or call["out"] != "f32":
        print("partial_orders: no such call with one batch item and an f32 output", file=sys.stderr)
        return 2
    ops = Operands(call)
    want = _expected(call)[0].astype(np.uint32).reshape(len(call["rows"]), len(call["cols"]))
    k, s, t = call["k"], args.split, args.tile
    if args.interleaved:
        tiles = -(-k // t)
        groups = [np.concatenate([np.arange(j * t, min(k, j * t + t)) for j in range(i, tiles, s)]) for i in range(s)]
    else:
        g = args.align or t
        per = -(-k // (s * g)) * g
        groups = [np.arange(b, min(k, b + per)) for b in range(0, k, per)]
    parts = [np.asarray(tcnum.gemm(np.ascontiguousarray(ops.a[:, ks]), np.ascontiguousarray(ops.b[ks, :]),
                                   instr=args.instr, schedule={"tile_k": t, "tf32_operands": args.tf32}, threads=1),
                        dtype=np.float32) for ks in groups]
    start = np.zeros(want.shape, np.float32) if ops.bias is None else np.broadcast_to(ops.bias, want.shape).astype(np.float32)
    some = np.zeros(want.shape, bool)
    whole = best = 0
    for order in itertools.permutations(range(len(parts))):
        acc = start.copy() if ops.bias is not None else parts[order[0]].copy()
        for i in (order if ops.bias is not None else order[1:]):
            acc = (acc + parts[i]).astype(np.float32)
        eq = acc.view(np.uint32) == want
        some |= eq
        whole += bool(eq.all())
        best = max(best, int(eq.sum()))
    print(f"{call['call']} {call['m']}x{call['n']}x{call['k']}: {len(parts)} slices; elements some order reproduces "
          f"{int(some.sum())}/{want.size}; orders reproducing all {whole}; best single order {best}/{want.size}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
