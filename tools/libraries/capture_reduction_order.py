#!/usr/bin/env python3
"""Is a recorded library call's reduction order fixed? Re-runs calls of a library corpus on the GPU.

On the GPU host (torch with CUDA), from the repository root:

    python3 tools/libraries/capture_reduction_order.py --out /tmp/order.npz \\
        corpora/h100-libraries/logged-seed3/bias.jsonl.gz:261 --runs 100 --terms 7 --tile 64

For each CORPUS:INDEX (a line of docs/library-corpus.md's format, batch 1, f32 output):
  * "repeats": the call on its recorded inputs (rebuilt by capture_torch.py's GPU generator) --runs
    times; per run a hash of the whole output, and the recorded 8x8 sample compared with each run;
  * "pairs": designed inputs (FPRev's idea) that make the order in which the bias and the slices'
    partials are added visible per output element. Term 0 is the bias, term t >= 1 the slice whose
    first k-tile is k-tile t-1 (k = (t-1) * TILE): A is all zero but A[i, (t-1)*TILE] = L for
    t = x(i), 1 for the other slices; B[(t-1)*TILE, j] = -L for t = y(j), else 1; the bias is -L
    where y(j) = 0, else 1 (L = 2^30: a 1 added to +-L is lost, so the output counts the terms
    added after both markers met). Run r uses x(i) = 1 + (i + r) mod (TERMS - 1) and
    y(j) = (j + r // (TERMS - 1)) mod TERMS, so that over (TERMS - 1) * TERMS runs every element
    sees every pair; each designed run is repeated twice (are designed outputs stable?).
The npz holds, per call "<file>:<index>": the kernels, repeats' hashes and sample matches, and
the designed runs' outputs (int16 counts; -32768 where a value is not a small integer).
Exit status 0 when written, 2 on bad arguments or an existing output.
"""

import argparse
import hashlib
import json
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import rerun  # noqa: E402  (beside this script)
MARKER = 2.0**30


def load_capture_torch():
    return rerun.load_sibling("capture_torch")


def read_call(ref):
    return rerun.read_call("capture_reduction_order", ref, lambda rec: None if rec["batch"] == 1 and rec["out"] == "f32"
                                else "only batch 1, f32 output")


def as_hex(t):
    return [f"{x & 0xFFFFFFFF:08x}" for x in t.contiguous().view(__import__("torch").int32).reshape(-1).tolist()]


def repeats(ct, torch, cfg, gen, runs):
    ct.set_flags(cfg["flags"])
    a, b, bias = ct.build_operands(cfg, gen)
    fn = ct.make_call(cfg, a, b, bias)
    ri = torch.tensor(cfg["rows"], device="cuda")
    ci = torch.tensor(cfg["cols"], device="cuda")
    hashes, sample_ok, first = [], [], None
    for _ in range(runs):
        out = fn()
        torch.cuda.synchronize()
        hashes.append(hashlib.sha1(out.contiguous().view(torch.int32).cpu().numpy().tobytes()).hexdigest()[:16])
        sample_ok.append(as_hex(out.index_select(0, ri).index_select(1, ci)) == cfg["out_bits"])
        if first is None:
            first = out.clone()
        else:
            differ = int((out.view(torch.int32) != first.view(torch.int32)).sum())
            if differ:
                print(f"  run differs from run 0 in {differ} of {out.numel()} elements", flush=True)
    return hashes, sample_ok


def designed_arrays(m, n, k, r, terms, tile):
    """Designed run r's A (m x k), B (k x n) and bias (n) as float32 numpy arrays (the module doc)."""
    slices = terms - 1
    x = 1 + (np.arange(m) + r) % slices
    y = (np.arange(n) + r // slices) % terms
    a = np.zeros((m, k), np.float32)
    b = np.zeros((k, n), np.float32)
    for t in range(1, terms):
        kk = (t - 1) * tile
        a[:, kk] = np.where(x == t, MARKER, 1.0)
        b[kk, :] = np.where(y == t, -MARKER, 1.0)
    bias = np.where(y == 0, -MARKER, 1.0).astype(np.float32)
    return a, b, bias


def designed(cfg, torch, r, terms, tile):
    a, b, bias = designed_arrays(cfg["m"], cfg["n"], cfg["k"], r, terms, tile)
    dev = lambda v: torch.from_numpy(v).cuda()  # noqa: E731
    ta, tb = dev(a), dev(b)
    if cfg["layout"]["a"] == "col":
        ta = ta.t().contiguous().t()
    if cfg["layout"]["b"] == "col":
        tb = tb.t().contiguous().t()
    return ta, tb, dev(bias)


def counts(out):
    v = np.asarray(out.cpu().numpy() if hasattr(out, "cpu") else out, dtype=np.float64)
    small = (np.abs(v) < 30000) & (v == np.round(v))
    return np.where(small, v, -32768).astype(np.int16)


def pairs(ct, torch, cfg, terms, tile):
    ct.set_flags(cfg["flags"])
    outs, stable, kernels = [], True, None
    for r in range(terms * (terms - 1)):
        a, b, bias = designed(cfg, torch, r, terms, tile)
        fn = ct.make_call(cfg, a, b, bias)
        if kernels is None:
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                o1 = fn()
                torch.cuda.synchronize()
            kernels = ct.kernel_names(prof)[0]
        else:
            o1 = fn()
        o2 = fn()
        torch.cuda.synchronize()
        stable &= ct.same_bits(o1, o2)
        outs.append(counts(o1))
    return np.stack(outs), stable, kernels


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("calls", nargs="+", help="CORPUS:INDEX")
    ap.add_argument("--out", required=True, help="npz to write (never overwritten)")
    ap.add_argument("--runs", type=int, default=100, help="repeats on the recorded inputs (1..10000)")
    ap.add_argument("--terms", type=int, default=7, help="bias + slices (2..16)")
    ap.add_argument("--tile", type=int, default=64, help="k-tile dealt to the slices")
    args = ap.parse_args(argv)
    if pathlib.Path(args.out).exists():
        rerun.fail("capture_reduction_order", f"{args.out} exists; not overwritten")
    if not 1 <= args.runs <= 10000 or not 2 <= args.terms <= 16 or args.tile < 1:
        rerun.fail("capture_reduction_order", "--runs 1..10000, --terms 2..16, --tile >= 1")
    calls = [(ref, read_call(ref)) for ref in args.calls]
    ct = load_capture_torch()
    ct.import_torch()
    torch = ct.torch
    gen = ct.GpuGenerator(ct.load_inputs_module())
    saved = {}
    for ref, cfg in calls:
        if (args.terms - 2) * args.tile >= cfg["k"]:
            print(f"capture_reduction_order: {ref}: K = {cfg['k']} too small for the markers", file=sys.stderr)
            return 2
        hashes, sample_ok = repeats(ct, torch, cfg, gen, args.runs)
        outs, stable, kernels = pairs(ct, torch, cfg, args.terms, args.tile)
        key = ref.split("/")[-2] + "/" + ref.split("/")[-1]
        print(f"{key} {cfg['call']} {cfg['m']}x{cfg['n']}x{cfg['k']}: {len(set(hashes))} distinct outputs in "
              f"{args.runs} runs, recorded sample in {sum(sample_ok)}; designed runs stable: {stable}; "
              f"kernels {kernels}", flush=True)
        saved[key + ":hashes"] = np.array(hashes)
        saved[key + ":sample_ok"] = np.array(sample_ok)
        saved[key + ":pairs"] = outs
        saved[key + ":meta"] = np.array(json.dumps({"kernels": kernels, "stable": stable, "terms": args.terms,
                                                    "tile": args.tile, "marker": MARKER}))
    np.savez_compressed(args.out, **saved)
    return 0


if __name__ == "__main__":
    sys.exit(main())
