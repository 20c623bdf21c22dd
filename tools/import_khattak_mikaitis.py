#!/usr/bin/env python3
"""Converts the published device results of Khattak & Mikaitis into tcnum corpora.

Source: github.com/north-numerical-computing/MATLAB-tensor-core, folder model_validation/
(BSD-2-Clause). For every GPU and input format it holds 5000 cases: a_*.txt and b_*.txt (one
case per line, fp32 bit patterns in hex), c_*_fp32.txt and d_*_{fp32,fp16}.txt (one 32-bit
binary string per line; an f16 D is stored as the fp32 pattern of its value).

What the device ran (model_validation/CUDA/*.cu), and the corpus line written for it:
- fp16/bf16/tf32: one wmma::mma_sync per case (m16n16k16, tf32 m16n16k8; A row-major,
  B col-major, C/D col-major); only A[0][0..L-1], B[0..L-1][0] and C[0][0] are nonzero
  (L = the "fma_size" of the kernel: 4, 8 or 16). Inputs are converted with __float2half /
  __float2bfloat16 (RNE); tf32 registers hold the fp32 pattern as read. For f16 D, C is
  __float2half(c). ptxas lowers the wmma to HMMA.16816 (f16/bf16, sm_80+), HMMA.1684.TF32 x2
  along k (tf32, sm_80+) and HMMA.884 (sm_70): docs/models.md §7.1 shows the SASS. The line
  is the mma form of the HMMA that sees the nonzero
  products, with its zero elements written out; the other HMMAs of the wmma only add zero
  products to that result.
- fp8: one inline mma.sync.m16n8k32.row.col per case; the kernel fills A's row 0 from the
  b file and B's column 0 from the a file (its arguments are swapped), converting with
  __nv_cvt_float_to_fp8(x, __NV_SATFINITE, type). For f16 D, C is __float2half(c).
- H100/H200 fp8 with f32 D: the d files do not contain C (they are identical on H100 and H200
  although the c files differ; upstream's Validate_TC_models.m uses C = 0 "for fp8 with
  WGMMA"). The kernel is not published; the cases are written as wgmma.m64n8k32 with C = +0.

Usage: import_khattak_mikaitis.py --source DIR --commit SHA --out corpora
(DIR holds model_validation/, e.g. `git archive SHA model_validation | tar -x -C DIR`).
"""
import argparse
import gzip
import math
import os
import struct
import sys

REPO = "github.com/north-numerical-computing/MATLAB-tensor-core"

# upstream GPU folder -> (corpus folder, arch, device name)
GPUS = {
    "V100": ("v100", "sm_70", "NVIDIA Tesla V100 (Volta)"),
    "A100": ("a100", "sm_80", "NVIDIA A100 (Ampere GA100)"),
    "A2": ("a2", "sm_86", "NVIDIA A2 (Ampere GA107)"),
    "Ada": ("rtx1000ada", "sm_89", "NVIDIA RTX 1000 Ada Generation (Ada AD107)"),
    "L40S": ("l40s", "sm_89", "NVIDIA L40S (Ada AD102)"),
    "H100": ("h100-km", "sm_90", "NVIDIA H100 (Hopper)"),
    "H200": ("h200-km", "sm_90", "NVIDIA H200 (Hopper)"),
    "B200": ("b200", "sm_100", "NVIDIA B200 (Blackwell)"),
}

# (sig bits incl. hidden, min normal exponent, max finite value, has inf) per format
FORMATS = {
    "f16": (11, -14, 65504.0, True),
    "bf16": (8, -126, float.fromhex("0x1.fep127"), True),
    "e4m3": (4, -6, 448.0, False),
    "e5m2": (3, -14, 57344.0, True),
}
ELEMENT = {"fp16": "f16", "bf16": "bf16", "tf32": "tf32", "E4M3": "e4m3", "E5M2": "e5m2"}
WIDTH = {"f16": 16, "bf16": 16, "e4m3": 8, "e5m2": 8}
EXP_BITS = {"f16": 5, "bf16": 8, "e4m3": 4, "e5m2": 5}


def f32_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def round_to(fmt, x, saturate):
    """Bits of x rounded to nearest even in fmt (as __float2half, __float2bfloat16 and
    __nv_cvt_float_to_fp8 with __NV_SATFINITE), and whether the rounding was exact."""
    p, emin, maxv, has_inf = FORMATS[fmt]
    ebits, width = EXP_BITS[fmt], WIDTH[fmt]
    sign = 1 if math.copysign(1.0, x) < 0 else 0
    a = abs(x)
    if math.isnan(a):
        raise ValueError("NaN input")
    if a == 0.0:
        return sign << (width - 1), True
    e = max(math.frexp(a)[1] - 1, emin)  # exponent of the leading bit, clamped to subnormals
    scaled = a * 2.0 ** (p - 1 - e)  # exact in binary64 for these inputs
    n = math.floor(scaled)
    rem = scaled - n
    if rem > 0.5 or (rem == 0.5 and n % 2 == 1):
        n += 1
    exact = rem == 0.0
    if n == 2 ** p:
        n, e = n // 2, e + 1
    value = n * 2.0 ** (e - (p - 1))
    if value > maxv:
        if saturate or not has_inf:
            value, exact = maxv, False
        else:
            return (sign << (width - 1)) | (((1 << ebits) - 1) << (width - 1 - ebits)), False
    e = max(math.frexp(value)[1] - 1, emin)
    n = int(value * 2.0 ** (p - 1 - e))
    biased = 0 if n < 2 ** (p - 1) else e - emin + 1
    return (sign << (width - 1)) | (biased << (p - 1)) | (n & ((1 << (p - 1)) - 1)), exact


def read_hex_rows(path):
    with open(path) as f:
        return [[int(t, 16) for t in line.split()] for line in f if line.strip()]


def read_binary_rows(path):
    with open(path) as f:
        rows = [line.strip() for line in f if line.strip()]
    for r in rows:
        if len(r) != 32 or set(r) - {"0", "1"}:
            raise ValueError(f"{path}: not a 32-bit binary string: {r!r}")
    return [int(r, 2) for r in rows]


def instruction_for(gpu, fmt, d_type):
    """The instruction a case's nonzero products run in, its K, the upstream kernel's
    number L of nonzero products, and whether C enters."""
    arch = GPUS[gpu][1]
    dt = "f16" if d_type == "fp16" else "f32"
    if fmt in ("E4M3", "E5M2"):
        t = fmt.lower()
        if gpu in ("H100", "H200") and dt == "f32":
            return f"wgmma.m64n8k32.f32.{t}.{t}", 32, 32, False
        return f"mma.m16n8k32.{dt}.{t}.{t}.{dt}", 32, 32, True
    if fmt == "tf32":
        return "mma.m16n8k4.f32.tf32.tf32.f32", 4, 4, True
    if arch == "sm_70":
        return f"mma.m8n8k4.{dt}.f16.f16.{dt}", 4, 4, True
    length = 16 if arch in ("sm_90", "sm_100") else 8
    t = ELEMENT[fmt]
    return f"mma.m16n8k16.{dt}.{t}.{t}.{dt}", 16, length, True


def convert(source, commit, out_root, gpu, fmt, d_type):
    folder, arch, device = GPUS[gpu]
    base = os.path.join(source, "model_validation", gpu, fmt)
    names = {
        "a": f"a_{gpu}_{fmt}.txt",
        "b": f"b_{gpu}_{fmt}.txt",
        "c": f"c_{gpu}_fp32.txt",
        "d": f"d_{gpu}_{d_type}.txt",
    }
    a_rows = read_hex_rows(os.path.join(base, names["a"]))
    b_rows = read_hex_rows(os.path.join(base, names["b"]))
    c_rows = read_binary_rows(os.path.join(base, names["c"]))
    d_rows = read_binary_rows(os.path.join(base, names["d"]))
    if not (len(a_rows) == len(b_rows) == len(c_rows) == len(d_rows)):
        raise ValueError(f"{base}: files disagree on the number of cases")
    instr, k, length, with_c = instruction_for(gpu, fmt, d_type)
    fp8 = fmt in ("E4M3", "E5M2")
    elem = ELEMENT[fmt]
    inexact = 0

    def operand(row):
        nonlocal inexact
        if len(row) < length:
            raise ValueError(f"{base}: a row has {len(row)} values, the kernel reads {length}")
        out = []
        for bits in row[:length]:
            if elem == "tf32":
                out.append(f"{bits:08x}")  # the register as loaded; tcnum ignores its low 13 bits
                continue
            v, exact = round_to(elem, f32_value(bits), saturate=fp8)
            inexact += not exact
            out.append(f"{v:0{WIDTH[elem] // 4}x}")
        zero = "00" if fp8 else "0000" if elem in ("f16", "bf16") else "00000000"
        return "".join(out) + zero * (k - length)

    lines = []
    for a, b, c, d in zip(a_rows, b_rows, c_rows, d_rows):
        # fp8: the kernel's A operand is the b file's row, its B operand the a file's row.
        ra, rb = (b, a) if fp8 else (a, b)
        if d_type == "fp16":
            c_hex = f"{round_to('f16', f32_value(c), saturate=False)[0]:04x}" if with_c else "0000"
            dv, exact = round_to("f16", f32_value(d), saturate=False)
            if not exact:
                raise ValueError(f"{base}: an f16 D is not an f16 value: {d:08x}")
            d_hex = f"{dv:04x}"
        else:
            c_hex = f"{c:08x}" if with_c else "00000000"
            d_hex = f"{d:08x}"
        lines.append(f"{arch} {instr} {operand(ra)} {operand(rb)} {c_hex} {d_hex}\n")

    paths = ", ".join(f"model_validation/{gpu}/{fmt}/{n}" for n in names.values())
    header = [
        f"# device results of Khattak & Mikaitis, {REPO} commit {commit}",
        f"# files: {paths}",
        f"# GPU: {device} ({arch}); licence: BSD-2-Clause, Copyright (c) 2025 Faizan A. Khattak and Mantas Mikaitis (corpora/LICENSE-MATLAB-tensor-core)",
        f"# converted by tools/import_khattak_mikaitis.py: {len(lines)} cases; nonzero products per case: {length} of K = {k}"
        + ("" if with_c else "; C not added on the device (written as +0)"),
        f"# inputs not exactly representable in {elem} (rounded as the kernel's conversion does): {inexact}",
    ]
    out_dir = os.path.join(out_root, folder)
    os.makedirs(out_dir, exist_ok=True)
    out_path = os.path.join(out_dir, f"{instr}.tcc.gz")
    if os.path.exists(out_path):
        raise FileExistsError(f"{out_path} exists: two upstream files would map to it")
    with open(out_path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as gz:
        gz.write(("\n".join(header) + "\n").encode())
        gz.write("".join(lines).encode())
    return out_path, len(lines), inexact


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, help="folder holding model_validation/")
    ap.add_argument("--commit", required=True, help="the upstream commit the folder was taken from")
    ap.add_argument("--out", required=True, help="corpora root, e.g. corpora")
    args = ap.parse_args()
    total = 0
    for gpu in GPUS:
        gdir = os.path.join(args.source, "model_validation", gpu)
        for fmt in sorted(os.listdir(gdir)):
            for d_type in ("fp32", "fp16"):
                if not os.path.exists(os.path.join(gdir, fmt, f"d_{gpu}_{d_type}.txt")):
                    continue
                path, n, inexact = convert(args.source, args.commit, args.out, gpu, fmt, d_type)
                total += n
                print(f"{path}: {n} cases, {inexact} inexact inputs")
    print(f"{total} cases written")


if __name__ == "__main__":
    sys.exit(main())
