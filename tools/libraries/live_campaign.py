#!/usr/bin/env python3
"""Plan torch calls live on the GPU host, on shapes drawn now, and count how many reproduce.

On the GPU host (torch with CUDA and tcnum installed), from the repository root:

    python3 tools/libraries/live_campaign.py --out /tmp/live --seed 101 --configs 200 --time-budget 240

Configuration i is capture_torch.py's configuration i of --seed (docs/library-corpus.md §2),
kept when it is a torch.mm / torch.matmul call (bf16/f16 to f32 or half, f32 with TF32) and
redrawn at index + --configs·r while its M·N·K is over --max-work (the CPU searches plans on whole
outputs); operands row-major. For each, tcnum.libraries.live.plan_torch runs the call on the GPU on
inputs of both distributions (normal and wide, two seeds each: whole outputs), reads its kernels
and searches the plans the kernel names give on the CPU: "rule" (the first candidate), "revealed"
(another), or none (with the best candidate's count). Plans are cached in OUT/live-plans.jsonl.gz
(a plan table: tcnum.libraries.lookup reads it anywhere); OUT/summary.json holds the counts, the
CUDA-core calls apart, rewritten after every call. plan_torch reads cuBLASLt's log of the call
(its split count and algo), as the recorded calls' rules do. Exit status 0 when written, 2 on bad arguments or an existing OUT.
"""

import argparse
import json
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import rerun  # noqa: E402  (beside this script)

FAMILIES = ("mm_f32out", "mm_half", "tf32")


def draw(ct, inputs, seed, index, configs, max_work):
    """The first configuration at index + configs·r (r = 0, 1, ...) of a kept family under max_work."""
    for r in range(1000):
        cfg = ct.make_config(seed, index + configs * r, inputs)
        if cfg["family"] in FAMILIES and cfg["batch"] == 1 and cfg["m"] * cfg["n"] * cfg["k"] <= max_work:
            return cfg
    return None


def call_of(torch, cfg):
    out_f32 = cfg["out_dtype_arg"] == "float32"
    if cfg["call"] == "torch.matmul":
        return lambda a, b: torch.matmul(a, b)
    return (lambda a, b: torch.mm(a, b, out_dtype=torch.float32)) if out_f32 else (lambda a, b: torch.mm(a, b))


def run(args, ct, torch, live):
    inputs = ct.load_inputs_module()
    counts, lines, t0 = {"rule": 0, "revealed": 0, "unexplained": 0, "cuda_core": 0}, [], time.time()
    for i in range(args.configs):
        if args.time_budget and time.time() - t0 > args.time_budget:
            break
        cfg = draw(ct, inputs, args.seed, i, args.configs, args.max_work)
        if cfg is None:
            continue
        ct.set_flags(cfg["flags"])
        found = live.plan_torch(call_of(torch, cfg), a=cfg["a"], b=cfg["b"], out=cfg["out"], m=cfg["m"], n=cfg["n"],
                                k=cfg["k"], call=cfg["call"], flags=cfg["flags"], cache_dir=args.out, budget=args.budget)
        key = found.plan.source if found.plan else ("cuda_core" if "CUDA-core" in (found.reason or "") else "unexplained")
        counts[key] += 1
        line = {"index": i, "call": cfg["call"], "a": cfg["a"], "out": cfg["out"], "m": cfg["m"], "n": cfg["n"],
                "k": cfg["k"], "result": key, "reason": found.reason, "tried": found.tried}
        lines.append(line)
        print(json.dumps(line), flush=True)
        write_summary(args, lines, counts, t0)  # after every call: a run stopped from outside keeps its counts
    return write_summary(args, lines, counts, t0)


def write_summary(args, lines, counts, t0):
    summary = {"seed": args.seed, "configs": len(lines), "counts": counts, "seconds": round(time.time() - t0, 1),
               "max_work": args.max_work, "lines": lines}
    path = pathlib.Path(args.out) / "summary.json"
    tmp = path.with_suffix(".partial")
    tmp.write_text(json.dumps(summary, indent=1) + "\n")
    tmp.replace(path)
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--out", required=True, help="folder to create (never reused)")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--configs", type=int, default=200)
    ap.add_argument("--max-work", type=int, default=1 << 26, help="largest M·N·K planned (default 2^26)")
    ap.add_argument("--budget", type=int, default=200, help="candidate plans tried per call")
    ap.add_argument("--time-budget", type=float, default=0, help="stop starting calls after this many seconds")
    args = ap.parse_args(argv)
    out = pathlib.Path(args.out)
    if out.exists():
        rerun.fail("live_campaign", f"{out} exists; not reused")
    if not 1 <= args.configs <= 100000 or not 1 <= args.max_work <= 1 << 36 or not 1 <= args.budget <= 100000:
        rerun.fail("live_campaign", "--configs 1..100000, --max-work 1..2^36, --budget 1..100000")
    ct = rerun.load_sibling("capture_torch")
    ct.import_torch()
    from tcnum.libraries import live  # noqa: PLC0415 (after torch: the GPU host's package)

    out.mkdir(parents=True)
    summary = run(args, ct, ct.torch, live)
    print(json.dumps({k: summary[k] for k in ("configs", "counts", "seconds")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
