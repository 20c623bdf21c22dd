#!/usr/bin/env python3
"""Record what cuBLAS's TF32 segment-K kernels write, for revealing their per-tile schedule.

On the GPU host (torch with CUDA), from the repository root:

    python3 tools/libraries/capture_segment_k.py --out /tmp/segk.npz 256x1024x8192 1024x1024x4096

For each shape M x N x K, torch.mm of f32 matrices with TF32 allowed runs three times, and for
each run the output rows t*TM and t*TM + TM - 1 of every output-tile row t (TM = 64; all of D
where M <= 256) are kept:
  * "random": A and B from tcnum's counter-based generator (python/tcnum/libraries/inputs.py,
    seed 1, N(0,1)), so the CPU rebuilds them exactly;
  * "marker0" / "marker32": A all ones; column j of B all ones except L = 2^40 at k = p_j and -L
    at p_j + 32 (p_j = 64 j mod (K - 64), plus 0 or 32). Where both markers fall in one slice
    of a tile's K, the slice's partial is the count of ones after the second marker, so the
    output reads the start of the slice holding p_j; where a slice boundary separates them the
    value differs (docs/libraries.md, "Segment-K").
The kernels each call launched (torch.profiler) are stored with the outputs. The npz holds, per
shape "MxNxK": rows, random, marker0, marker32 and kernels (a JSON string). Exit status 0 when
written, 2 on bad arguments or an existing output.
"""

import argparse
import importlib.util
import json
import pathlib
import sys

import numpy as np

INPUTS_PY = pathlib.Path(__file__).resolve().parents[2] / "python" / "tcnum" / "libraries" / "inputs.py"
MARKER = 2.0**40


def load_inputs_module():
    spec = importlib.util.spec_from_file_location("tcnum_library_inputs", INPUTS_PY)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def parse_shape(text: str) -> tuple[int, int, int]:
    try:
        m, n, k = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a shape is MxNxK, got {text!r}") from None
    if min(m, n, k) < 1 or k < 128 or m * n * k > 2**38:
        raise argparse.ArgumentTypeError(f"{text}: M, N >= 1, K >= 128 and M*N*K <= 2^38")
    return m, n, k


def marker_b(k: int, n: int, offset: int) -> np.ndarray:
    b = np.ones((k, n), np.float32)
    p = (64 * np.arange(n) + offset) % (k - 64)
    b[p, np.arange(n)] = MARKER
    b[p + 32, np.arange(n)] = -MARKER
    return b


def kept_rows(m: int) -> np.ndarray:
    if m <= 256:
        return np.arange(m)
    tiles = np.arange(0, m, 64)
    return np.unique(np.concatenate([tiles, np.minimum(tiles + 63, m - 1)]))


def run_shape(torch, inputs, m: int, n: int, k: int) -> dict:
    from torch.profiler import ProfilerActivity, profile

    rows = kept_rows(m)
    cases = {
        "random": (inputs.values(1, 1, m, k, "normal", 0), inputs.values(1, 2, k, n, "normal", 0)),
        "marker0": (np.ones((m, k), np.float32), marker_b(k, n, 0)),
        "marker32": (np.ones((m, k), np.float32), marker_b(k, n, 32)),
    }
    out = {"rows": rows}
    kernels = []
    for name, (a, b) in cases.items():
        ta = torch.from_numpy(np.ascontiguousarray(a, np.float32)).cuda()
        tb = torch.from_numpy(np.ascontiguousarray(b, np.float32)).cuda()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            d = torch.mm(ta, tb)
            torch.cuda.synchronize()
        kernels.append([e.name for e in prof.events() if e.device_type.name == "CUDA"])
        again = torch.mm(ta, tb)
        if not torch.equal(d, again):
            print(f"{m}x{n}x{k} {name}: two runs differ (nondeterministic)", file=sys.stderr)
        out[name] = d.cpu().numpy()[rows]
    out["kernels"] = json.dumps(kernels)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shapes", nargs="+", type=parse_shape, help="MxNxK")
    ap.add_argument("--out", required=True, type=pathlib.Path, help="the .npz to write (never overwritten)")
    args = ap.parse_args(argv)
    if args.out.exists():
        print(f"capture_segment_k: {args.out} exists; choose another --out", file=sys.stderr)
        return 2
    import torch

    torch.backends.cuda.matmul.allow_tf32 = True
    inputs = load_inputs_module()
    arrays = {}
    for m, n, k in args.shapes:
        got = run_shape(torch, inputs, m, n, k)
        for key, v in got.items():
            arrays[f"{m}x{n}x{k}/{key}"] = v
        print(f"{m}x{n}x{k}: {json.loads(got['kernels'])[0]}", flush=True)
    np.savez_compressed(args.out, **arrays)
    return 0


if __name__ == "__main__":
    sys.exit(main())
