"""Plans: the instruction and schedule of a library call (docs/libraries.md, "Plans").

plan_for(call) reads the call's kernel names (and cuBLASLt's heuristic, where recorded) and
states the plan by rule; candidates(call) lists the plans reveal tries when the rule is not
enough (k-tiles a name does not give, split counts the heuristic does not give).
"""

from __future__ import annotations

import itertools

from .._schedule import Schedule
from . import segment_k
from .kernels import KernelInfo, classify, is_reduction_kernel
from .replay import Plan


# cuBLASLt's algo 63 (sm80_xmma TF32 split-K after a Memset, no reduction kernel: the slices'
# partials are added inside the kernel) adds them in slice order at 3, 4, 8, 16 and 32 slices,
# but at 6 slices by this fixed tree, then the bias: the same for every element, shape and run
# (H100: 8 calls, each deterministic over 200 runs; revealed per element by designed pair
# inputs, tools/libraries/capture_reduction_order.py; docs/libraries.md).
IN_KERNEL_TREES = {6: ((((0, 3), 5), (1, 4)), 2)}


class Unexplained(Exception):
    """A call no schedule of tcnum's language can reproduce (the reason says why)."""


def math_type(call: dict) -> str:
    if call["a"] == "f32":
        if not call["flags"].get("allow_tf32"):
            raise Unexplained("fp32 operands without TF32: a CUDA-core or 3xTF32 kernel")
        return "tf32"
    return call["a"]


def wgmma_instruction(a: str, b: str) -> str:
    """The f32-accumulating wgmma for operand types a and b (f32 operands run as tf32); its N
    changes no output bit."""
    a, b = ("tf32" if a == "f32" else a), ("tf32" if b == "f32" else b)
    return f"wgmma.m64n8k{ {'tf32': 8, 'e4m3': 32, 'e5m2': 32}.get(a, 16) }.f32.{a}.{b}"


def instruction_for(info: KernelInfo, call: dict) -> str:
    t, b = math_type(call), math_type(call) if call["b"] == "f32" else call["b"]
    if info.mma == "wgmma":
        return wgmma_instruction(t, b)
    if info.mma in ("m16n8k8", "m16n8k16"):
        shape = "m16n8k8" if t == "tf32" else info.mma  # tf32 mma exists only as k8 (and k4)
        return f"mma.{shape}.f32.{t}.{b}.f32"
    raise Unexplained(f"no instruction known for kernel {info.name}")


def instr_k(instr: str) -> int:
    return int(instr.split(".")[1].rsplit("k", 1)[1])


def logged_split(call: dict) -> int | None:
    """The split count cuBLASLt logged for the call's matmul (CUBLASLT_LOG_LEVEL=5: the ground
    truth; docs/library-corpus.md), from the line's "cublaslt" list or a "logged" supplement
    (tools/libraries/heuristic_variants.py); -1 (segment-K kernels) reads as 1."""
    for key, field in (("cublaslt", "num_splits_k"), ("logged", "numSplitsK")):
        entries = [e for e in (call.get(key) or []) if isinstance(e, dict)]
        if entries:
            v = entries[-1].get(field, 1)
            return 1 if not isinstance(v, int) or v < 1 else min(v, 4096)
    return None


def logged_algo(call: dict) -> int | None:
    """cuBLASLt's logged algo id for the call's matmul (None where nothing was logged)."""
    entries = [e for e in (call.get("cublaslt") or []) if isinstance(e, dict)]
    if entries:
        return entries[-1].get("algo_id")
    entries = [e for e in (call.get("logged") or []) if isinstance(e, dict)]
    return entries[-1].get("algoId") if entries else None


def _split_count(call: dict) -> int | None:
    """The split count: as logged where it was, else cuBLASLt's heuristic for the equivalent call."""
    logged = logged_split(call)
    if logged is not None:
        return logged
    h = call.get("heuristic") or {}
    s = h.get("splitk_num")
    return s if isinstance(s, int) and 1 < s <= 4096 else None  # -1 (unset) reads as 2^32 - 1


def _align(info: KernelInfo, call: dict) -> int | None:
    """The granule of split-K slices. CUTLASS 2.x kernels (serial and cuBLAS's parallel split-K)
    cut on the k-tile when it divides K, else on 128 bits of A (8 elements, tf32 4): None here,
    resolved with the tile. cuBLASLt's nvjet kernels cut on the k-tile (0)."""
    return None if info.family == "cutlass" else 0


def _schedule(info, instr, call, tile, partial, split, align, tf32, formats, c_entry, rule) -> Schedule:
    ik, out = instr_k(instr), call["out"]
    if align is None:  # CUTLASS: the k-tile where it divides K, else 128 bits of A (8 elements, tf32 4)
        align = 0 if tile and call["k"] % tile == 0 else 4 if math_type(call) == "tf32" else 8
    promotion = tile // ik if info.promoted and tile else 0
    kw = dict(tile_k=tile if tile and tile % ik == 0 else 0, partial_tile=partial, promotion=promotion,
              tf32_operands=tf32, c=c_entry, note=info.name)
    badd = info.family == "nvjet" and "_badd_" in info.name
    if c_entry == "after_reduction" and ((split > 1 and not formats[2]) or badd) and out != "f32":
        # splitKreduce writes D in the output type before its bias epilogue; so do the nvjet
        # "_badd_" kernels (addmm with N = 1, after torch copied the bias into D)
        kw["sum_format"] = out
    if split and split > 1:
        kw.update(split_k=split, slice_rule=rule, slice_align=align if rule == "whole_tiles" else 0,
                  partial_format=formats[0], reduction_format=formats[1], serial=formats[2] and rule == "whole_tiles")
        tiles = -(-call["k"] // (tile or ik))
        if rule == "interleaved_tiles" and formats[2] and split in IN_KERNEL_TREES and tiles >= split:
            kw["reduction_tree"] = IN_KERNEL_TREES[split]
    return Schedule(**kw)


def plan_for(call: dict) -> Plan:
    """The plan by rule (raises Unexplained where there is none)."""
    return next(iter(candidates(call)))


def _dimensions(call: dict, info: KernelInfo, instr: str, max_split: int) -> dict:
    """Each choice a plan makes, the rule's value first."""
    ik = instr_k(instr)
    tiles = [t for t in ([info.tile_k] if info.tile_k else [32, 16, 64, 128]) if t % ik == 0] or [ik]
    splits = [1]
    if info.split_k:
        first = _split_count(call) or 1
        splits = [first] + [s for s in range(1, max_split + 1) if s != first]
    serial = not any(is_reduction_kernel(k) for k in call["kernels"])
    # sm80_xmma split-K (cuBLASLt algo 63, or the xmma kernel's own split-K reduction kernel after
    # it): k-tiles dealt round robin
    interleaved = logged_algo(call) == 63 or (info.family == "xmma" and any(
        "execute_split_k_kernel" in k for k in call["kernels"]))
    out = call["out"]
    if serial:
        formats = [("f32", out, True), ("f32", "f32", False), (out, "f32", False)]
    else:  # cuBLAS's splitKreduce adds in fp32 partials of its workspace type (its name says which)
        kept = info.partial_type or "f32"
        formats = [(kept, "f32", False)] + [f for f in (("f32", "f32", False), (out, "f32", False)) if f[0] != kept]
    return {
        "split": splits,
        "tile": tiles,
        "partial": ["first", "last"] if info.family == "cutlass" else ["last", "first"],
        "tf32": ["nearest_even", "truncate"] if math_type(call) == "tf32" else ["truncate"],
        # The granule of whole_tiles slices: the rule's, the k-tile, 128 bits of A, then 32 and
        # 64 elements of K (cuBLAS's CUTLASS split-K, H100: cutlass_80_tensorop_s1688gemm_256x64_16x4
        # TF32 cuts 8/16 x 11008 x 4096 at 6 splits into 5 x 704 + 576, and
        # cutlass_80_wmma_tensorop_f16_s161616gemm_f16_32x32_128x2 cuts 2 x 13824 x 5120 at 12 into
        # 11 x 448 + 192: ceil(K / (S·g))·g with g = 32 or 64, where the rule's granule (16, 128, 4 or
        # 8) gives 688 and 512; other calls of the same kernels cut on 4 (13824 at 13 -> 1064), so
        # which granule a call takes is not known: revealed, not a rule).
        "align": list(dict.fromkeys([_align(info, call), 0, 4 if math_type(call) == "tf32" else 8, 32, 64])),
        # (partial_format, reduction_format, serial): serial split-K (a memset of its semaphores,
        # no reduction kernel) writes each running sum into the output type; cuBLAS's
        # splitKreduce adds partials in fp32, kept in its workspace type (H100, torch 2.11:
        # docs/libraries.md).
        "formats": formats,
        # A bias is the GEMM's C: with slice 0's partial (serial split-K's first epilogue, and
        # splitKreduce over fp32 partials), or after the reduction (splitKreduce over half
        # partials: D rounded to the output type first), or as the MMA's C.
        # nvjet "_badd_" kernels (H100: addmm 1024 x 1 x 64 bf16 and 1024 x 1 x 2048 f16, after a
        # copy of the bias into D) round the GEMM's sum to the output type, then add the bias.
        "entry": (["first_partial", "after_reduction", "first_slice"]
                  if (serial or (info.partial_type or "f32") == "f32") and not interleaved
                  and not (info.family == "nvjet" and "_badd_" in info.name)
                  else ["after_reduction", "first_partial", "first_slice"]) if call.get("bias") else ["first_slice"],
        "rule": ["interleaved_tiles", "whole_tiles"] if interleaved else
                ["whole_tiles", "interleaved_tiles"] if info.family == "xmma" else ["whole_tiles"],
    }


def candidates(call: dict, max_split: int = 64):
    """Plans in the order reveal tries them: the rule's first, then those that differ from it in
    fewer choices (the split count counting as one), each group by split count in the
    dimension's order. Triton and XLA calls take their own rules (plans_triton_xla)."""
    if call.get("call", "").startswith(("triton.", "jax.")):
        from . import plans_triton_xla as tx  # noqa: PLC0415 (it imports this module)

        return list(tx.triton_candidates(call) if call["call"].startswith("triton.") else tx.xla_candidates(call))
    info = classify(call["kernels"])  # eagerly: Unexplained is raised here, not at the first next()
    if isinstance(info, str):
        raise Unexplained(info)
    instr = instruction_for(info, call)
    ordered = _ordered(info, instr, call, _dimensions(call, info, instr, max_split))
    if info.segment_k:  # some output tiles split along K (segment_k.py), the rest one chain each
        base = Schedule(tile_k=info.tile_k or instr_k(instr), tf32_operands="nearest_even", note=info.name)
        return itertools.chain((Plan(instr, s) for s in segment_k.candidates(base, call, info.name)), ordered)
    return ordered


def _ordered(info: KernelInfo, instr: str, call: dict, dims: dict):
    names = list(dims)
    combos = itertools.product(*(range(len(dims[n])) for n in names))
    order = sorted(combos, key=lambda ix: (sum(1 for i in ix if i), ix[names.index("split")] > 0, ix))
    seen = set()
    for ix in order:
        v = {n: dims[n][i] for n, i in zip(names, ix)}
        if v["split"] <= 1 and (ix[names.index("align")] or ix[names.index("formats")] or ix[names.index("rule")]):
            continue  # no slices: alignment and reduction formats do not apply
        sched = _schedule(info, instr, call, v["tile"], v["partial"], v["split"], v["align"], v["tf32"],
                          v["formats"], v["entry"], v["rule"])
        if sched not in seen:  # two choices can give one schedule (the tile-or-128-bit granule)
            seen.add(sched)
            yield Plan(instr, sched)
