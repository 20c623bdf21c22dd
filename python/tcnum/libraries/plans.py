"""Plans: the instruction and schedule of a library call (docs/libraries.md, "Plans").

plan_for(call) reads the call's kernel names (and cuBLASLt's heuristic, where recorded) and
states the plan by rule; candidates(call) lists the plans reveal tries when the rule is not
enough (k-tiles a name does not give, split counts the heuristic does not give).
"""

from __future__ import annotations

import itertools

from .._schedule import Schedule
from .kernels import KernelInfo, classify
from .replay import Plan


class Unexplained(Exception):
    """A call no schedule of tcnum's language can reproduce (the reason says why)."""


def math_type(call: dict) -> str:
    if call["a"] == "f32":
        if not call["flags"].get("allow_tf32"):
            raise Unexplained("fp32 operands without TF32: a CUDA-core or 3xTF32 kernel")
        return "tf32"
    return call["a"]


def instruction_for(info: KernelInfo, call: dict) -> str:
    t, b = math_type(call), math_type(call) if call["b"] == "f32" else call["b"]
    if info.mma == "wgmma":
        k = {"tf32": 8, "e4m3": 32, "e5m2": 32}.get(t, 16)
        return f"wgmma.m64n8k{k}.f32.{t}.{b}"
    if info.mma in ("m16n8k8", "m16n8k16"):
        shape = "m16n8k8" if t == "tf32" else info.mma  # tf32 mma exists only as k8 (and k4)
        return f"mma.{shape}.f32.{t}.{b}.f32"
    raise Unexplained(f"no instruction known for kernel {info.name}")


def _instr_k(instr: str) -> int:
    return int(instr.split(".")[1].rsplit("k", 1)[1])


def _split_count(call: dict) -> int | None:
    h = call.get("heuristic") or {}
    s = h.get("splitk_num")
    return s if isinstance(s, int) and 1 < s <= 4096 else None  # -1 (unset) reads as 2^32 - 1


def _align(info: KernelInfo, call: dict) -> int:
    """CUTLASS 2.x cuts split-K slices on 128 bits of A; cuBLASLt's nvjet on its k-tile."""
    if info.family == "cutlass":
        return 4 if math_type(call) == "tf32" else 8
    return 0


def _schedule(info, instr, tile, partial, split, align, tf32, formats) -> Schedule:
    ik = _instr_k(instr)
    promotion = tile // ik if info.promoted and tile else 0
    kw = dict(tile_k=tile if tile and tile % ik == 0 else 0, partial_tile=partial, promotion=promotion,
              tf32_operands=tf32, note=info.name)
    if split and split > 1:
        kw.update(split_k=split, slice_rule="whole_tiles", slice_align=align, partial_format=formats[0],
                  reduction_format=formats[1], serial=formats[2])
    return Schedule(**kw)


def _reduction_formats(info: KernelInfo, call: dict, split: int) -> list[tuple[str, str, bool]]:
    """(partial_format, reduction_format, serial) candidates. Serial split-K (a memset of its
    semaphores, no reduction kernel) writes each running sum into the output type; cuBLAS's
    splitKreduce adds fp32 partials in fp32 (H100, torch 2.11: docs/libraries.md)."""
    out = call["out"]
    if split <= 1:
        return [("f32", "f32", False)]
    serial = not any("splitKreduce" in k for k in call["kernels"])
    options = [("f32", out, True), ("f32", "f32", False)]
    return options if serial else options[::-1]


def plan_for(call: dict) -> Plan:
    """The plan by rule (raises Unexplained where there is none)."""
    return next(iter(candidates(call)))


def candidates(call: dict, max_split: int = 64):
    """Plans in the order reveal tries them: the rule's first."""
    info = classify(call["kernels"])
    if isinstance(info, str):
        raise Unexplained(info)
    instr = instruction_for(info, call)
    ik = _instr_k(instr)
    tiles = [info.tile_k] if info.tile_k else [32, 16, 64, 128]
    tiles = [t for t in tiles if t % ik == 0] or [ik]
    partials = ["first", "last"] if info.family == "cutlass" else ["last", "first"]
    tf32 = ["nearest_even", "truncate"] if math_type(call) == "tf32" else ["truncate"]
    splits = [1]
    if info.split_k:
        first = _split_count(call) or 1
        splits = [first] + [s for s in range(1, max_split + 1) if s != first]
    for split in splits:
        aligns = [_align(info, call)] + ([0] if _align(info, call) else [])
        for align, formats in itertools.product(aligns if split > 1 else [0], _reduction_formats(info, call, split)):
            for tile, partial, mode in itertools.product(tiles, partials, tf32):
                yield Plan(instr, _schedule(info, instr, tile, partial, split, align, mode, formats))
