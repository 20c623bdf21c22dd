"""GEMM schedules: what a kernel does around its MMA instruction, as data (docs/libraries.md).

    s = tcnum.Schedule(split_k=6, slice_rule="whole_tiles", tile_k=64)   # cuBLAS-style split-K
    d = tcnum.gemm(a, b, schedule=s)
    s.to_json()                                   # the same schedule as JSON
    tcnum.Schedule.from_json('{"promotion": 4}')  # FP8 promotion every 4 k-steps

Every field is checked by the C++ parser that tcnum::parse_schedule uses, so a Schedule that
constructs is one tcnum.gemm accepts (up to the K-dependent checks: resolve() makes them).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, fields

import numpy as np

from . import _tcnum
from ._catalog import resolve_model

def _tuple_tree(tree):
    return tuple(_tuple_tree(t) for t in tree) if isinstance(tree, (list, tuple)) else int(tree)


@dataclass(frozen=True)
class Schedule:
    """A GEMM schedule (docs/libraries.md, "The schedule language").

    split_k, slice_rule ("balanced_steps" | "whole_tiles" | "interleaved_tiles"), slice_bounds (explicit k boundaries
    0 < ... < K), slice_align (whole_tiles' granule in k; 0 = tile_k), k_padded (K padded with
    zeros to this length before it is cut, as XLA's split-K rewrite does; 0 = K), tile_k (the kernel's k-tile; 0 = the instruction's k), partial_tile ("last" |
    "first": where a partial k-tile goes), k_order (a permutation of the k-steps), tile_k_order
    (which k offset fills each k-slot of every tile: a permutation of 0..tile_k-1), promotion
    (k-steps per tensor-core chain before an fp32 add; 0 = none), reduction_tree (nested pairs of
    slice indices, e.g. ((0, 1), (2, 3)); None = sequential), reduction_format (what the
    reduction's additions round to: "f32" | "d" | "f16" | "bf16"), partial_format (what each
    slice's partial is rounded to first: same names), serial (serial split-K: slice 0's partial
    is written rounded to reduction_format, each next slice adds its fp32 partial to it),
    c ("first_slice" | "first_partial" | "after_reduction"), sum_format (with C after the
    reduction: what the reduced sum is rounded to before C is added), tf32_operands ("truncate" | "nearest_even" |
    "nearest_away": ties away from zero, cvt.rna.tf32.f32), note,
    regions (((row_begin, row_end), (col_begin, col_end), Schedule), ...): rectangles of D that run
    a schedule of their own, as cuBLAS's segment-K kernels split only some output tiles.
    """

    split_k: int = 1
    slice_rule: str = "balanced_steps"
    slice_bounds: tuple | None = None
    slice_align: int = 0
    k_padded: int = 0
    tile_k: int = 0
    partial_tile: str = "last"
    k_order: tuple | None = None
    tile_k_order: tuple | None = None
    promotion: int = 0
    reduction_tree: tuple | None = None
    reduction_format: str = "f32"
    partial_format: str = "f32"
    serial: bool = False
    sum_format: str = "f32"
    c: str = "first_slice"
    tf32_operands: str = "truncate"
    note: str = ""
    regions: tuple | None = None

    def __post_init__(self):
        for name in ("slice_bounds", "k_order", "tile_k_order"):
            v = getattr(self, name)
            if v is not None:
                object.__setattr__(self, name, tuple(v))
        if self.reduction_tree is not None:
            object.__setattr__(self, "reduction_tree", _tuple_tree(self.reduction_tree))
        if self.regions is not None:
            object.__setattr__(self, "regions", tuple(_region(r) for r in self.regions))
        _tcnum.schedule_normalize(self._json_text())  # raises ValueError naming the field

    def _as_dict(self) -> dict:
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if v is None or (f.name == "note" and not v):
                continue
            out[f.name] = v
        if self.regions is not None:
            out["regions"] = [{"rows": list(r), "cols": list(c), "schedule": s._as_dict()} for r, c, s in self.regions]
        return out

    def _json_text(self) -> str:
        return json.dumps(self._as_dict())

    def to_json(self) -> str:
        """Every field as JSON, as tcnum::schedule_to_json prints it."""
        return _tcnum.schedule_normalize(self._json_text())

    @classmethod
    def from_json(cls, text) -> "Schedule":
        """A schedule from JSON text or a dict (unknown or duplicate keys are errors)."""
        if isinstance(text, dict):
            text = json.dumps(text)
        if not isinstance(text, str):
            raise TypeError(f"Schedule.from_json takes a JSON string or a dict, got {type(text).__name__}")
        data = json.loads(_tcnum.schedule_normalize(text))
        data.pop("version", None)
        if "regions" in data:
            data["regions"] = tuple(((r["rows"][0], r["rows"][1]), (r["cols"][0], r["cols"][1]), cls.from_json(r["schedule"]))
                                    for r in data["regions"])
        return cls(**data)

    def for_sample(self, rows, cols) -> "Schedule":
        """The schedule of the sub-GEMM of D's rows `rows` and columns `cols` (ascending): each
        region moved to the sample's indices (library corpora keep a sample of D)."""
        if not self.regions:
            return self
        rows, cols = np.asarray(rows), np.asarray(cols)
        moved = []
        for (r0, r1), (c0, c1), s in self.regions:
            i0, i1 = np.searchsorted(rows, [r0, r1])
            j0, j1 = np.searchsorted(cols, [c0, c1])
            if i0 < i1 and j0 < j1:
                moved.append(((int(i0), int(i1)), (int(j0), int(j1)), s))
        return dataclasses.replace(self, regions=tuple(moved) or None)

    def resolve(self, instr, k: int, arch: str = "sm_90") -> list:
        """Every slice's k-steps as (begin, length) pairs for K under an instruction."""
        compiled = resolve_model(arch, None)
        name = instr if isinstance(instr, str) else instr.name
        return [list(map(tuple, s)) for s in _tcnum.schedule_resolve(self._json_text(), compiled, name, int(k))]


def _region(r):
    """((row_begin, row_end), (col_begin, col_end), Schedule) from tuples, lists or a dict."""
    if isinstance(r, dict):
        r = (r["rows"], r["cols"], r["schedule"])
    rows, cols, s = r
    return ((int(rows[0]), int(rows[1])), (int(cols[0]), int(cols[1])), as_schedule(s))


def as_schedule(schedule) -> Schedule | None:
    """None, a Schedule, a dict or JSON text -> a Schedule (or None)."""
    if schedule is None or isinstance(schedule, Schedule):
        return schedule
    if isinstance(schedule, (dict, str)):
        return Schedule.from_json(schedule)
    raise TypeError(f"schedule must be a tcnum.Schedule, a dict or JSON text, got {type(schedule).__name__}")


__all__ = ["Schedule", "as_schedule"]
