#!/usr/bin/env python3
"""Agreement of tcnum's AMD CDNA models with MMA-Sim's, on tcnum's own generated cases.

MMA-Sim (Xie et al., arXiv 2511.10909) is run as a black box: its mfma simulator is given one
row of A, one column of B and C per case (M = N = 1: each output element is one dot product of
K, so a 1x1 block computes the same element) and its D is compared bit for bit with the D that
tcnum's built-in model wrote into the case line. NaN results agree when both are NaN (tcnum
writes 0x7fffffff, MMA-Sim whatever its float arithmetic gives); nothing else is relaxed.

Get MMA-Sim (not part of tcnum) and its one dependency:
    git clone https://github.com/microsoft/MMA-Sim /work/scratch/MMA-Sim     # commit c785138
    python3 -m venv /work/scratch/mmasim-venv && /work/scratch/mmasim-venv/bin/pip install torch numpy
Then, with tcnum built (target amd_cases):
    /work/scratch/mmasim-venv/bin/python tools/mmasim/agreement.py /work/scratch/MMA-Sim \\
        --amd-cases build/tools/amd_cases --arch gfx942 --cases 300 --json out.json
Prints one table row per instruction x distribution and a total per instruction; --show N prints
up to N disagreeing cases per instruction (the case line, MMA-Sim's D).
"""
import argparse
import collections
import json
import subprocess
import sys

ARCH_TO_CDNA = {"gfx908": "CDNA1", "gfx90a": "CDNA2", "gfx942": "CDNA3"}


def load_mmasim(path):
    sys.path.insert(0, path)
    import torch  # noqa: F401  (MMA-Sim's dependency)
    from mmasim.simulator.amd import mfma
    return mfma


def operand_tensor(torch, hex_field, k, dtype):
    """A row (or column) of K elements from a corpus hex field, as MMA-Sim's dtype."""
    digits = len(hex_field) // k
    values = [int(hex_field[i * digits:(i + 1) * digits], 16) for i in range(k)]
    if digits == 8:  # f32 or xf32: the whole register
        raw = torch.tensor([v - (1 << 32) if v >= 1 << 31 else v for v in values], dtype=torch.int32)
        return raw.view(torch.float32)
    if digits == 2:  # fp8/bf8 (FNUZ)
        return torch.tensor(values, dtype=torch.uint8).view(dtype)
    raw = torch.tensor([v - (1 << 16) if v >= 1 << 15 else v for v in values], dtype=torch.int16)
    return raw.view(dtype)


def f32_bits(torch, x):
    return int(torch.tensor([float(x)], dtype=torch.float32).view(torch.int32).item()) & 0xFFFFFFFF


def is_nan32(bits):
    return (bits & 0x7F800000) == 0x7F800000 and (bits & 0x007FFFFF) != 0


def run_case(torch, sim, line):
    arch, name, a_hex, b_hex, c_hex, d_hex = line.split()
    k = sim.k
    a = operand_tensor(torch, a_hex, k, sim.a_type).reshape(1, k)
    b = operand_tensor(torch, b_hex, k, sim.b_type).reshape(k, 1)
    c = operand_tensor(torch, c_hex, 1, torch.float32).reshape(1, 1)
    d = f32_bits(torch, sim(a, b, c)[0, 0].item())
    want = int(d_hex, 16)
    return d == want or (is_nan32(d) and is_nan32(want)), d


def simulator(mfma, arch, name):
    sim = mfma(ARCH_TO_CDNA[arch], name[len("v_mfma_"):])
    sim.m = sim.n = 1  # one output element per call (see the module docstring)
    return sim


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mmasim", help="path of an MMA-Sim checkout (the folder holding mmasim/)")
    ap.add_argument("--amd-cases", required=True, help="tcnum's amd_cases executable")
    ap.add_argument("--arch", default="gfx942", choices=sorted(ARCH_TO_CDNA))
    ap.add_argument("--cases", type=int, default=300, help="cases per instruction x distribution")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--instructions", nargs="*", default=[])
    ap.add_argument("--model", help="model JSON for tcnum's side instead of the built-in one (ablations)")
    ap.add_argument("--json", help="write the counts here")
    ap.add_argument("--show", type=int, default=0, help="disagreeing cases to print per instruction")
    args = ap.parse_args()
    mfma = load_mmasim(args.mmasim)
    import torch
    model = [f"--model={args.model}"] if args.model else []
    out = subprocess.run([args.amd_cases, args.arch, str(args.cases), str(args.seed)] + model + args.instructions,
                         check=True, capture_output=True, text=True).stdout
    counts = collections.defaultdict(lambda: [0, 0])  # (instruction, dist) -> [agree, total]
    shown = collections.Counter()
    sims = {}
    dist = None
    for line in out.splitlines():
        if line.startswith("# dist "):
            dist = line.split()[2]
            continue
        name = line.split()[1]
        if name not in sims:
            sims[name] = simulator(mfma, args.arch, name)
        ok, d = run_case(torch, sims[name], line)
        cell = counts[(name, dist)]
        cell[0] += ok
        cell[1] += 1
        if not ok and shown[name] < args.show:
            shown[name] += 1
            print(f"DIFF {dist}: {line} mmasim={d:08x}")
    report = collections.OrderedDict()
    for (name, dist), (agree, total) in counts.items():
        report.setdefault(name, collections.OrderedDict())[dist] = {"agree": agree, "cases": total}
    print(f"{'instruction':36} {'distribution':10} {'agree':>7} {'cases':>7} {'%':>8}")
    for name, dists in report.items():
        agree = sum(v["agree"] for v in dists.values())
        total = sum(v["cases"] for v in dists.values())
        for dist, v in dists.items():
            print(f"{name:36} {dist:10} {v['agree']:7} {v['cases']:7} {100.0 * v['agree'] / v['cases']:8.3f}")
        print(f"{name:36} {'(all)':10} {agree:7} {total:7} {100.0 * agree / total:8.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"arch": args.arch, "seed": args.seed, "cases_per_distribution": args.cases,
                       "mmasim_commit": "c785138", "results": report}, f, indent=1)
    worst = min(sum(v["agree"] for v in d.values()) / sum(v["cases"] for v in d.values()) for d in report.values())
    return 0 if worst >= 0.999 else 1


if __name__ == "__main__":
    sys.exit(main())
