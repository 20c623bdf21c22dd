"""The oracles on arrays: gemm (any M×N×K), mma (whole instruction tiles) and mma_element
(single output elements, batched)."""

from __future__ import annotations

import numpy as np

from . import _tcnum
from ._arrays import FORMATS, as_bits, to_numpy, formats_of
from ._catalog import Instruction, arch_number, default_instruction, instruction, resolve_model
from ._schedule import Schedule, as_schedule

_INPUT_FORMATS = ("bf16", "f16", "tf32", "e4m3", "e5m2", "e2m1", "e2m3", "e3m2")
_ACC_FORMATS = ("f32", "f16")


class GemmResult(np.ndarray):
    """D as an ndarray of D's dtype, plus what computed it: .instruction (an Instruction),
    .arch, .k_order (None = ascending), .split_k and .schedule (a tcnum.Schedule or None).
    np.asarray(result) is a plain array."""

    instruction: Instruction | None
    arch: str | None
    k_order: list | None
    split_k: int
    schedule: Schedule | None

    def __array_finalize__(self, obj):
        self.instruction = getattr(obj, "instruction", None)
        self.arch = getattr(obj, "arch", None)
        self.k_order = getattr(obj, "k_order", None)
        self.split_k = getattr(obj, "split_k", 1)
        self.schedule = getattr(obj, "schedule", None)

    def __reduce__(self):  # pickles as a plain ndarray (the metadata is descriptive only)
        return np.asarray(self).__reduce__()


def _values(bits: np.ndarray, fmt: str) -> np.ndarray:
    return bits.view(FORMATS[fmt][1])


def _check_matrix(x: np.ndarray, what: str, shape_name: str):
    if x.ndim != 2:
        raise ValueError(f"{what} must be a 2-D matrix ({shape_name}), got shape {x.shape}")


def _model_sm(arch, model) -> tuple:
    compiled = resolve_model(arch, model)
    return compiled, f"sm_{compiled.sm}"


def gemm(a, b, c=None, *, instr=None, arch="sm_90", k_order=None, split_k=1, schedule=None, threads=None,
         model=None):
    """D = C + A·B computed bit for bit as a kernel made of one MMA instruction would.

    a: M×K, b: K×N, c: M×N or None (zeros of D's format). Inputs are arrays of
    ml_dtypes.bfloat16, float16, float8_e4m3fn/e5m2, float32 (tf32), or raw uint bits when
    instr is given. instr=None picks tcnum's default instruction for the dtypes on arch (see
    tcnum.default_instruction): D is f32 unless c is float16. k_order: the order of the
    K/k k-steps (None = ascending); split_k: split-K slices summed in fp32; schedule: the whole
    schedule (a tcnum.Schedule, a dict or JSON: uneven slices, k-tiles with the partial tile
    first, FP8 promotion, reduction trees, C after the reduction, tf32 operands rounded to
    nearest even; docs/libraries.md), instead of k_order/split_k; threads: None = all cores.
    Returns a GemmResult (an ndarray of D's dtype) naming the instruction used.
    """
    sched = as_schedule(schedule)
    if sched is not None and (k_order is not None or split_k != 1):
        raise ValueError("give either schedule= or k_order=/split_k=, not both (a schedule has its own)")
    compiled, arch_name = _model_sm(arch, model)
    if instr is not None:
        ins = instruction(instr, compiled.sm)
        a_bits, _ = as_bits(a, "a", ins.a)
        b_bits, _ = as_bits(b, "b", ins.b)
    else:
        a_bits, fa = as_bits(a, "a", allowed=_INPUT_FORMATS)
        b_bits, fb = as_bits(b, "b", allowed=_INPUT_FORMATS)
        fc = None
        if c is not None:
            c_arr = to_numpy(c, "c")
            held = [f for f in formats_of(c_arr, "c") if f in _ACC_FORMATS]
            if not held:
                raise TypeError(f"c: dtype {c_arr.dtype} is not an accumulator; valid: float32 (f32), float16 (f16)")
            fc = held[0]
        ins = default_instruction(fa, fb, fc or "f32", compiled.sm, c=fc)
    _check_matrix(a_bits, "a", "M×K")
    _check_matrix(b_bits, "b", "K×N")
    (m, k), (kb, n) = a_bits.shape, b_bits.shape
    if k != kb:
        raise ValueError(f"a is {m}×{k} but b is {kb}×{n}: a's columns must equal b's rows (K)")
    c_bits = None  # zeros, made in C++
    if c is not None:
        c_bits, _ = as_bits(c, "c", ins.c)
        if c_bits.shape != (m, n):
            raise ValueError(f"c must be M×N = {m}×{n}, got shape {c_bits.shape}")
    order = [] if k_order is None else [int(s) for s in k_order]
    if not isinstance(split_k, (int, np.integer)) or isinstance(split_k, bool):
        raise TypeError(f"split_k must be an int, got {type(split_k).__name__}")
    if threads is not None and (not isinstance(threads, (int, np.integer)) or threads < 1):
        raise ValueError(f"threads must be None (all cores) or a positive int, got {threads!r}")
    d_bits = _tcnum.gemm(compiled, ins.name, a_bits, b_bits, c_bits, m, n, k, order, int(split_k),
                         0 if threads is None else int(threads), "" if sched is None else sched.to_json())
    out = _values(d_bits, ins.d).view(GemmResult)
    out.instruction, out.arch = ins, arch_name
    out.k_order, out.split_k = (None if k_order is None else order), int(split_k)
    out.schedule = sched
    return out


def mma(instr, a, b, c=None, *, arch="sm_90", model=None) -> np.ndarray:
    """One instruction on whole tiles: a (..., M, K), b (..., K, N), c (..., M, N) or None
    (zeros), with the instruction's own M, N, K and the same leading (batch) shape.
    Returns D (..., M, N) of D's dtype."""
    compiled, _ = _model_sm(arch, model)
    ins = instruction(instr, compiled.sm)
    a_bits, _ = as_bits(a, "a", ins.a)
    b_bits, _ = as_bits(b, "b", ins.b)
    batch = a_bits.shape[:-2]
    want = {"a": (ins.m, ins.k), "b": (ins.k, ins.n), "c": (ins.m, ins.n)}
    if c is None:
        c_bits = np.zeros(batch + want["c"], dtype=FORMATS[ins.c][0])
    else:
        c_bits, _ = as_bits(c, "c", ins.c)
    for what, arr in (("a", a_bits), ("b", b_bits), ("c", c_bits)):
        if arr.ndim < 2 or arr.shape[-2:] != want[what] or arr.shape[:-2] != batch:
            raise ValueError(f"{ins.name} takes a (..., {ins.m}, {ins.k}), b (..., {ins.k}, {ins.n}), "
                             f"c (..., {ins.m}, {ins.n}) with one batch shape; got a {a_bits.shape}, "
                             f"b {b_bits.shape}, c {c_bits.shape}")
    tiles = int(np.prod(batch, dtype=np.int64))
    d_bits = _tcnum.mma_tiles(compiled, ins.name, a_bits, b_bits, c_bits, tiles)
    return _values(d_bits.reshape(batch + want["c"]), ins.d)


def mma_element(instr, a, b, c=None, *, arch="sm_90", model=None) -> np.ndarray:
    """Single output elements d = c + Σ_k a_k·b_k of an instruction: a and b (..., K) (a row
    of A, a column of B), c (...) or None (zeros). Returns d (...) of D's dtype. This is the
    level of corpus cases (tcnum.read_corpus)."""
    compiled, _ = _model_sm(arch, model)
    ins = instruction(instr, compiled.sm)
    a_bits, _ = as_bits(a, "a", ins.a)
    b_bits, _ = as_bits(b, "b", ins.b)
    batch = a_bits.shape[:-1]
    if c is None:
        c_bits = np.zeros(batch, dtype=FORMATS[ins.c][0])
    else:
        c_bits, _ = as_bits(c, "c", ins.c)
    if (a_bits.ndim < 1 or a_bits.shape[-1] != ins.k or b_bits.shape != a_bits.shape or c_bits.shape != batch):
        raise ValueError(f"{ins.name} elements take a and b (..., {ins.k}) and c (...) of one batch shape; "
                         f"got a {a_bits.shape}, b {b_bits.shape}, c {c_bits.shape}")
    d_bits = _tcnum.mma_elements(compiled, ins.name, a_bits, b_bits, c_bits)
    return _values(d_bits.reshape(batch), ins.d)
