"""Reproduce a torch GEMM bit for bit on the CPU: plan it once (on the GPU host, or from a shipped
plan table), then compute it anywhere with tcnum.gemm and the plan's schedule.

    python3 examples/python/reproduce_torch.py              # no GPU: a recorded H100 call
    python3 examples/python/reproduce_torch.py --live       # on the GPU host: plan a live call

Without a GPU, a torch.mm call recorded on an H100 (corpora/h100-libraries/, docs/library-corpus.md)
is rebuilt from its seed, its plan is looked up in the shipped tables, and tcnum.gemm's output is
compared with the bits the H100 wrote. With --live (CUDA, torch): a torch.mm of an unaligned shape
runs on the GPU, tcnum.libraries.live.plan_torch finds its plan from the kernels it launched and
its outputs, caches it in ./plans/, and the CPU result is compared with the GPU's over the whole
matrix. Exit status 0 when every compared bit agrees.
"""

import argparse
import pathlib
import sys

import numpy as np

import tcnum
from tcnum.libraries import corpus, inputs, replay, tables

REPO = pathlib.Path(__file__).resolve().parents[2]


def recorded_call():
    """A recorded torch.mm with split-K (a reduction kernel ran after the GEMM kernel)."""
    header, calls = corpus.read_library_corpus(REPO / "corpora" / "h100-libraries" / "mm_f32out.jsonl.gz")
    call = next(c for c in calls if any("splitKreduce" in k for k in c["kernels"]))
    plan = tables.lookup(call["call"], a=call["a"], b=call["b"], out=call["out"], m=call["m"], n=call["n"],
                         k=call["k"], flags=call["flags"])
    print(f"{call['call']} {call['a']}→{call['out']} {call['m']}×{call['n']}×{call['k']} on {header['device']['gpu']}")
    print(f"  kernels: {', '.join(k[:60] for k in call['kernels'])}")
    print(f"  plan ({plan.source}): {plan.instruction}, schedule {plan.schedule.to_json()}")
    ops = replay.Operands(call)
    got = replay.run_plan(call, plan, ops)
    want = np.array([int(h, 16) for h in call["out_bits"]], dtype=np.uint64)
    same = int(np.count_nonzero(got == want))
    plain = replay.run_plan(call, replay.Plan(plan.instruction, tcnum.Schedule()), ops)
    print(f"  {same} of {want.size} recorded output elements reproduced bit for bit "
          f"(without the schedule: {int(np.count_nonzero(plain == want))})")
    return same == want.size


def live_call():  # pragma: no cover - needs a GPU
    import torch

    m, n, k = 1000, 777, 3001
    fn = lambda a, b: torch.mm(a, b, out_dtype=torch.float32)  # noqa: E731
    found = tcnum.libraries.live.plan_torch(fn, a="bf16", b="bf16", out="f32", m=m, n=n, k=k, call="torch.mm",
                                            cache_dir="plans")
    if found.plan is None:
        print(f"no plan: {found.reason}")
        return False
    a = inputs.to_dtype(inputs.values(7, 1, m, k, "wide", 16), "bf16")
    b = inputs.to_dtype(inputs.values(7, 2, k, n, "wide", 16), "bf16")
    gpu = fn(torch.from_numpy(a.astype(np.float32)).cuda().bfloat16(),
             torch.from_numpy(b.astype(np.float32)).cuda().bfloat16()).cpu().numpy()
    cpu = np.asarray(tcnum.gemm(a, b, instr=found.plan.instruction, schedule=found.plan.schedule))
    same = int(np.count_nonzero(gpu.view(np.uint32) == cpu.view(np.uint32)))
    print(f"plan ({found.plan.source}, {found.tried} tried): {found.plan.instruction} {found.plan.schedule.to_json()}")
    print(f"{same} of {gpu.size} elements bit for bit (fresh inputs)")
    return same == gpu.size


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--live", action="store_true", help="plan a live torch call on this machine's GPU")
    args = ap.parse_args()
    return 0 if (live_call() if args.live else recorded_call()) else 1


if __name__ == "__main__":
    sys.exit(main())
