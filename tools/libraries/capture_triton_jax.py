#!/usr/bin/env python3
"""Record Triton `tl.dot` GEMMs and JAX/XLA `jnp.dot` calls on this GPU in the library-corpus
format of capture_torch.py (docs/library-corpus.md, "Triton and JAX"): same input generator
"tcnum-irwin12-v1", same header, same 8 x 8 output sample, so that tcnum can plan and replay them.

    python3 tools/libraries/capture_triton_jax.py triton --out DIR --configs 900 --seed 1
    python3 tools/libraries/capture_triton_jax.py jax --out DIR --configs 600 --seed 1 [--shard P/N]
    python3 tools/libraries/capture_triton_jax.py merge --out FINAL --triton DIR --jax DIR [DIR ...]
    python3 tools/libraries/capture_triton_jax.py triton --configs 20 --list      (no torch, no GPU)

triton: this file's own matmul kernel (tcnum_matmul_kernel: 2-D grid of BLOCK_M x BLOCK_N output
tiles, a K loop over cdiv(K, BLOCK_K) k-tiles loading masked A/B tiles with other=0, acc =
tl.dot(a, b, acc) into an fp32 accumulator, stored as fp32 or cast to bf16/f16), and a split-K
variant without atomics (tcnum_matmul_splitk_kernel writes each split's fp32 partial to a
[S, M, N] buffer; tcnum_splitk_reduce_kernel adds them in order p0 + p1 + ... in fp32). Each line
records the block sizes, warps, stages, split rule, input precision, the kernel names the profiler
saw, and the MMA instructions of the compiled kernel (its PTX, and the SASS opcodes).
The kernels are compiled first by --workers processes in parallel (Triton's disk cache).

jax: jax.jit(lambda a, b: jnp.dot(a, b, ...)) in bf16/f16 (f32 and native output), f32 with
default precision and with Precision.HIGHEST, e4m3 -> f32; each line records XLA's optimized HLO
choice (cuBLAS custom call or Triton GEMM fusion, with its backend config), the kernels that ran
and, where cuBLASLt ran, its logged algorithm. Lines come in pairs (normal, wide) sharing the
shape, the call and so the compiled executable; --shard P/N takes pairs j with j % N == P.

Outputs are written as plain JSON lines while running (DIR/<lib>.jsonl, DIR/summary.json);
`merge` writes FINAL/triton.jsonl.gz, FINAL/jax.jsonl.gz (header first, lines sorted by index),
FINAL/jax-hlo.jsonl.gz (the optimized HLO text of each compiled JAX call) and FINAL/summary.json.
An existing output file is never overwritten (exit 2).
"""

import argparse
import collections
import ctypes
import datetime
import faulthandler
import glob
import gzip
import importlib.util
import json
import os
import pathlib
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time
import traceback

REPO = pathlib.Path(__file__).resolve().parents[2]
CAPTURE_TORCH_PY = REPO / "tools" / "libraries" / "capture_torch.py"

torch = None
triton = None
tl = None
jax = None
jnp = None


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CT = load_module("tcnum_capture_torch", CAPTURE_TORCH_PY)  # generator on the GPU, device info, profiler helpers
INPUTS = CT.load_inputs_module()

# ------------------------------------------------------------------ configurations

# E of "wide" inputs: inputs.WIDE_E, except f16 outputs, which overflow with E = 8 (docs,
# "Known limits"): E = 2 there.
F16_OUT_E = 2

TRITON_CLASSES = {  # name: (a = b, out, input_precision, weight)
    "bf16_f32": ("bf16", "f32", None, 14), "bf16_bf16": ("bf16", "bf16", None, 12),
    "f16_f32": ("f16", "f32", None, 12), "f16_f16": ("f16", "f16", None, 10),
    "e4m3_f32": ("e4m3", "f32", None, 18), "tf32": ("f32", "f32", "tf32", 12),
    "ieee": ("f32", "f32", "ieee", 8),
}
TRITON_SPLITK_CLASSES = ["bf16_f32", "bf16_bf16", "f16_f32", "f16_f16", "tf32"]
TRITON_BLOCKS = [(64, 64, 32), (128, 128, 64), (128, 64, 128), (64, 128, 64)]
TRITON_WARPS = [4, 8]
TRITON_STAGES = 3
TRITON_SPLITS = [2, 3, 4, 5, 8, 16]
TRITON_SHAPES = {"random": 70, "pow2": 10, "skinny": 10, "aligned": 10}
SPLIT_RULE = ("whole_tiles: tiles = cdiv(K, BLOCK_K); per_split = cdiv(tiles, split_k); split s covers "
              "k-tiles [s*per_split, min((s+1)*per_split, tiles)) (the last k-tile masked, zero-padded); "
              "splits with no k-tile are not summed (split_k_effective = cdiv(tiles, per_split)); the fp32 "
              "partials are added in order ((p0 + p1) + p2) + ... in fp32, then rounded to the output type (RNE)")
MAX_WORK = 1 << 34  # M * N * K per Triton / JAX call

JAX_CLASSES = {  # name: (a = b, out, preferred_element_type, precision, weight)
    "bf16_f32": ("bf16", "f32", "float32", None, 16), "bf16_bf16": ("bf16", "bf16", None, None, 14),
    "f16_f32": ("f16", "f32", "float32", None, 14), "f16_f16": ("f16", "f16", None, None, 12),
    "f32_default": ("f32", "f32", None, None, 14), "f32_highest": ("f32", "f32", None, "HIGHEST", 12),
    "e4m3_f32": ("e4m3", "f32", "float32", None, 12),
}
JAX_POW2 = [(512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096)]
JAX_SHAPES = {"random": 75, "aligned": 15, "skinny": 10}


def wide_E(a, out):
    return F16_OUT_E if out == "f16" else INPUTS.WIDE_E[a]


def pick(rng, weights):
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def random_shape(rng, family, mn_max=2048, k_max=8192):
    if family == "random":
        m, n, k = rng.randint(1, mn_max), rng.randint(1, mn_max), rng.randint(1, k_max)
    elif family == "pow2":
        m, n, k = 2 ** rng.randint(4, 11), 2 ** rng.randint(4, 11), 2 ** rng.randint(4, 13)
    elif family == "skinny":
        small, big = rng.randint(1, 64), rng.randint(1, mn_max)
        m, n = (small, big) if rng.random() < 0.5 else (big, small)
        k = rng.randint(1, k_max)
    elif family == "aligned":  # multiples of 64 (M, N) and 128 (K)
        m, n, k = 64 * rng.randint(1, mn_max // 64), 64 * rng.randint(1, mn_max // 64), 128 * rng.randint(1, k_max // 128)
    else:
        raise ValueError(family)
    while m * n * k > MAX_WORK and m > 1:
        m = max(1, m // 2)
    return m, n, k


def _finish(cfg, rng, a, out, dist):
    cfg["inputs"] = {"generator": INPUTS.GENERATOR, "seed": rng.getrandbits(48), "dist": dist,
                     "E": wide_E(a, out) if dist == "wide" else 0}
    cfg["rows"] = CT.sample_indices(rng, cfg["m"], min(8, cfg["m"]))
    cfg["cols"] = CT.sample_indices(rng, cfg["n"], min(8, cfg["n"]))
    return cfg


def make_triton_config(seed, index):
    """Triton configuration `index` of run `seed` (random.Random(seed * 1000003 + index))."""
    rng = random.Random(seed * 1_000_003 + index)
    splitk = rng.random() < 0.2
    cls = rng.choice(TRITON_SPLITK_CLASSES) if splitk else pick(rng, {k: v[3] for k, v in TRITON_CLASSES.items()})
    a, out, prec, _w = TRITON_CLASSES[cls]
    bm, bn, bk = rng.choice(TRITON_BLOCKS)
    warps = rng.choice(TRITON_WARPS)
    lb = "row" if rng.random() < 0.7 else "col"
    imprecise = None
    if a == "e4m3":
        imprecise = rng.choice([None, None, 32, bk])
    split = rng.choice(TRITON_SPLITS) if splitk else 1
    family = pick(rng, TRITON_SHAPES)
    m, n, k = random_shape(rng, family)
    if splitk and k < 256:
        k = rng.randint(256, 8192)
    dist = "normal" if rng.random() < 0.5 else "wide"
    cfg = {"index": index, "shape_family": family, "call": "triton.matmul_splitk" if splitk else "triton.matmul",
           "triton_class": cls,
           "flags": {"allow_tf32": prec == "tf32", "use_fast_accum": (imprecise is None) if a == "e4m3" else None,
                     "input_precision": prec, "max_num_imprecise_acc": imprecise},
           "out_dtype_arg": None, "a": a, "b": a, "out": out, "bias": None, "batch": 1, "m": m, "n": n, "k": k,
           "layout": {"a": "row", "b": lb}, "math": "tf32" if prec == "tf32" else a,
           "triton": {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "num_warps": warps, "num_stages": TRITON_STAGES,
                      "split_k": split, "split_rule": SPLIT_RULE if splitk else None, "input_precision": prec,
                      "max_num_imprecise_acc": imprecise}}
    if splitk:
        tiles = -(-k // bk)
        per = -(-tiles // split)
        cfg["triton"].update({"k_tiles": tiles, "tiles_per_split": per, "split_k_effective": -(-tiles // per)})
    return _finish(cfg, rng, a, out, dist)


def jax_pair(seed, j):
    """(class, (m, n, k), shape family, layout of B) shared by lines 2j (normal) and 2j + 1 (wide)."""
    grid = [(cls, shp) for shp in JAX_POW2 for cls in JAX_CLASSES]
    if j < len(grid):
        cls, shp = grid[j]
        return cls, shp, "pow2", "row"
    rng = random.Random(seed * 1_000_003 + 2 * j + 0x9E37)
    cls = pick(rng, {k: v[4] for k, v in JAX_CLASSES.items()})
    family = pick(rng, JAX_SHAPES)
    shp = random_shape(rng, family)
    lb = "row" if rng.random() < 0.75 else "col"
    return cls, shp, family, lb


def make_jax_config(seed, index):
    """JAX configuration `index`: pair j = index // 2 gives the call and shape (jax_pair), index % 2
    the distribution (0 normal, 1 wide); the input seed and sampled rows/columns come from
    random.Random(seed * 1000003 + index)."""
    j = index // 2
    cls, (m, n, k), family, lb = jax_pair(seed, j)
    a, out, pref, prec, _w = JAX_CLASSES[cls]
    rng = random.Random(seed * 1_000_003 + index)
    dist = "normal" if index % 2 == 0 else "wide"
    cfg = {"index": index, "shape_family": family, "call": "jax.dot", "jax_class": cls, "jax_pair": j,
           "flags": {"allow_tf32": a == "f32" and prec is None, "use_fast_accum": None,
                     "precision": prec, "preferred_element_type": pref},
           "out_dtype_arg": pref, "a": a, "b": a, "out": out, "bias": None, "batch": 1, "m": m, "n": n, "k": k,
           "layout": {"a": "row", "b": lb}, "math": "tf32" if (a == "f32" and prec is None) else a}
    return _finish(cfg, rng, a, out, dist)


# ------------------------------------------------------------------ Triton kernels

KERNELS = {}


def define_kernels():
    """The three Triton kernels (defined once triton is imported), plain @triton.jit: Triton
    specializes every integer argument on being 1 and on divisibility by 16, as in any launch."""
    if KERNELS:
        return KERNELS

    @triton.jit
    def tcnum_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                            stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                            INPUT_PRECISION: tl.constexpr, MAX_IMPRECISE: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kt in range(0, tl.cdiv(K, BLOCK_K)):
            k_left = K - kt * BLOCK_K
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION, max_num_imprecise_acc=MAX_IMPRECISE)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c = acc.to(c_ptr.dtype.element_ty)
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    @triton.jit
    def tcnum_matmul_splitk_kernel(a_ptr, b_ptr, p_ptr, M, N, K, SPLIT_K,
                                   stride_am, stride_ak, stride_bk, stride_bn, stride_ps, stride_pm, stride_pn,
                                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                   INPUT_PRECISION: tl.constexpr, MAX_IMPRECISE: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        pid_s = tl.program_id(2)
        k_tiles = tl.cdiv(K, BLOCK_K)
        per_split = tl.cdiv(k_tiles, SPLIT_K)
        t0 = pid_s * per_split
        t1 = tl.minimum(t0 + per_split, k_tiles)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + (t0 * BLOCK_K + offs_k[None, :]) * stride_ak
        b_ptrs = b_ptr + (t0 * BLOCK_K + offs_k[:, None]) * stride_bk + offs_n[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kt in range(t0, t1):
            k_left = K - kt * BLOCK_K
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION, max_num_imprecise_acc=MAX_IMPRECISE)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        p_ptrs = p_ptr + pid_s * stride_ps + offs_m[:, None] * stride_pm + offs_n[None, :] * stride_pn
        tl.store(p_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    @triton.jit
    def tcnum_splitk_reduce_kernel(p_ptr, c_ptr, M, N, NUM_PARTS, stride_ps, stride_pm, stride_pn,
                                   stride_cm, stride_cn, BLOCK: tl.constexpr):
        e = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = e < M * N
        i = e // N
        j = e % N
        acc = tl.load(p_ptr + i * stride_pm + j * stride_pn, mask=mask, other=0.0)  # p0
        for s in range(1, NUM_PARTS):  # ((p0 + p1) + p2) + ...
            acc = acc + tl.load(p_ptr + s * stride_ps + i * stride_pm + j * stride_pn, mask=mask, other=0.0)
        tl.store(c_ptr + i * stride_cm + j * stride_cn, acc.to(c_ptr.dtype.element_ty), mask=mask)

    KERNELS.update(matmul=tcnum_matmul_kernel, splitk=tcnum_matmul_splitk_kernel, reduce=tcnum_splitk_reduce_kernel)
    return KERNELS


REDUCE_BLOCK = 1024


def triton_variant(cfg):
    """The kernel variant of a configuration: kind, types, precision, blocks, warps, layout of B."""
    t = cfg["triton"]
    kind = "splitk" if cfg["call"] == "triton.matmul_splitk" else "matmul"
    return (kind, cfg["a"], "f32" if kind == "splitk" else cfg["out"], t["input_precision"] or "",
            t["max_num_imprecise_acc"] or 0, t["BLOCK_M"], t["BLOCK_N"], t["BLOCK_K"], t["num_warps"],
            cfg["layout"]["b"])


def _spec(x):
    return "1" if x == 1 else ("D" if x % 16 == 0 else "-")


def tiny(x):
    """A small size with the properties Triton specializes an integer on (== 1, % 16 == 0), also
    for products: tiny(x) * tiny(y) = x * y (mod 16)."""
    return 1 if x == 1 else 32 + x % 16


def triton_spec(cfg):
    """(variant, specialization) of a configuration: what selects its compiled kernels, with the
    sizes, strides (products of sizes) and split counts only as Triton sees them."""
    m, n, k = cfg["m"], cfg["n"], cfg["k"]
    key = (_spec(m), _spec(n), _spec(k))
    if cfg["call"] == "triton.matmul_splitk":
        t = cfg["triton"]
        key += (_spec(m * n), _spec(t["split_k"]), _spec(t["split_k_effective"]))
    return triton_variant(cfg), key


def variant_name(v):
    kind, a, out, prec, imp, bm, bn, bk, w, lb = v
    return (f"{kind} {a}->{out}{' ' + prec if prec else ''}{' imprecise=' + str(imp) if imp else ''} "
            f"{bm}x{bn}x{bk} w{w} b:{lb}")


def tdtype(name):
    return CT.torch_dtype(name)


def operand(gen, cfg, op, rows, cols, dtype, layout):
    ins = cfg["inputs"]
    x = gen.values(ins["seed"], op, rows, cols, ins["dist"], ins["E"]).to(tdtype(dtype))
    return x if layout == "row" else x.t().contiguous().t()


def launch_matmul(a, b, c, cfg, stages):
    K = KERNELS
    t = cfg["triton"]
    m, n, k = cfg["m"], cfg["n"], cfg["k"]
    grid = (triton.cdiv(m, t["BLOCK_M"]), triton.cdiv(n, t["BLOCK_N"]))
    return K["matmul"][grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                             c.stride(0), c.stride(1), BLOCK_M=t["BLOCK_M"], BLOCK_N=t["BLOCK_N"],
                             BLOCK_K=t["BLOCK_K"], INPUT_PRECISION=t["input_precision"],
                             MAX_IMPRECISE=t["max_num_imprecise_acc"], num_warps=t["num_warps"], num_stages=stages)


def launch_splitk(a, b, p, c, cfg, stages):
    K = KERNELS
    t = cfg["triton"]
    m, n, k = cfg["m"], cfg["n"], cfg["k"]
    grid = (triton.cdiv(m, t["BLOCK_M"]), triton.cdiv(n, t["BLOCK_N"]), t["split_k"])
    k1 = K["splitk"][grid](a, b, p, m, n, k, t["split_k"], a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                           p.stride(0), p.stride(1), p.stride(2), BLOCK_M=t["BLOCK_M"], BLOCK_N=t["BLOCK_N"],
                           BLOCK_K=t["BLOCK_K"], INPUT_PRECISION=t["input_precision"],
                           MAX_IMPRECISE=t["max_num_imprecise_acc"], num_warps=t["num_warps"], num_stages=stages)
    k2 = K["reduce"][(triton.cdiv(m * n, REDUCE_BLOCK),)](
        p, c, m, n, t["split_k_effective"], p.stride(0), p.stride(1), p.stride(2), c.stride(0), c.stride(1),
        BLOCK=REDUCE_BLOCK, num_warps=4)
    return k1, k2


def warm_spec(cfg, smem_limit, asm_folder, save_asm=False):
    """Compile the kernels of a configuration's (variant, specialization) into Triton's disk cache:
    a launch on tiny zero operands of the same types, layouts and integer properties (tiny());
    where the kernel needs more shared memory than the device has, also num_stages = 2. Writes
    the compiled kernels' facts (compiled_info) to asm_folder."""
    m, n, k = tiny(cfg["m"]), tiny(cfg["n"]), tiny(cfg["k"])
    small = dict(cfg, m=m, n=n, k=k)
    a = torch.zeros(m, k, device="cuda", dtype=tdtype(cfg["a"]))
    b = torch.zeros(k, n, device="cuda", dtype=tdtype(cfg["b"]))
    if cfg["layout"]["b"] == "col":
        b = b.t().contiguous().t()
    from triton.runtime.errors import OutOfResources
    for stages in (TRITON_STAGES, 2):
        c = torch.empty(m, n, device="cuda", dtype=tdtype(cfg["out"]))
        try:
            if cfg["call"] == "triton.matmul":
                ks = [launch_matmul(a, b, c, small, stages)]
            else:
                p = torch.empty(cfg["triton"]["split_k"], m, n, device="cuda", dtype=torch.float32)
                ks = list(launch_splitk(a, b, p, c, small, stages))
        except OutOfResources:
            continue
        torch.cuda.synchronize()
        for kk in ks:
            compiled_info(kk, asm_folder=asm_folder)
            if save_asm:
                asm_sample(kk, asm_folder)
        if ks[0].metadata.shared <= smem_limit:
            break


MMA_PTX = re.compile(r"\b((?:wgmma\.mma_async|mma\.sync|wmma\.mma)[\w.]*)")
TF32_CVT = re.compile(r"\b(cvt\.[\w.]*tf32[\w.]*)")
SASS_MMA = re.compile(r"\b((?:HGMMA|QGMMA|IGMMA|BGMMA|HMMA|IMMA|QMMA|DMMA)[\w.]*)")
_ASM_CACHE = {}


def compiled_info(k, want_sass=True, asm_folder=None):
    """The MMA instructions and resources of a compiled Triton kernel, cached by its hash (in
    memory and as asm_folder/<hash>.json, which the precompile workers write)."""
    key = getattr(getattr(k, "metadata", None), "hash", None) or getattr(k, "hash", None) or str(id(k))
    if key in _ASM_CACHE:
        return _ASM_CACHE[key]
    path = pathlib.Path(asm_folder) / f"{key}.json" if asm_folder is not None else None
    if path is not None and path.exists():
        try:
            _ASM_CACHE[key] = json.loads(path.read_text())
            return _ASM_CACHE[key]
        except (OSError, json.JSONDecodeError):
            pass
    info = {"name": getattr(k, "name", None), "hash": key}
    try:
        ptx = k.asm["ptx"]
        info["mma_instructions"] = sorted(set(MMA_PTX.findall(ptx)))
        info["tf32_cvt"] = sorted(set(TF32_CVT.findall(ptx)))
        m = re.search(r"\.target\s+(\S+)", ptx)
        info["ptx_target"] = m.group(1) if m else None
    except Exception as exc:  # noqa: BLE001
        info["ptx_error"] = f"{exc.__class__.__name__}: {exc}"
    if want_sass:
        try:
            info["sass_mma"] = sorted(set(SASS_MMA.findall(k.asm["sass"])))
        except Exception as exc:  # noqa: BLE001
            info["sass_error"] = f"{exc.__class__.__name__}: {str(exc)[:200]}"
    md = getattr(k, "metadata", None)
    for key2 in ("shared", "num_warps", "num_stages"):
        if md is not None and hasattr(md, key2):
            info[key2] = getattr(md, key2)
    for key2 in ("n_regs", "n_spills"):
        if getattr(k, key2, None) is not None:
            info[key2] = getattr(k, key2)
    _ASM_CACHE[key] = info
    if path is not None:
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(info))
        os.replace(tmp, path)
    return info


def asm_sample(k, folder):
    """Save the TTGIR and PTX of a compiled kernel once (folder/<name>-<hash>.{ttgir,ptx}.gz)."""
    if folder is None:
        return
    h = getattr(getattr(k, "metadata", None), "hash", None) or "nohash"
    for ext in ("ttgir", "ptx"):
        path = pathlib.Path(folder) / f"{k.name}-{h[:16]}.{ext}.gz"
        if not path.exists():
            try:
                with gzip.open(path, "wt", encoding="utf-8") as f:
                    f.write(k.asm[ext])
            except Exception:  # noqa: BLE001
                pass


def run_triton_config(cfg, gen, stages_for, smem_limit, asm_folder):
    from triton.runtime.errors import OutOfResources
    m, n, k = cfg["m"], cfg["n"], cfg["k"]
    a = operand(gen, cfg, 1, m, k, cfg["a"], cfg["layout"]["a"])
    b = operand(gen, cfg, 2, k, n, cfg["b"], cfg["layout"]["b"])
    c = torch.empty(m, n, device="cuda", dtype=tdtype(cfg["out"]))
    splitk = cfg["call"] == "triton.matmul_splitk"
    p = None
    if splitk:
        p = torch.empty(cfg["triton"]["split_k"], m, n, device="cuda", dtype=torch.float32)
    v = triton_variant(cfg)
    stages = stages_for.get(v, TRITON_STAGES)

    def fn(st):
        if splitk:
            return list(launch_splitk(a, b, p, c, cfg, st))
        return [launch_matmul(a, b, c, cfg, st)]

    torch.cuda.synchronize()
    try:
        compiled = fn(stages)  # compile (or load) outside the profiler
    except OutOfResources:
        stages = 2
        compiled = fn(stages)
    stages_for[v] = stages
    if compiled[0].metadata.shared > smem_limit:
        raise RuntimeError(f"shared memory {compiled[0].metadata.shared} > {smem_limit}")
    torch.cuda.synchronize()
    c.fill_(0)
    if p is not None:
        p.fill_(0)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                            torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn(stages)
        torch.cuda.synchronize()
    kernels, launches = CT.kernel_names(prof)
    out1 = c.clone()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn(stages)
    end.record()
    torch.cuda.synchronize()
    rec = {key: val for key, val in cfg.items() if key != "triton_class"}
    rec["triton"] = dict(cfg["triton"], num_stages=stages, version=triton.__version__, **{"class": cfg["triton_class"]})
    if stages != TRITON_STAGES:
        rec["triton"]["num_stages_requested"] = TRITON_STAGES
    rec["kernels"] = kernels
    rec["kernel_launches"] = launches
    infos = [compiled_info(kk, asm_folder=asm_folder) for kk in compiled]
    rec["mma_instructions"] = sorted({x for i in infos for x in i.get("mma_instructions", [])})
    rec["triton"]["compiled"] = [{key: i.get(key) for key in ("name", "hash", "shared", "n_regs", "n_spills",
                                                             "mma_instructions", "sass_mma", "tf32_cvt", "ptx_target")
                                  if i.get(key) is not None} for i in infos]
    rec["deterministic"] = CT.same_bits(out1, c)
    ri = torch.tensor(cfg["rows"], device="cuda")
    ci = torch.tensor(cfg["cols"], device="cuda")
    rec["out_bits"] = CT.bits_hex(c.index_select(0, ri).index_select(1, ci).reshape(-1))
    rec["elapsed_ms"] = round(start.elapsed_time(end), 4)
    return rec


# ------------------------------------------------------------------ JAX

JAX_NP = {}


def np_dtype(name):
    import ml_dtypes
    import numpy as np
    return {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "e4m3": ml_dtypes.float8_e4m3fn,
            "f32": np.float32}[name]


def host_operand(gen, cfg, op, rows, cols, dtype):
    """The logical rows x cols operand as a numpy array of the operand type (rounded on the GPU by
    torch, as capture_torch does, or by ml_dtypes with --generator numpy)."""
    import numpy as np
    ins = cfg["inputs"]
    if gen is None:
        return INPUTS.to_dtype(INPUTS.values(ins["seed"], op, rows, cols, ins["dist"], ins["E"]), dtype)
    x = gen.values(ins["seed"], op, rows, cols, ins["dist"], ins["E"]).to(tdtype(dtype))
    size = x.element_size()
    iv = {4: torch.int32, 2: torch.int16, 1: torch.uint8}[size]
    h = x.view(iv).cpu().numpy()
    return h.view(np_dtype(dtype)) if dtype != "f32" else h.view(np.float32)


def jax_fn(cls, lb):
    key = (cls, lb)
    if key not in JAX_NP:
        a_t, out, pref, prec, _w = JAX_CLASSES[cls]
        kw = {}
        if pref:
            kw["preferred_element_type"] = {"float32": jnp.float32}[pref]
        if prec:
            kw["precision"] = {"HIGHEST": jax.lax.Precision.HIGHEST}[prec]
        if lb == "row":
            JAX_NP[key] = jax.jit(lambda a, b: jnp.dot(a, b, **kw))
        else:  # b is passed as the contiguous N x K array holding B^T
            JAX_NP[key] = jax.jit(lambda a, bt: jnp.dot(a, bt.T, **kw))
    return JAX_NP[key]


def _balanced(text, start):
    """text[start] is '{': the index after its matching '}' (quotes respected)."""
    depth, i, inq = 0, start, False
    while i < len(text):
        ch = text[i]
        if inq:
            if ch == "\\":
                i += 1
            elif ch == '"':
                inq = False
        elif ch == '"':
            inq = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


_DROP_BC = {"operation_queue_id", "wait_on_operation_queues", "force_earliest_schedule", "reification_cost",
            "device_type", "collective_backend_config"}


_SHAPE = re.compile(r"([a-z0-9]+)\[([0-9,]*)\]")


def _dims(shape):
    """The dimensions of the first array in an HLO shape string ("f32[4,512,512]{2,1,0}" or a tuple)."""
    m = _SHAPE.search(shape or "")
    return [int(x) for x in m.group(2).split(",") if x] if m else []


def _computations(text):
    """name -> (header line, body lines) of every computation of an HLO module's text."""
    comps = {}
    for m in re.finditer(r"^(ENTRY )?%?([\w.\-]+) (\([^\n]*\)) -> [^\n]*\{\n(.*?)^\}", text, flags=re.S | re.M):
        comps["ENTRY" if m.group(1) else m.group(2)] = (m.group(3), m.group(4).splitlines())
    return comps


def _instruction(line):
    m = re.match(r"\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*(.+?)\s+([\w\-]+)\((.*?)\)(?:,|$)", line)
    if not m:
        return None
    op = {"name": m.group(1), "shape": m.group(2), "opcode": m.group(3),
          "operands": re.findall(r"%([\w.\-]+)", m.group(4))}
    for key in ("kind", "calls", "custom_call_target", "to_apply"):
        mm = re.search(r"\b" + key + r'=("?)%?([^",\s}]+)\1', line)
        if mm:
            op[key] = mm.group(2)
    for key in ("lhs_batch_dims", "lhs_contracting_dims", "rhs_batch_dims", "rhs_contracting_dims", "dimensions",
                "padding", "operand_precision"):
        mm = re.search(r"\b" + key + r"=\{?([^}\s]*)\}?", line)
        if mm:
            op[key] = mm.group(1).rstrip(",")
    bi = line.find("backend_config=")
    if bi >= 0 and bi + 15 < len(line) and line[bi + 15] == "{":
        raw = line[bi + 15:_balanced(line, bi + 15)]
        try:
            bc = json.loads(raw)
            op["backend_config"] = {k: v for k, v in bc.items() if k not in _DROP_BC} if isinstance(bc, dict) else bc
        except json.JSONDecodeError:
            op["backend_config_raw"] = raw[:2000]
    return op


def _is_gemm(op):
    bc = op.get("backend_config") or {}
    fk = (bc.get("fusion_backend_config") or {}).get("kind", "") if isinstance(bc, dict) else ""
    tgt = op.get("custom_call_target", "")
    return (any(w in tgt for w in ("gemm", "matmul", "cublas", "cudnn")) or any(w in fk for w in ("gemm", "cudnn"))
            or op["name"].startswith("gemm_fusion"))


def _custom_call_lhs(gemm, gbc, byname):
    """A cuBLAS custom call's lhs: its dimensions (from the operand's shape) and contracting dimension."""
    dn = gbc.get("dot_dimension_numbers") or {}
    lhs_dims = None
    if gemm.get("operands"):
        src = byname.get(gemm["operands"][0])
        lhs_dims = _dims(src["shape"]) if src else None
    lc = dn.get("lhs_contracting_dimensions") or []
    return lhs_dims, int(lc[0]) if lc else None


def _triton_tile(d, fbc, out):
    """A Triton GEMM fusion's tile, warps and stages (and split-K) into out: from its triton_gemm_config,
    or from the block-level fusion config's output tile and the dot's BLOCK_K."""
    dbc = d.get("backend_config") or {}
    sizes = dbc.get("sizes") if isinstance(dbc, dict) else None
    blc = fbc.get("block_level_fusion_config") or {}
    tiles = (blc.get("output_tiles") or [{}])[0].get("sizes") or []
    tgc = fbc.get("triton_gemm_config") or {}
    if tgc:
        out["tile"] = {"m": int(tgc.get("block_m", 0)), "n": int(tgc.get("block_n", 0)),
                       "k": int(tgc.get("block_k", 0))}
        out["num_warps"], out["num_stages"] = int(tgc.get("num_warps", 0)), int(tgc.get("num_stages", 0))
        if tgc.get("split_k") is not None:
            out["split_k"] = int(tgc["split_k"])
    elif tiles:
        out["tile"] = {"m": int(tiles[-2]), "n": int(tiles[-1]), "k": int(sizes[0]) if sizes else None}
        out["num_warps"] = int(blc.get("num_warps", 0)) or None
        out["num_stages"] = blc.get("num_stages")


def _fusion_lhs(gemm, fbc, comps, out):
    """A GEMM fusion's dot: its lhs dimensions and contracting dimension; its tile and operand
    precision go into out. (None, None) when the fusion has no dot."""
    header, body = comps[gemm["calls"]]
    insts = [op for op in (_instruction(line) for line in body) if op]
    dots = [op for op in insts if op["opcode"] == "dot"]
    if not dots:
        return None, None
    d = dots[0]
    lhs_contract = int(d["lhs_contracting_dims"]) if d.get("lhs_contracting_dims", "").isdigit() else None
    shapes = dict(re.findall(r"([\w.\-]+): ([a-z0-9]+\[[0-9,]*\])", header))
    shapes.update({op["name"]: op["shape"] for op in insts})
    lhs_dims = None
    if d["operands"] and d["operands"][0] in shapes:  # the dot's lhs (XLA may have swapped A and B)
        lhs_dims = _dims(shapes[d["operands"][0]])
    _triton_tile(d, fbc, out)
    if d.get("operand_precision"):
        out["operand_precision"] = d["operand_precision"]
    return lhs_dims, lhs_contract


def _split_k_reduce(gemm, allops, comps):
    """The reduce over the split dimension: the instruction that reads the GEMM's result (a fusion or
    a reduce), with its kind, output tile, ops and initial values; None when there is none."""
    names = {gemm["name"]}
    for op in allops:  # the GEMM's result, also through get-tuple-element and bitcast
        if op["opcode"] in ("get-tuple-element", "bitcast") and names & set(op.get("operands", [])):
            names.add(op["name"])
    for op in allops:
        if not (names & set(op.get("operands", [])) and op["opcode"] in ("fusion", "reduce")):
            continue
        obc = op.get("backend_config") or {}
        ofbc = obc.get("fusion_backend_config") or {} if isinstance(obc, dict) else {}
        red = {"name": op["name"], "opcode": op["opcode"], "kind": op.get("kind"), "fusion_kind": ofbc.get("kind")}
        tiles = ((ofbc.get("block_level_fusion_config") or {}).get("output_tiles") or [{}])[0].get("sizes")
        if tiles:
            red["output_tile"] = [int(x) for x in tiles]
        if op.get("calls") in comps:
            body = comps[op["calls"]][1]
            red["ops"] = sorted({i["opcode"] for i in (_instruction(line) for line in body) if i})
            consts = [re.search(r"constant\(([^)]*)\)", line) for line in body]
            red["init"] = [c.group(1) for c in consts if c]
        return red
    return None


def parse_hlo(text):
    """What XLA's optimized HLO says about the GEMM of a jnp.dot (docs/library-corpus.md, "Triton
    and JAX"): the GEMM instruction of the ENTRY computation (a cuBLAS custom call, or a Triton
    GEMM fusion), its backend config (the custom call's gemm_backend_config, or the fusion's
    fusion_backend_config), and XLA's split-K rewrite where there is one: the GEMM then computes a
    batch of S partial products of contiguous K ranges (its operands are the zero-padded A, B
    bitcast to [.., S, K/S]), and a separate reduce fusion adds them over that dimension.

    {"custom_call", "backend_config", "split_k" (1 without the rewrite), "k_padded", "k_per_split",
     "tile" (a Triton fusion's output tile [BM, BN] and the dot's BLOCK_K), "num_warps",
     "num_stages", "reduce" (the reduce fusion: name, kind, fusion kind, output tiles), "ops"
     (every instruction of ENTRY but parameters, constants, bitcasts and tuples)}"""
    comps = _computations(text)
    entry = comps.get("ENTRY", ("", text.splitlines()))[1]
    allops = [op for op in (_instruction(line) for line in entry) if op]
    byname = {op["name"]: op for op in allops}
    ops = [{k: v for k, v in op.items() if k != "operands" or op["opcode"] in ("fusion", "custom-call")}
           for op in allops if op["opcode"] not in ("parameter", "constant", "get-tuple-element", "tuple", "bitcast",
                                                    "copy-start", "copy-done")]
    out = {"custom_call": None, "backend_config": None, "split_k": None, "k_padded": None, "k_per_split": None,
           "tile": None, "num_warps": None, "num_stages": None, "reduce": None, "ops": ops}
    gemm = next((op for op in allops if _is_gemm(op)), None)
    if gemm is None:
        out["unparsed"] = not allops
        return out
    bc = gemm.get("backend_config") or {}
    fbc = bc.get("fusion_backend_config") or {}
    gbc = bc.get("gemm_backend_config")
    out["custom_call"] = gemm.get("custom_call_target") or fbc.get("kind") or gemm["opcode"]
    out["backend_config"] = gbc or fbc or bc
    odims = _dims(gemm["shape"])
    out["split_k"] = odims[0] if len(odims) == 3 else 1
    # the contracting size per split: from the dot's dimension numbers and the lhs operand's shape
    lhs_dims, lhs_contract = None, None
    if gbc:
        lhs_dims, lhs_contract = _custom_call_lhs(gemm, gbc, byname)
    elif gemm.get("calls") in comps:
        lhs_dims, lhs_contract = _fusion_lhs(gemm, fbc, comps, out)
    if lhs_dims and lhs_contract is not None and lhs_contract < len(lhs_dims):
        out["k_per_split"] = lhs_dims[lhs_contract]
        out["k_padded"] = out["k_per_split"] * out["split_k"]
    if out["split_k"] > 1:
        red = _split_k_reduce(gemm, allops, comps)
        if red is not None:
            out["reduce"] = red
    return out


class MultiLtLog:
    """cuBLASLt's logger routed into Python for every loaded copy of libcublasLt (torch's and
    XLA's may differ), per-call windows as in capture_torch.py (mask 31 on during the window)."""

    def __init__(self):
        self.libs, self.cbs, self.msgs, self.on, self.paths = [], [], [], False, []
        for path in CT.loaded_libraries("libcublasLt.so"):
            lib = ctypes.CDLL(path)

            def cb(level, fn, msg):
                if self.on:
                    self.msgs.append((int(level), (fn or b"").decode(errors="replace"),
                                      (msg or b"").decode(errors="replace")))

            c = CT.LOGGER_CB(cb)
            lib.cublasLtLoggerSetCallback.argtypes = [CT.LOGGER_CB]
            if lib.cublasLtLoggerSetCallback(c) != 0:
                continue
            try:
                libc = ctypes.CDLL(None)
                libc.fopen.restype = ctypes.c_void_p
                libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
                devnull = libc.fopen(b"/dev/null", b"w")
                lib.cublasLtLoggerSetFile.argtypes = [ctypes.c_void_p]
                lib.cublasLtLoggerSetFile(devnull)
            except (OSError, AttributeError):
                pass
            lib.cublasLtLoggerSetMask(ctypes.c_int(0))
            self.libs.append(lib)
            self.cbs.append(c)
            self.paths.append(path)

    def start(self):
        self.msgs = []
        for lib in self.libs:
            lib.cublasLtLoggerSetMask(ctypes.c_int(CT.LT_LOG_MASK))
        self.on = True

    def stop(self):
        self.on = False
        for lib in self.libs:
            lib.cublasLtLoggerSetMask(ctypes.c_int(0))
        msgs, self.msgs = self.msgs, []
        return msgs


def perfetto_kernel_names(folder):
    """Kernel names from a jax.profiler trace's perfetto JSON: events on the GPU's stream threads."""
    files = glob.glob(os.path.join(folder, "**", "*.trace.json.gz"), recursive=True) + \
        glob.glob(os.path.join(folder, "**", "perfetto_trace.json.gz"), recursive=True)
    names = []
    for f in files:
        with gzip.open(f, "rt") as fh:
            data = json.load(fh)
        evs = data.get("traceEvents", data if isinstance(data, list) else [])
        pnames, tnames = {}, {}
        for e in evs:
            if e.get("ph") == "M" and e.get("name") == "process_name":
                pnames[e.get("pid")] = e.get("args", {}).get("name", "")
            if e.get("ph") == "M" and e.get("name") == "thread_name":
                tnames[(e.get("pid"), e.get("tid"))] = e.get("args", {}).get("name", "")
        xs = []
        for e in evs:
            if e.get("ph") != "X":
                continue
            pn, tn = pnames.get(e.get("pid"), ""), tnames.get((e.get("pid"), e.get("tid")), "")
            if "GPU" in pn and "Stream" in tn:
                xs.append((e.get("ts", 0), e.get("name", "")))
        names += [nm for _ts, nm in sorted(xs)]
        if names:
            break
    return names


def jax_kernels(run, mode):
    """(kernel names deduplicated in start order, launches, source) of one execution."""
    if mode == "torch":
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                torch.profiler.ProfilerActivity.CUDA]) as prof:
            out = run()
            out.block_until_ready()
            torch.cuda.synchronize()
        kernels, launches = CT.kernel_names(prof)
        return out, kernels, launches
    if mode == "jax":
        with tempfile.TemporaryDirectory() as d:
            jax.profiler.start_trace(d, create_perfetto_trace=True)
            try:
                out = run()
                out.block_until_ready()
            finally:
                jax.profiler.stop_trace()
            names = perfetto_kernel_names(d)
        dedup = []
        for nm in names:
            if nm not in dedup:
                dedup.append(nm)
        return out, dedup, len(names)
    out = run()
    out.block_until_ready()
    return out, [], 0


def bits_np(x, rows, cols):
    import numpy as np
    sub = np.asarray(x)[np.ix_(rows, cols)].reshape(-1)
    if sub.dtype.itemsize == 4:
        return [f"{v:08x}" for v in sub.view(np.uint32).tolist()]
    return [f"{v:04x}" for v in sub.view(np.uint16).tolist()]


def same_np(x, y):
    import numpy as np
    x, y = np.asarray(x), np.asarray(y)
    iv = {4: np.uint32, 2: np.uint16, 1: np.uint8}[x.dtype.itemsize]
    return bool(x.shape == y.shape and (x.view(iv) == y.view(iv)).all())


class JaxPairState:
    """The compiled executable and HLO facts of the current pair (shared by its two lines)."""

    def __init__(self):
        self.key = None
        self.compiled = None
        self.xla = None
        self.hlo = None
        self.compile_s = None


def run_jax_config(cfg, gen, state, kmode, ltlog, hlo_out):
    m, n, k = cfg["m"], cfg["n"], cfg["k"]
    a_h = host_operand(gen, cfg, 1, m, k, cfg["a"])
    b_h = host_operand(gen, cfg, 2, k, n, cfg["b"])
    if cfg["layout"]["b"] == "col":
        import numpy as np
        b_h = np.ascontiguousarray(b_h.T)
    a = jax.device_put(a_h)
    b = jax.device_put(b_h)
    key = (cfg["jax_class"], cfg["layout"]["b"], m, n, k)
    if state.key != key:
        state.key = key
        fn = jax_fn(cfg["jax_class"], cfg["layout"]["b"])
        t0 = time.perf_counter()
        state.compiled = fn.lower(a, b).compile()
        state.compile_s = round(time.perf_counter() - t0, 3)
        state.hlo = state.compiled.as_text()
        state.xla = parse_hlo(state.hlo)
        state.hlo_index = cfg["index"]
        if hlo_out is not None:
            hlo_out.write(json.dumps({"index": cfg["index"], "jax_pair": cfg["jax_pair"], "jax_class": cfg["jax_class"],
                                      "m": m, "n": n, "k": k, "layout": cfg["layout"], "hlo": state.hlo}) + "\n")
            hlo_out.flush()
        warm = state.compiled(a, b)  # first execution (autotuned program loaded) outside the profiler
        warm.block_until_ready()
        del warm
    run = lambda: state.compiled(a, b)  # noqa: E731
    if ltlog is not None:
        ltlog.start()
    try:
        out1, kernels, launches = jax_kernels(run, kmode)
    finally:
        msgs = ltlog.stop() if ltlog is not None else None
    t0 = time.perf_counter()
    out2 = run()
    out2.block_until_ready()
    elapsed = (time.perf_counter() - t0) * 1e3
    want = {"f32": "float32", "bf16": "bfloat16", "f16": "float16"}[cfg["out"]]
    if str(out2.dtype) != want:
        raise RuntimeError(f"output dtype {out2.dtype}, expected {want}")
    if tuple(out2.shape) != (m, n):
        raise RuntimeError(f"output shape {tuple(out2.shape)}")
    rec = {key2: val for key2, val in cfg.items() if key2 not in ("jax_class",)}
    rec["jax"] = {"class": cfg["jax_class"], "version": jax.__version__, "compile_s": state.compile_s,
                  "function": ("jnp.dot(a, b" if cfg["layout"]["b"] == "row" else "jnp.dot(a, bt.T")
                  + (", preferred_element_type=jnp.float32" if cfg["flags"]["preferred_element_type"] else "")
                  + (", precision=jax.lax.Precision.HIGHEST" if cfg["flags"]["precision"] else "") + ")"}
    x = state.xla
    rec["xla"] = dict(x, hlo_index=state.hlo_index)
    rec["kernels"] = kernels
    rec["kernel_launches"] = launches
    if msgs is not None:
        rec["cublaslt"] = CT.lt_algos(msgs)
    rec["deterministic"] = same_np(out1, out2)
    rec["out_bits"] = bits_np(out2, cfg["rows"], cfg["cols"])
    rec["elapsed_ms"] = round(elapsed, 4)
    return rec


# ------------------------------------------------------------------ header and summary

def make_header(lib, args, argv, check, extra):
    info = CT.device_info() if torch is not None else {"gpu": None}
    return {"kind": "tcnum-library-corpus", "version": 1, "family": lib, "device": info,
            "recorded": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": "python3 " + " ".join(shlex.quote(x) for x in [sys.argv[0]] + list(argv)),
            "run_seed": args.seed, "generator": INPUTS.GENERATOR, "generator_check": check,
            "flags_at_start": extra.get("flags_at_start", {}),
            "heuristic": {"off": "not recorded for Triton / XLA calls"},
            "cublaslt_log": extra.get("cublaslt_log", {"off": "Triton kernels do not call cuBLASLt"}),
            **{k: v for k, v in extra.items() if k not in ("flags_at_start", "cublaslt_log")}}


def summarize(lines, errors=None):
    s = {"lines": len(lines), "nondeterministic": sum(1 for r in lines if not r.get("deterministic", True)),
         "per_call": collections.Counter(), "per_class": collections.Counter(),
         "per_dist": collections.Counter(), "per_shape_family": collections.Counter(),
         "kernels": collections.Counter(), "errors": errors or []}
    mma = collections.defaultdict(collections.Counter)
    sass = collections.defaultdict(collections.Counter)
    xla = collections.defaultdict(collections.Counter)
    split = collections.defaultdict(collections.Counter)
    tcfg = collections.defaultdict(collections.Counter)
    lt = collections.Counter()
    reduce_kinds = collections.Counter()
    nonfinite = collections.Counter()
    for r in lines:
        cls = r.get("triton_class") or (r.get("jax") or {}).get("class") or ""
        if "triton" in r:
            t = r["triton"]
            cls = f"{r['a']}->{r['out']}" + (f" {t['input_precision']}" if t.get("input_precision") else "")
            if t.get("max_num_imprecise_acc"):
                cls += f" imprecise={t['max_num_imprecise_acc']}"
            var = (f"{r['call'].split('.')[-1]} {cls} {t['BLOCK_M']}x{t['BLOCK_N']}x{t['BLOCK_K']} "
                   f"w{t['num_warps']} s{t['num_stages']} b:{r['layout']['b']}")
            mma[var][" ".join(r.get("mma_instructions", [])) or "(none)"] += 1
            sass[var][" ".join(sorted({x for c in t.get("compiled", []) for x in c.get("sass_mma", [])})) or "(none)"] += 1
        if "xla" in r:
            x = r["xla"]
            key = f"{cls} {r['m']}x{r['n']}x{r['k']}" if r["shape_family"] == "pow2" else cls
            xla[cls][str(x.get("custom_call"))] += 1
            split[cls][str(x.get("split_k"))] += 1
            tile = x.get("tile")
            if tile:
                tcfg[cls][f"{tile['m']}x{tile['n']}x{tile['k']} w{x.get('num_warps')} s{x.get('num_stages')}"] += 1
            red = x.get("reduce") or {}
            if red:
                reduce_kinds[f"{x.get('custom_call')} -> {red.get('fusion_kind') or red.get('kind')}"] += 1
            if r["shape_family"] == "pow2" and r["inputs"]["dist"] == "normal":
                s.setdefault("pow2_choices", {})[key] = {
                    "custom_call": x.get("custom_call"), "split_k": x.get("split_k"), "k_per_split": x.get("k_per_split"),
                    "tile": tile, "num_warps": x.get("num_warps"), "num_stages": x.get("num_stages"),
                    "reduce": red.get("fusion_kind") or red.get("kind"), "kernels": r["kernels"],
                    "cublaslt": [c.get("raw") for c in r.get("cublaslt") or []]}
            for c in r.get("cublaslt") or []:
                lt[f"algo {c.get('algo_id')} splits {c.get('num_splits_k')} {c.get('reduction_scheme')}"] += 1
        s["per_call"][r["call"]] += 1
        s["per_class"][cls] += 1
        s["per_dist"][r["inputs"]["dist"]] += 1
        s["per_shape_family"][r["shape_family"]] += 1
        for kn in r.get("kernels", []):
            s["kernels"][kn] += 1
        bad = [h for h in r["out_bits"] if (len(h) == 8 and (int(h, 16) >> 23) & 0xFF == 0xFF)
               or (len(h) == 4 and r["out"] == "f16" and (int(h, 16) >> 10) & 0x1F == 0x1F)
               or (len(h) == 4 and r["out"] == "bf16" and (int(h, 16) >> 7) & 0xFF == 0xFF)]
        if bad:
            nonfinite[f"{cls} {r['inputs']['dist']}"] += len(bad)
    for key in ("per_call", "per_class", "per_dist", "per_shape_family"):
        s[key] = dict(sorted(s[key].items()))
    s["kernels"] = dict(s["kernels"].most_common())
    if mma:
        s["triton_mma_ptx_per_variant"] = {k: dict(v) for k, v in sorted(mma.items())}
        s["triton_mma_sass_per_variant"] = {k: dict(v) for k, v in sorted(sass.items())}
    if xla:
        s["xla_gemm_per_class"] = {k: dict(v) for k, v in sorted(xla.items())}
        s["xla_split_k_per_class"] = {k: dict(v) for k, v in sorted(split.items())}
        s["xla_triton_tiles_per_class"] = {k: dict(v.most_common()) for k, v in sorted(tcfg.items())}
        s["xla_split_reduce"] = dict(reduce_kinds.most_common())
        s["cublaslt_algos"] = dict(lt.most_common())
    s["nonfinite_sampled_elements"] = dict(nonfinite)
    return s


# ------------------------------------------------------------------ main per library

def start_torch(args):
    global torch
    import torch as _torch
    torch = _torch
    CT.torch = _torch
    if not torch.cuda.is_available():
        log("error: no CUDA device visible to torch")
        sys.exit(1)
    gen = CT.GpuGenerator(INPUTS, "auto")
    check = CT.check_generator(gen, INPUTS) if not args.no_generator_check else {"off": "--no-generator-check"}
    log(f"generator check: {json.dumps(check)}")
    if check.get("ok") is False:
        log("error: GPU generator differs from inputs.py; nothing recorded")
        sys.exit(3)
    return gen, check


def open_outputs(out_dir, names):
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / nm for nm in names]
    existing = [str(p) for p in paths if p.exists()]
    if existing:
        log(f"error: output exists, not overwriting: {', '.join(existing)}")
        sys.exit(2)
    return paths


def main_triton(args, argv):
    configs = [make_triton_config(args.seed, i) for i in range(args.first, args.first + args.configs)]
    variants = sorted({triton_variant(c) for c in configs})
    reps = {}
    for c in configs:  # one representative configuration per (variant, specialization)
        reps.setdefault(triton_spec(c), c)
    specs = [reps[key] for key in sorted(reps)]
    # the most expensive compiles (fp32 "ieee" dots, big tiles) first, spread over the workers
    specs.sort(key=lambda c: (c["triton"]["input_precision"] != "ieee", -c["triton"]["BLOCK_M"] * c["triton"]["BLOCK_N"]))
    first_of_variant = {}
    for key in sorted(reps):  # the TTGIR / PTX of one specialization per variant are kept (asm/)
        first_of_variant.setdefault(key[0], key)
    if args.list:
        for c in configs:
            print(json.dumps(c, separators=(",", ":")))
        log(f"{len(configs)} configurations, {len(variants)} kernel variants, {len(specs)} specializations")
        return 0
    global triton, tl
    out_dir = pathlib.Path(args.out)
    asm_folder = out_dir / "asm"
    if args.worker:  # precompile worker w/W: compile specs[w::W] into Triton's disk cache
        w, W = map(int, args.worker.split("/"))
        import torch as _torch
        globals()["torch"] = _torch
        CT.torch = _torch
        import triton as _triton
        import triton.language as _tl
        triton, tl = _triton, _tl
        define_kernels()
        smem = _torch.cuda.get_device_properties(0).shared_memory_per_block_optin
        t0 = time.perf_counter()
        for c in specs[w::W]:
            try:
                warm_spec(c, smem, asm_folder, save_asm=first_of_variant[triton_variant(c)] == triton_spec(c))
            except Exception as exc:  # noqa: BLE001
                log(f"worker {w}: #{c['index']} {variant_name(triton_variant(c))} {triton_spec(c)[1]}: "
                    f"{exc.__class__.__name__}: {str(exc).strip().splitlines()[-1][:300] if str(exc).strip() else ''}")
        log(f"worker {w}/{W}: {len(specs[w::W])} specializations in {time.perf_counter() - t0:.1f} s")
        return 0
    jl, sp = open_outputs(out_dir, ["triton.jsonl", "summary.json"])
    asm_folder.mkdir(exist_ok=True)
    t_start = time.perf_counter()
    workers = []
    if args.workers > 0:
        for w in range(args.workers):
            cmd = [sys.executable, str(pathlib.Path(__file__).resolve()), "triton", "--out", str(out_dir), "--seed",
                   str(args.seed), "--first", str(args.first), "--configs", str(args.configs),
                   "--worker", f"{w}/{args.workers}"]
            workers.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL))
    gen, check = start_torch(args)
    import triton as _triton
    import triton.language as _tl
    triton, tl = _triton, _tl
    define_kernels()
    smem = torch.cuda.get_device_properties(0).shared_memory_per_block_optin
    for p in workers:
        try:
            p.wait(timeout=max(1.0, args.compile_wait - (time.perf_counter() - t_start)))
        except subprocess.TimeoutExpired:
            log("precompile workers still running: going on (kernels not yet cached compile here)")
    t_compiled = time.perf_counter() - t_start
    log(f"precompile: {len(variants)} variants, {len(specs)} specializations, {t_compiled:.1f} s")
    extra = {"flags_at_start": {"triton": triton.__version__,
                                "env": {k: v for k, v in os.environ.items() if k.startswith("TRITON")},
                                "max_num_imprecise_acc_default_sm90": 2 ** 30},
             "triton_kernels": {"matmul": "tcnum_matmul_kernel", "splitk": "tcnum_matmul_splitk_kernel",
                                "reduce": "tcnum_splitk_reduce_kernel", "reduce_block": REDUCE_BLOCK,
                                "source": "tools/libraries/capture_triton_jax.py (define_kernels)",
                                "src": {name: getattr(KERNELS[name], "src", None) for name in KERNELS},
                                "shared_memory_per_block_optin": smem},
             "precompile": {"workers": args.workers, "variants": len(variants), "specializations": len(specs),
                            "seconds": round(t_compiled, 1)}}
    header = make_header("triton", args, argv, check, extra)
    stages_for, lines, errors, stopped = {}, [], [], None
    failures = collections.Counter()
    with open(jl, "x") as fh:
        fh.write(json.dumps(header, separators=(",", ":")) + "\n")
        for n_done, cfg in enumerate(configs, 1):
            if args.time_budget and time.perf_counter() - t_start > args.time_budget:
                stopped = f"time budget {args.time_budget} s reached before configuration {cfg['index']}"
                log(stopped)
                break
            v = triton_variant(cfg)
            if failures[v] >= 2:
                errors.append(f"{cfg['index']} {variant_name(v)}: skipped (variant failed twice)")
                continue
            t0 = time.perf_counter()
            try:
                rec = run_triton_config(cfg, gen, stages_for, smem, asm_folder)
            except Exception as exc:  # noqa: BLE001
                failures[v] += 1
                msg = f"{exc.__class__.__name__}: {str(exc).strip().splitlines()[-1][:300] if str(exc).strip() else ''}"
                errors.append(f"{cfg['index']} {variant_name(v)} {cfg['m']}x{cfg['n']}x{cfg['k']}: {msg}")
                log(f"config #{cfg['index']} ERROR {msg}\n{traceback.format_exc()[-1500:]}")
                try:
                    torch.cuda.synchronize()
                except Exception as exc2:  # noqa: BLE001
                    log(f"CUDA context unusable after #{cfg['index']}: {exc2!r}; stopping")
                    stopped = f"CUDA error at configuration {cfg['index']}"
                    break
                continue
            fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
            fh.flush()
            lines.append(rec)
            log(f"config {n_done}/{len(configs)} #{cfg['index']} {variant_name(v)} {cfg['m']}x{cfg['n']}x{cfg['k']}: "
                f"{' '.join(rec['mma_instructions'])} ({time.perf_counter() - t0:.2f} s)")
    for p in workers:
        if p.poll() is None:
            p.kill()
    return write_summary(sp, header, lines, errors, stopped, t_start)



def write_summary(path, header, lines, errors, stopped, t_start):
    """The run's summary.json (never over an existing file) and its closing log line; exit 0."""
    summary = summarize(lines, errors)
    summary.update(stopped=stopped, seconds=round(time.perf_counter() - t_start, 1))
    with open(path, "x") as f:
        json.dump({"header": header, "summary": summary}, f, indent=1)
        f.write("\n")
    log(f"done: {len(lines)} lines, {len(errors)} errors, {summary['nondeterministic']} nondeterministic, "
        f"{summary['seconds']} s")
    return 0

def main_jax(args, argv):
    P, N = (0, 1)
    if args.shard:
        P, N = map(int, args.shard.split("/"))
    configs = [make_jax_config(args.seed, i) for i in range(args.first, args.first + args.configs)
               if (i // 2) % N == P]
    if args.list:
        for c in configs:
            print(json.dumps(c, separators=(",", ":")))
        log(f"{len(configs)} configurations")
        return 0
    out_dir = pathlib.Path(args.out)
    jl, hp, sp = open_outputs(out_dir, ["jax.jsonl", "jax-hlo.jsonl", "summary.json"])
    t_start = time.perf_counter()
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    gen, check = (None, {"off": "--generator numpy (CPU test)"}) if args.generator == "numpy" else start_torch(args)
    global jax, jnp
    import jax as _jax
    import jax.numpy as _jnp
    jax, jnp = _jax, _jnp
    # one GEMM so that XLA's libraries are loaded, then the kernel-name source and the logger
    probe_a = jax.device_put(INPUTS.to_dtype(INPUTS.values(5, 1, 256, 256), "bf16"))
    probe = jax.jit(lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.float32))
    probe(probe_a, probe_a).block_until_ready()
    kmode = "none"
    tried = {}
    for mode in ([args.kernel_names] if args.kernel_names != "auto" else ["torch", "jax"]):
        if mode == "torch" and torch is None:
            continue
        try:
            _o, names, _n = jax_kernels(lambda: probe(probe_a, probe_a), mode)
            tried[mode] = names
            if names:
                kmode = mode
                break
        except Exception as exc:  # noqa: BLE001
            tried[mode] = f"{exc.__class__.__name__}: {exc}"
    log(f"kernel names from: {kmode} ({tried})")
    ltlog, lt_info = None, {"off": "--no-cublaslt-log"}
    if not args.no_cublaslt_log and torch is not None:
        try:
            ltlog = MultiLtLog()
            lt_info = {"libraries": ltlog.paths, "mask": CT.LT_LOG_MASK,
                       "mode": "callback on every loaded libcublasLt; mask on during the profiled execution only"}
        except Exception as exc:  # noqa: BLE001
            lt_info = {"off": f"{exc.__class__.__name__}: {exc}"}
    platform = {}
    try:
        d0 = jax.devices()[0]
        platform = {"platform": d0.platform, "device_kind": d0.device_kind,
                    "platform_version": d0.client.platform_version}
        platform["environment"] = jax.print_environment_info(return_string=True)
    except Exception as exc:  # noqa: BLE001
        platform["error"] = f"{exc.__class__.__name__}: {exc}"
    extra = {"flags_at_start": {"jax_default_matmul_precision": jax.config.jax_default_matmul_precision,
                                "XLA_FLAGS": os.environ.get("XLA_FLAGS"),
                                "XLA_PYTHON_CLIENT_PREALLOCATE": os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE")},
             "cublaslt_log": lt_info, "jax": {"devices": [str(d) for d in jax.devices()], **platform,
                                               "kernel_names": kmode, "kernel_names_probe": tried},
             "shard": f"{P}/{N}"}
    header = make_header("jax", args, argv, check, extra)
    state, lines, errors, stopped = JaxPairState(), [], [], None
    with open(jl, "x") as fh, open(hp, "x") as hfh:
        fh.write(json.dumps(header, separators=(",", ":")) + "\n")
        for n_done, cfg in enumerate(configs, 1):
            if args.time_budget and time.perf_counter() - t_start > args.time_budget:
                stopped = f"time budget {args.time_budget} s reached before configuration {cfg['index']}"
                log(stopped)
                break
            t0 = time.perf_counter()
            try:
                rec = run_jax_config(cfg, gen, state, kmode, ltlog, hfh)
            except Exception as exc:  # noqa: BLE001
                state.key = None
                msg = f"{exc.__class__.__name__}: {str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ''}"
                errors.append(f"{cfg['index']} {cfg['jax_class']} {cfg['m']}x{cfg['n']}x{cfg['k']}: {msg}")
                log(f"config #{cfg['index']} ERROR {msg}\n{traceback.format_exc()[-1500:]}")
                continue
            fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
            fh.flush()
            lines.append(rec)
            x = rec["xla"]
            log(f"config {n_done}/{len(configs)} #{cfg['index']} {cfg['jax_class']} {cfg['m']}x{cfg['n']}x{cfg['k']} "
                f"{cfg['inputs']['dist']}: {x['custom_call']} split_k={x['split_k']} {' '.join(rec['kernels'])[:150]} "
                f"(compile {rec['jax']['compile_s']} s, {time.perf_counter() - t0:.2f} s)")
    return write_summary(sp, header, lines, errors, stopped, t_start)


def read_jsonl(path):
    """(header, lines) of a plain JSON-lines file written while running; a cut last line is dropped."""
    header, lines = None, []
    with open(path, encoding="utf-8") as f:
        for no, text in enumerate(f):
            try:
                obj = json.loads(text)
            except json.JSONDecodeError:
                log(f"{path}:{no + 1}: unreadable line dropped")
                continue
            if no == 0:
                header = obj
            else:
                lines.append(obj)
    return header, lines


def main_merge(args, argv):
    out_dir = pathlib.Path(args.out)
    names = []
    if args.triton:
        names += ["triton.jsonl.gz"]
    if args.jax:
        names += ["jax.jsonl.gz", "jax-hlo.jsonl.gz"]
    paths = open_outputs(out_dir, names + ["summary.json"])
    result = {}
    for lib, dirs in (("triton", [args.triton] if args.triton else []), ("jax", args.jax or [])):
        if not dirs:
            continue
        headers, lines, summaries, hlos = [], [], [], []
        for d in dirs:
            h, ls = read_jsonl(pathlib.Path(d) / f"{lib}.jsonl")
            headers.append(h)
            lines += ls
            sp = pathlib.Path(d) / "summary.json"
            if sp.exists():
                summaries.append(json.loads(sp.read_text())["summary"])
            hp = pathlib.Path(d) / "jax-hlo.jsonl"
            if lib == "jax" and hp.exists():
                hlos += read_jsonl_all(hp)
        lines.sort(key=lambda r: r["index"])
        if lib == "jax":  # "xla" is parse_hlo of the stored optimized HLO, computed again here
            texts = {h["index"]: h["hlo"] for h in hlos}
            for r in lines:
                x = r.get("xla") or {}
                if x.get("hlo_index") in texts:
                    r["xla"] = dict(parse_hlo(texts[x["hlo_index"]]), hlo_index=x["hlo_index"])
        header = dict(headers[0])
        if len(headers) > 1:
            header["command"] = [h["command"] for h in headers]
            header["shards"] = [{"shard": h.get("shard"), "recorded": h["recorded"],
                                 "generator_check": h["generator_check"]} for h in headers]
        header["merged"] = {"command": "python3 " + " ".join(shlex.quote(x) for x in [sys.argv[0]] + list(argv)),
                            "recorded": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
        with gzip.open(out_dir / f"{lib}.jsonl.gz", "xt", encoding="utf-8", compresslevel=9) as f:
            f.write(json.dumps(header, separators=(",", ":")) + "\n")
            for r in lines:
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
        if lib == "jax":
            hlos.sort(key=lambda r: r["index"])
            with gzip.open(out_dir / "jax-hlo.jsonl.gz", "xt", encoding="utf-8", compresslevel=9) as f:
                for r in hlos:
                    f.write(json.dumps(r, separators=(",", ":")) + "\n")
        errors = [e for s in summaries for e in s.get("errors", [])]
        s = summarize(lines, errors)
        s["stopped"] = [x.get("stopped") for x in summaries]
        s["seconds"] = [x.get("seconds") for x in summaries]
        result[lib] = {"header": header, "summary": s}
    with open(paths[-1], "x") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    for lib, r in result.items():
        s = r["summary"]
        log(f"{lib}: {s['lines']} lines, {len(s['errors'])} errors, {s['nondeterministic']} nondeterministic")
    return 0


def read_jsonl_all(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for text in f:
            try:
                out.append(json.loads(text))
            except json.JSONDecodeError:
                pass
    return out


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    faulthandler.enable()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="lib", required=True)
    for lib in ("triton", "jax"):
        p = sub.add_parser(lib)
        p.add_argument("--out", required=True, help="output folder (created; files are never overwritten)")
        p.add_argument("--configs", type=int, required=True, help="number of configurations (indices FIRST..)")
        p.add_argument("--first", type=int, default=0)
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--time-budget", type=float, default=0, help="stop starting configurations after this "
                       "many seconds from the start (0: none)")
        p.add_argument("--list", action="store_true", help="print the configurations as JSON lines and exit")
        p.add_argument("--no-generator-check", action="store_true")
        if lib == "triton":
            p.add_argument("--workers", type=int, default=8, help="precompile processes (0: compile in line)")
            p.add_argument("--compile-wait", type=float, default=150, help="wait at most this long for them")
            p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
        else:
            p.add_argument("--shard", default=None, help="P/N: only pairs j (lines 2j, 2j+1) with j %% N == P")
            p.add_argument("--generator", choices=["gpu", "numpy"], default="gpu",
                           help="numpy: inputs on the CPU, no torch (for a CPU test of the script)")
            p.add_argument("--kernel-names", choices=["auto", "torch", "jax", "none"], default="auto")
            p.add_argument("--no-cublaslt-log", action="store_true")
    p = sub.add_parser("merge")
    p.add_argument("--out", required=True)
    p.add_argument("--triton", default=None, help="folder of a triton run")
    p.add_argument("--jax", nargs="*", default=None, help="folders of jax runs (shards)")
    args = ap.parse_args(argv)
    if getattr(args, "time_budget", 0) and not getattr(args, "list", False):
        # a hang (a deadlock in a library) ends the process with every thread's traceback
        faulthandler.dump_traceback_later(args.time_budget + 90, exit=True)
    if args.lib == "triton":
        return main_triton(args, argv)
    if args.lib == "jax":
        return main_jax(args, argv)
    return main_merge(args, argv)


if __name__ == "__main__":
    sys.exit(main())
