"""Plans of Triton tl.dot GEMMs and JAX/XLA dots (docs/libraries.md, "Triton and XLA").

Triton (corpora/h100-libraries/triton-jax/triton.jsonl.gz, tcnum's own tutorial-style kernel):
the PTX's wgmma shape gives the instruction; the K loop walks tiles of BLOCK_K upward with the
last tile masked (the partial tile last); split-K without atomics is whole tiles per split, the
fp32 partials added in order; tf32 operands are truncated (no cvt.rna.tf32 in the PTX); fp8 with
max_num_imprecise_acc = n promotes every n/32 k-steps.
XLA: a Triton GEMM fusion (`__triton_nested_gemm_fusion`) with XLA's split-K rewrite pads K to
S·k_per_split, computes the S contiguous slices as a batch and reduces them in a second fusion
(tl.sum: a pairwise tree; XLA's loop reduce: in order); cuBLASLt custom calls without XLA's split
take the torch rules (kernel names and the logged algo).
"""

from __future__ import annotations

import itertools
import re

from .._schedule import Schedule
from .plans import Unexplained, instr_k, wgmma_instruction
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


def _pairwise(n: int):
    """tl.sum's tree over n values: pairs of neighbours, level by level."""
    nodes = list(range(n))
    while len(nodes) > 1:
        nodes = [(nodes[i], nodes[i + 1]) if i + 1 < len(nodes) else nodes[i] for i in range(0, len(nodes), 2)]
    return nodes[0]


def xla_candidates(call: dict):
    x = call.get("xla") or {}
    if call["flags"].get("precision") == "HIGHEST" and call["a"] == "f32":
        raise Unexplained("f32 at precision HIGHEST: FFMA kernels, no tensor core")
    if x.get("custom_call") != "__triton_nested_gemm_fusion":
        raise Unexplained(f"XLA custom call {x.get('custom_call')} with XLA's split-K rewrite: "
                                   "cuBLAS inside XLA's slices is not planned yet")
    instr = wgmma_instruction(call["a"], call["b"])
    ik, k = instr_k(instr), call["k"]
    tile = (x.get("tile") or {}).get("k") or ik
    split, kps = x.get("split_k") or 1, x.get("k_per_split") or k
    bounds = [b for b in range(0, k, kps)] + [k] if split > 1 else None
    slices = len(bounds) - 1 if bounds else 1
    triton_reduce = (x.get("reduce") or {}).get("fusion_kind") == "__triton"
    trees = [_pairwise(slices), None] if triton_reduce else [None, _pairwise(slices)]
    for tree, partial, tf32 in itertools.product(trees if slices > 1 else [None], ("last", "first"),
                                                 ("truncate", "nearest_even") if "tf32" in instr else ("truncate",)):
        kw = dict(tile_k=tile if tile % ik == 0 else 0, partial_tile=partial, tf32_operands=tf32,
                  note=f"xla {x.get('custom_call')} split_k={split} k_per_split={kps}")
        if bounds and slices > 1:
            kw.update(slice_bounds=tuple(bounds), reduction_tree=tree)
        yield Plan(instr, Schedule(**kw))
