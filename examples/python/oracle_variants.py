"""When a device result is not the oracle's default, which kernel shape explains it? Tries the
usual variants (instruction family, split-K, descending k-steps) and says which match."""

import itertools

import ml_dtypes
import numpy as np

import tcnum


def variants(a, b, arch):
    """(description, oracle D) for the usual kernel shapes: natural instruction and mma.sync,
    ascending or descending k-steps, split-K 1..4 and one slice per k-step."""
    natural = tcnum.gemm(a[:1, :64], b[:64, :1], arch=arch).instruction
    sync = [i for i in tcnum.instructions(arch) if i.family == "mma" and (i.a, i.b, i.d) == (natural.a, natural.b, natural.d)]
    instrs = [natural] + ([max(sync, key=lambda i: i.k)] if sync and natural.family != "mma" else [])
    k = tcnum.asarray(a).shape[1]
    for ins, descending in itertools.product(instrs, (False, True)):
        steps = -(-k // ins.k)
        order = list(range(steps))[::-1] if descending else None
        for split in sorted({1, 2, 3, 4, max(1, steps // 2), steps}):  # steps: fp32 promotion per step
            d = tcnum.gemm(a, b, instr=ins.name, arch=arch, k_order=order, split_k=split)
            yield f"{ins.name}, k-steps {'descending' if descending else 'ascending'}, split_k {split}", d


def explain(a, b, device_d, arch, round_to=None):
    """Prints which variants reproduce device_d (after rounding the oracle's D to round_to,
    e.g. ml_dtypes.bfloat16, where the kernel writes a narrower output)."""
    found = False
    for what, d in variants(a, b, arch):
        want = np.asarray(d) if round_to is None else np.asarray(d).astype(round_to)
        count = tcnum.testing.compare(device_d, want).count
        print(f"  variant {what}: {count} elements differ")
        found |= count == 0
    return found


def sensitivity(a, b, device_d, arch):
    """How far the device's fp32 D is from what a check without tcnum would expect: numpy's
    float32 product of the same inputs, and the oracle with another architecture's model."""
    a64, b64 = tcnum.asarray(a).astype(np.float64), tcnum.asarray(b).astype(np.float64)
    naive = (a64.astype(np.float32) @ b64.astype(np.float32)).astype(np.float32)
    exact = (a64 @ b64).astype(np.float32)  # float64 sum, rounded once
    other = "sm_80" if arch != "sm_80" else "sm_90"
    line = [f"{tcnum.testing.compare(device_d, naive).count} vs numpy float32",
            f"{tcnum.testing.compare(device_d, exact).count} vs float64 rounded to float32"]
    if any(i.a == tcnum.gemm(a[:1], b[:, :1], arch=arch).instruction.a for i in tcnum.instructions(other)):
        line.append(f"{tcnum.testing.compare(device_d, tcnum.gemm(a, b, arch=other)).count} vs tcnum's {other} model")
    print(f"  sensitivity (elements differing from the device): {'; '.join(line)}")
