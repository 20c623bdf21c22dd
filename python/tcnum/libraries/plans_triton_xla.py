"""Plans of Triton tl.dot GEMMs and JAX/XLA dots (docs/libraries.md, "Triton and XLA").

Triton (corpora/h100-libraries/triton-jax/triton.jsonl.gz, tcnum's own tutorial-style kernel):
the PTX's wgmma shape gives the instruction; the K loop walks tiles of BLOCK_K upward with the
last tile masked (the partial tile last); split-K without atomics is whole tiles per split, the
fp32 partials added in order; tf32 operands are truncated (no cvt.rna.tf32 in the PTX); fp8 with
max_num_imprecise_acc = n promotes every n/32 k-steps.
XLA: a Triton GEMM fusion (`__triton_nested_gemm_fusion`) with XLA's split-K rewrite pads K to
S·k_per_split, computes the S contiguous slices as a batch and reduces them in a second fusion
(tl.sum: a pairwise tree; XLA's loop reduce: in order); a fusion of fewer than 4 warps runs
mma.sync (mma_v2), fp8 upcast to f16. f32 operands at default precision (TF32)
are rounded to tf32 to nearest, ties away from zero (cvt.rna.tf32.f32), unlike Triton's own
tl.dot (truncation) and cuBLAS (ties to even). A cuBLASLt custom call takes the torch
rules (kernel names and the logged algo) for its own K; inside XLA's split-K rewrite it runs once
per slice (a batch of S GEMMs over k_per_split each), so the plan is its schedule repeated in every
slice (k-tiles and cuBLAS's own split restarting at each slice) and XLA's reduce over the slices.
"""

from __future__ import annotations

import dataclasses
import itertools
import re

from .._schedule import Schedule
from .kernels import short_name
from .plans import Unexplained, instr_k, wgmma_instruction
from .trees import butterfly, left_deep, pairwise
from .replay import Plan


def _wgmma_name(ptx_names: list[str], a: str, b: str) -> str:
    for n in ptx_names:
        m = re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k(\d+)\.f32\.(\w+)\.(\w+)", n)
        if m:
            t = {"bf16": "bf16", "f16": "f16", "tf32": "tf32", "e4m3": "e4m3", "e5m2": "e5m2"}
            return f"wgmma.m64n8k{m.group(1)}.f32.{t.get(m.group(2), m.group(2))}.{t.get(m.group(3), m.group(3))}"
    raise Unexplained(f"no wgmma in the kernel's PTX ({ptx_names}): an FMA path, no tensor core")


def triton_candidates(call: dict):
    t = call["triton"]
    ptx = call.get("mma_instructions") or [n for c in t.get("compiled", []) for n in c.get("mma_instructions", [])]
    instr = _wgmma_name(ptx, call["a"], call["b"])
    ik, bk = instr_k(instr), t["BLOCK_K"]
    imprecise = t.get("max_num_imprecise_acc") or 0
    promotion = imprecise // ik if imprecise and ik else 0
    split = t.get("split_k") or 1
    variants = itertools.product(("last", "first"), ("truncate", "nearest_even") if "tf32" in instr else ("truncate",))
    for partial, tf32 in variants:
        kw = dict(tile_k=bk if bk % ik == 0 else 0, partial_tile=partial, tf32_operands=tf32, promotion=promotion,
                  note=f"triton BLOCK_K={bk}")
        if split > 1:
            kw.update(split_k=split, slice_rule="whole_tiles")
        yield Plan(instr, Schedule(**kw))


# f32 operands of an XLA Triton GEMM fusion at default precision (TF32): rounded to nearest with
# ties away from zero (cvt.rna.tf32.f32) before the tensor core, the rule; truncation (what the
# instruction does, and Triton's own tl.dot) and cuBLAS's round-to-nearest-even after it.
# Ties are common in real data (every f32 whose low 13 bits are 0x1000): the libraries' corpus
# draws values of 16 fraction bits, so ties-away and ties-to-even differ in most outputs.
XLA_TF32_OPERANDS = ("nearest_away", "truncate", "nearest_even")


def xla_candidates(call: dict):
    x = call.get("xla") or {}
    if call["flags"].get("precision") == "HIGHEST" and call["a"] == "f32":
        raise Unexplained("f32 at precision HIGHEST: FFMA kernels, no tensor core")
    if str(x.get("custom_call", "")).startswith("__cublas"):
        yield from cublas_in_xla_candidates(call)
        return
    if x.get("custom_call") != "__triton_nested_gemm_fusion":
        raise Unexplained(f"XLA custom call {x.get('custom_call')}: no plan for this kind of XLA GEMM")
    instr, tile = wgmma_instruction(call["a"], call["b"]), (x.get("tile") or {}).get("k")
    order = None
    if int(x.get("num_warps") or 4) < 4:
        instr, order = mma_v2(call["a"], call["b"], tile)
    ik, k = instr_k(instr), call["k"]
    tile = tile or ik
    split, kps = x.get("split_k") or 1, x.get("k_per_split") or k
    bounds = list(range(0, split * kps + 1, kps)) if split > 1 else None  # over K padded to split·kps
    slices = len(bounds) - 1 if bounds else 1
    triton_reduce = (x.get("reduce") or {}).get("fusion_kind") == "__triton"
    trees = [pairwise(list(range(slices))), None] if triton_reduce else [None, pairwise(list(range(slices)))]
    trees += _butterflies(slices)
    for tree, partial, tf32 in itertools.product(trees if slices > 1 else [None], ("last", "first"),
                                                 XLA_TF32_OPERANDS if "tf32" in instr else ("truncate",)):
        kw = dict(tile_k=tile if tile % ik == 0 else 0, partial_tile=partial, tf32_operands=tf32, tile_k_order=order,
                  note=f"xla {x.get('custom_call')} split_k={split} k_per_split={kps}")
        if bounds and slices > 1:
            kw.update(slice_bounds=tuple(bounds), reduction_tree=tree, k_padded=split * kps if split * kps != k else 0)
        yield Plan(instr, Schedule(**kw))


def mma_v2(a: str, b: str, tile: int | None) -> tuple[str, tuple | None]:
    """The instruction (and k-slot order within a tile) of a Triton dot of fewer than 4 warps,
    which cannot issue wgmma (a warpgroup is 4 warps): Triton's MMAv2 path, mma.sync. fp8 operands
    are upcast to f16 first (cvt.rn.f16x2.e4m3x2, exact) in a layout of 4 consecutive k per thread
    (kWidth 4): each 32 of K feeds its two k16 instructions alternate pairs of k, the first
    k 0, 1, 4, 5, ..., 28, 29 and the second 2, 3, 6, 7, ..., 30, 31 (H100, XLA's fusion of
    jnp.dot e4m3 64 x 1856 x 2816 at 2 warps: mma.sync.m16n8k16 f16 in its Triton IR, and this
    order reproduces the wide-input call 64 of 64, where k in order gives 33)."""
    if a in ("bf16", "f16") and b == a:
        return f"mma.m16n8k16.f32.{a}.{b}.f32", None
    if a == "f32" or b == "f32":
        return "mma.m16n8k8.f32.tf32.tf32.f32", None
    if a not in ("e4m3", "e5m2") or b not in ("e4m3", "e5m2"):
        raise Unexplained(f"Triton MMAv2 with {a} x {b} operands: no rule")
    if tile != 32:
        raise Unexplained(f"Triton MMAv2 fp8 upcast with BLOCK_K {tile}: its operand layout was seen at BLOCK_K 32 only")
    return "mma.m16n8k16.f32.f16.f16.f32", tuple(p for half in (0, 2) for q in range(8) for p in (4 * q + half, 4 * q + half + 1))


def _butterflies(slices: int) -> list:
    """tl.sum over a power-of-two count of partials laid across lanes and warps adds the partials
    that differ in one index bit per step; which bit goes first depends on the reduce fusion's
    layout (H100, XLA's split-K at 8 slices: bf16 12 x 830 x 2533 adds bit 1, then 2, then 0;
    f16 520 x 16 x 1751 bit 2, 0, 1; most calls 0, 1, 2 = pairwise). Every order but the pairwise
    one, for reveal (not derived from the layout yet: never the rule)."""
    bits = slices.bit_length() - 1
    if slices < 4 or 1 << bits != slices or bits > 5:
        return []
    return [butterfly(slices, order) for order in itertools.permutations(range(bits)) if order != tuple(range(bits))]


_CUBLAS_GEMM = ("nvjet", "cutlass", "sm80_xmma", "sm90_xmma", "gemv", "gemmSN", "gemmk1", "dot_kernel")


def _cublas_kernels(kernels: list[str]) -> list[str]:
    """The kernels cuBLAS launched, without XLA's own fusions (pads, transposes, its split-K
    reduce, Triton fusions) and copies; a memset counts only right before a cuBLAS GEMM kernel
    (serial split-K's semaphores), since XLA sets buffers too."""
    def gemm(k):
        return short_name(k).startswith(_CUBLAS_GEMM) or "splitKreduce" in k
    return [k for i, k in enumerate(kernels)
            if gemm(k) or (k.startswith("Memset") and i + 1 < len(kernels) and gemm(kernels[i + 1]))]


def _inner_call(call: dict, k: int) -> dict:
    """The cuBLAS GEMM of one XLA slice as a torch-style call: f32 operands run as TF32 unless
    the dot asked for precision HIGHEST (XLA's default on Hopper)."""
    flags = dict(call["flags"], allow_tf32=call["flags"].get("precision") != "HIGHEST")
    return dict(call, call="xla.cublas", kernels=_cublas_kernels(call["kernels"]), k=k, flags=flags)


def _slice_bounds(inner: Schedule, kps: int, tile: int) -> list[int] | None:
    """cuBLAS's own slice bounds inside one XLA slice of kps."""
    if inner.split_k <= 1:
        return [0, kps]
    if inner.slice_rule != "whole_tiles" or inner.slice_bounds is not None:
        return None  # interleaved or explicit slices: not composed
    g = inner.slice_align or tile
    per = -(-(-(-kps // g)) // inner.split_k) * g
    return [b for b in range(0, kps, per)] + [kps]


def _compose(inner: Schedule, k: int, split: int, kps: int, tile: int, xla_tree: str) -> Schedule | None:
    """The inner schedule run in each of XLA's `split` slices of kps (K padded with zeros to
    split·kps, as XLA does), then XLA's reduce over the slices ("pairwise": tl.sum, "ordered":
    its loop reduce)."""
    local = _slice_bounds(inner, kps, tile)
    if local is None:
        return None
    bounds, groups = [0], []
    for start in range(0, split * kps, kps):
        first = len(bounds) - 1
        bounds += [start + b for b in local[1:]]
        groups.append(left_deep(list(range(first, len(bounds) - 1))))
    tree = left_deep(groups) if xla_tree == "ordered" else pairwise(groups)
    return dataclasses.replace(inner, split_k=1, slice_rule="balanced_steps", slice_align=0, slice_bounds=tuple(bounds),
                               k_padded=split * kps if split * kps != k else 0, serial=False,
                               reduction_tree=tree if isinstance(tree, tuple) else None,
                               note=f"{inner.note}; xla split-K {split} x {kps} ({xla_tree})")


def cublas_in_xla_candidates(call: dict, inner_limit: int = 400):
    """Plans of a cuBLASLt custom call, alone or inside XLA's split-K rewrite."""
    from .plans import candidates  # noqa: PLC0415 (plans imports this module)

    x, k = call["xla"], call["k"]
    split, kps = x.get("split_k") or 1, x.get("k_per_split") or k
    inner = _inner_call(call, kps if split > 1 else k)
    if call["a"] == "f32" and not inner["flags"]["allow_tf32"]:
        raise Unexplained("f32 at precision HIGHEST: FFMA kernels, no tensor core")
    plans = itertools.islice(candidates(inner), inner_limit)
    if split <= 1:
        yield from plans
        return
    triton_reduce = (x.get("reduce") or {}).get("fusion_kind") == "__triton"
    trees = ("pairwise", "ordered") if triton_reduce else ("ordered", "pairwise")
    for plan, tree in itertools.product(list(plans), trees):
        tile = plan.schedule.tile_k or instr_k(plan.instruction)
        sched = _compose(plan.schedule, k, split, kps, tile, tree)
        if sched is not None:
            yield dataclasses.replace(plan, schedule=sched)
