"""The oracles on arrays: gemm (any M×N×K), mma (whole instruction tiles) and mma_element
(single output elements, batched)."""

from __future__ import annotations

import numpy as np

from . import _tcnum
from ._arrays import _DTYPE_FORMATS, FORMATS, as_bits, format_name, formats_of, to_numpy
from ._catalog import Instruction, arch_number, default_instruction, instruction, resolve_model
from ._schedule import Schedule, as_schedule

_INPUT_FORMATS = ("bf16", "f16", "tf32", "e4m3", "e5m2", "e2m1", "e2m3", "e3m2")
_INTEGER_DTYPES = {np.dtype(np.int8): "s8", np.dtype(np.uint8): "u8"}
# AMD's gfx targets: float32 operands are f32 (v_mfma_*_f32), FNUZ fp8 their fp8/bf8.
_AMD_INPUT_FORMATS = ("f32",) + _INPUT_FORMATS + ("e4m3fnuz", "e5m2fnuz")
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


def _tcnum_amd_archs() -> tuple:
    return tuple(a for a in _tcnum.known_archs() if _tcnum.arch_name(a).startswith("gfx"))


def _values(bits: np.ndarray, fmt: str) -> np.ndarray:
    return bits.view(FORMATS[fmt][1])


def _check_matrix(x: np.ndarray, what: str, shape_name: str):
    if x.ndim != 2:
        raise ValueError(f"{what} must be a 2-D matrix ({shape_name}), got shape {x.shape}")


def _model_sm(arch, model) -> tuple:
    compiled = resolve_model(arch, model)
    return compiled, _tcnum.arch_name(compiled.sm)


_EPILOGUE_OUT = ("f32", "bf16", "f16", "e4m3", "e5m2")
_ACTIVATIONS = (None, "relu")  # what the C++ Epilogue (tcnum/core/epilogue.hpp) has
_ROUNDINGS = ("nearest_even", "toward_zero")


def _out_format(out_dtype) -> str:
    """The epilogue's output format from a name ("bf16") or a dtype (ml_dtypes.bfloat16)."""
    if not isinstance(out_dtype, str):
        try:
            np.dtype(out_dtype)
        except TypeError as e:
            raise TypeError(f"out_dtype must be a format name or a dtype, got {out_dtype!r}") from e
    try:
        name = _format_of(out_dtype, "out_dtype")
    except (TypeError, ValueError):  # a name or dtype of no tcnum format
        name = None
    if name not in _EPILOGUE_OUT:
        raise ValueError(f"out_dtype {out_dtype!r} is not an epilogue output; valid: f32 (numpy.float32), "
                         "bf16 (ml_dtypes.bfloat16), f16 (numpy.float16), e4m3 (ml_dtypes.float8_e4m3fn), "
                         "e5m2 (ml_dtypes.float8_e5m2)")
    return name


def _scalar(x, what: str) -> float:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a real number, got {type(x).__name__}")
    return float(np.float32(x))  # a kernel's float parameter: rounded once to binary32


def _bias_values(bias, m: int, n: int):
    """(float32 values, "per_row" | "per_column") of a bias broadcast against D (M×N) as numpy
    broadcasts it: (N,) or (1, N) per column, (M, 1) per row."""
    arr = to_numpy(bias, "bias")
    if arr.dtype in _DTYPE_FORMATS:  # float32, or a narrower tensor-core format: widened exactly
        arr = arr.astype(np.float32)
    elif arr.dtype.kind == "f":  # float64 and wider: only where binary32 holds every value
        f32 = arr.astype(np.float32)
        if not np.array_equal(f32.astype(arr.dtype), arr, equal_nan=True):
            raise TypeError(f"bias: {arr.dtype} values that float32 cannot hold exactly; the epilogue adds binary32 "
                            "values: round them first with .astype(numpy.float32)")
        arr = f32
    else:
        raise TypeError(f"bias: dtype {arr.dtype} is not a float array (the epilogue adds binary32 values)")
    if arr.shape in ((n,), (1, n)):
        kind = "per_column"
    elif arr.shape == (m, 1):
        kind = "per_row"
    else:
        raise ValueError(f"bias must broadcast against D (M×N = {m}×{n}) along one axis: shape ({n},) or (1, {n}) "
                         f"adds bias[j] to column j, ({m}, 1) adds bias[i] to row i; got shape {arr.shape}")
    return np.ascontiguousarray(arr.reshape(-1), dtype=np.float32), kind


def _broadcast_batch(arrays: dict) -> tuple:
    """The common leading (batch) shape of matrices (..., R, C), as numpy.matmul broadcasts it."""
    try:
        return np.broadcast_shapes(*(x.shape[:-2] for x in arrays.values()))
    except ValueError as e:
        shapes = ", ".join(f"{w} {x.shape}" for w, x in arrays.items())
        raise ValueError(f"batch shapes do not broadcast: {shapes} (leading axes before the last two)") from e


def _epilogue_arguments(c_format, alpha, beta, bias, activation, fused, rounding, satfinite, out, m, n) -> tuple:
    """The epilogue's options, checked, as _tcnum.gemm_epilogue takes them after the schedule."""
    if activation not in _ACTIVATIONS:
        raise ValueError(f"activation {activation!r}; valid: None, 'relu' (the activations of the C++ Epilogue)")
    if rounding not in _ROUNDINGS:
        raise ValueError(f"rounding {rounding!r}; valid: 'nearest_even', 'toward_zero'")
    if not isinstance(fused, (bool, np.bool_)) or not isinstance(satfinite, (bool, np.bool_)):
        raise TypeError("fused and satfinite must be bools")
    bias_values, bias_kind = (None, "none") if bias is None else _bias_values(bias, m, n)
    al = 1.0 if alpha is None else _scalar(alpha, "alpha")
    be = 0.0 if beta is None else _scalar(beta, "beta")
    return (al, be, bias_values, bias_kind, activation == "relu", bool(fused), rounding, bool(satfinite), out)


def _over_batch(one, a_bits, b_bits, c_bits, batch: tuple, d_dtype):
    """one(a, b, c) on each matrix of the broadcast batch (one call for plain matrices)."""
    if not batch and a_bits.ndim == 2 and b_bits.ndim == 2 and (c_bits is None or c_bits.ndim == 2):
        return one(a_bits, b_bits, c_bits)
    (m, k), n = a_bits.shape[-2:], b_bits.shape[-1]
    d_bits = np.empty(batch + (m, n), dtype=d_dtype)
    a_all = np.broadcast_to(a_bits, batch + (m, k))
    b_all = np.broadcast_to(b_bits, batch + (k, n))
    c_all = None if c_bits is None else np.broadcast_to(c_bits, batch + (m, n))
    for idx in np.ndindex(*batch):
        d_bits[idx] = one(np.ascontiguousarray(a_all[idx]), np.ascontiguousarray(b_all[idx]),
                          None if c_all is None else np.ascontiguousarray(c_all[idx]))
    return d_bits


def _scale_bits(ins, scale_a, scale_b, m: int, n: int, k: int, epilogue: bool, batch) -> tuple:
    """gemm's block scales as raw bits, checked as _scale_operands checks them (or (None, None):
    none given)."""
    if scale_a is None and scale_b is None:
        return None, None
    if ins.scale_block and (epilogue or batch):
        raise ValueError("block scales are taken by a plain gemm of one A and one B (no epilogue, no batch axes)")
    ks = k // ins.scale_block if ins.scale_block else 0
    return _scale_operands(ins, scale_a, scale_b, ((m, ks), (ks, n)),
                           f"M×(K/{ins.scale_block}) for scale_a, (K/{ins.scale_block})×N for scale_b")


def _integer_operands(a, b) -> bool:
    """Whether a and b are both int8/uint8 arrays (the integer MMA's s8/u8 values)."""
    return all(to_numpy(x, w).dtype in _INTEGER_DTYPES for x, w in ((a, "a"), (b, "b")))


def gemm(a, b, c=None, *, instr=None, arch="sm_90", k_order=None, split_k=1, schedule=None, threads=None,
         model=None, alpha=None, beta=None, bias=None, activation=None, out_dtype=None, fused=True,
         rounding="nearest_even", satfinite=True, scale_a=None, scale_b=None):
    """D = C + A·B computed bit for bit as a kernel made of one MMA instruction would, then,
    optionally, the epilogue of tcnum::gemm_with_epilogue (tcnum/core/epilogue.hpp).

    a: M×K, b: K×N, c: M×N or None (zeros of D's format), or with leading batch axes
    (..., M, K), (..., K, N), (..., M, N) that broadcast as in numpy.matmul. Inputs are arrays
    of ml_dtypes.bfloat16, float16, float8_e4m3fn/e5m2, float32 (tf32), or raw uint bits when
    instr is given. instr=None picks tcnum's default instruction for the dtypes on arch (see
    tcnum.default_instruction): D is f32 unless c is float16. k_order: the order of the
    K/k k-steps (None = ascending); split_k: split-K slices summed in fp32; schedule: the whole
    schedule (a tcnum.Schedule, a dict or JSON: uneven slices, k-tiles with the partial tile
    first, FP8 promotion, reduction trees, C after the reduction, tf32 operands rounded to
    nearest even; docs/libraries.md), instead of k_order/split_k; threads: None = all cores.

    The epilogue, per element, in binary32 (any of these options turns it on; the MMA then
    runs from a zero C and acc is its result):
      x = alpha·acc + bias     one fmaf (fused=False: alpha·acc rounded, then + bias rounded);
                               without alpha, acc + bias with one rounding (cuBLAS's addmm and
                               F.linear add the bias to the fp32 accumulator so)
      x = beta·C + x           only with beta (and beta != 0): c is then the epilogue's source
                               (cuBLAS's D = alpha·A·B + beta·C), of any format, read exactly
      activation="relu"        max(x, +0); NaN stays NaN
      D = x in out_dtype       f32, bf16, f16, e4m3, e5m2 (default: the instruction's D),
                               rounding "nearest_even" or "toward_zero", fp8 with satfinite
    bias: shape (N,) or (1, N) per column, (M, 1) per row (as numpy broadcasts it against D),
    of float32 or a narrower float format (widened exactly). alpha and beta are rounded to
    binary32 once, as a kernel's float parameters.
    Integer MMA: int8 (s8) or uint8 (u8) A and B pick the integer instruction (s32 D, an int32
    array; c int32), D = C + A·B exact, wrapped modulo 2^32 (instr=...satfinite... clamps);
    s4/u4 need instr= and int8/uint8 values in [-8, 7]/[0, 15], one per byte.
    scale_a, scale_b: a block-scaled instruction's scales (instr= names it), M×(K/scale_block)
    and (K/scale_block)×N, of ml_dtypes.float8_e8m0fnu (ue8m0) or raw uint8 bits (ue4m3, ue8m0):
    scale_A[i][k // scale_block] multiplies A[i][k], scale_B[k // scale_block][j] B[k][j] (PTX ISA).
    Returns a GemmResult (an ndarray of D's dtype) naming the instruction used.
    """
    sched = as_schedule(schedule)
    if sched is not None and (k_order is not None or split_k != 1):
        raise ValueError("give either schedule= or k_order=/split_k=, not both (a schedule has its own)")
    epilogue = (alpha is not None or beta is not None or bias is not None or activation is not None
                or out_dtype is not None or fused is not True or rounding != "nearest_even" or satfinite is not True)
    if epilogue and c is not None and beta is None:
        raise ValueError("c enters the MMA's accumulator unless beta= is given; with an epilogue (alpha, bias, "
                         "activation, out_dtype) the MMA runs from a zero C, as in tcnum::gemm_with_epilogue: "
                         "give beta= to add beta·c in the epilogue (cuBLAS's D = alpha·A·B + beta·C)")
    if beta is not None and c is None and _scalar(beta, "beta") != 0.0:
        raise ValueError(f"beta = {beta} but no c was given (the epilogue's source C)")
    compiled, arch_name = _model_sm(arch, model)
    mma_c = None if epilogue else c  # the MMA's C (the epilogue's source is c itself)
    if instr is not None:
        ins = instruction(instr, compiled.sm)
        a_bits, _ = as_bits(a, "a", ins.a)
        b_bits, _ = as_bits(b, "b", ins.b)
    elif _integer_operands(a, b):  # int8/uint8 A and B: the integer MMA (s32 D), C int32 if given
        fa, fb = (_INTEGER_DTYPES[to_numpy(x, w).dtype] for x, w in ((a, "a"), (b, "b")))
        a_bits, _ = as_bits(a, "a", fa)
        b_bits, _ = as_bits(b, "b", fb)
        ins = default_instruction(fa, fb, "s32", compiled.sm, c="s32")
    else:
        allowed = _AMD_INPUT_FORMATS if compiled.sm in _tcnum_amd_archs() else _INPUT_FORMATS
        a_bits, fa = as_bits(a, "a", allowed=allowed)
        b_bits, fb = as_bits(b, "b", allowed=allowed)
        fc = None
        if mma_c is not None:
            c_arr = to_numpy(mma_c, "c")
            held = [f for f in formats_of(c_arr, "c") if f in _ACC_FORMATS]
            if not held:
                raise TypeError(f"c: dtype {c_arr.dtype} is not an accumulator; valid: float32 (f32), float16 (f16)")
            fc = held[0]
        ins = default_instruction(fa, fb, fc or "f32", compiled.sm, c=fc)
    for x, what, shape_name in ((a_bits, "a", "M×K"), (b_bits, "b", "K×N")):
        if x.ndim < 2:
            raise ValueError(f"{what} must be a 2-D matrix ({shape_name}) or a batch of them (..., {shape_name}), "
                             f"got shape {x.shape}")
    (m, k), (kb, n) = a_bits.shape[-2:], b_bits.shape[-2:]
    if k != kb:
        raise ValueError(f"a is {m}×{k} but b is {kb}×{n}: a's columns must equal b's rows (K)")
    c_bits, c_format = None, ""  # None: zeros, made in C++
    if c is not None:
        if epilogue:
            c_arr = to_numpy(c, "c")
            held = formats_of(c_arr, "c")
            c_format = held[0] if held else ins.c
            if c_format not in _EPILOGUE_OUT:
                raise TypeError(f"c: the epilogue's source holds {c_format}; valid: {', '.join(_EPILOGUE_OUT)}")
            c_bits, _ = as_bits(c_arr, "c", c_format)
        else:
            c_bits, _ = as_bits(c, "c", ins.c)
        if c_bits.ndim < 2 or c_bits.shape[-2:] != (m, n):
            raise ValueError(f"c must be M×N = {m}×{n} (or a batch of them, ..., {m}×{n}), got shape {c_bits.shape}")
    order = [] if k_order is None else [int(s) for s in k_order]
    if not isinstance(split_k, (int, np.integer)) or isinstance(split_k, bool):
        raise TypeError(f"split_k must be an int, got {type(split_k).__name__}")
    if threads is not None and (not isinstance(threads, (int, np.integer)) or threads < 1):
        raise ValueError(f"threads must be None (all cores) or a positive int, got {threads!r}")
    operands = {"a": a_bits, "b": b_bits} if c_bits is None else {"a": a_bits, "b": b_bits, "c": c_bits}
    batch = _broadcast_batch(operands)
    nthreads = 0 if threads is None else int(threads)
    sched_json = "" if sched is None else sched.to_json()
    if ins.sparse:
        _sparse_gemm_options(ins, epilogue, order, split_k, sched, scale_a, scale_b)
        out = ins.d

        def one(ab, bb, cb):
            return _tcnum.sparse_gemm(compiled, ins.name, ab, bb, cb, m, n, k)
    elif epilogue:
        _scale_bits(ins, scale_a, scale_b, m, n, k, epilogue, batch)  # refused with an epilogue
        out = ins.d if out_dtype is None else _out_format(out_dtype)
        tail = _epilogue_arguments(c_format, alpha, beta, bias, activation, fused, rounding, satfinite, out, m, n)

        def one(ab, bb, cb):
            return _tcnum.gemm_epilogue(compiled, ins.name, ab, bb, cb, c_format, m, n, k, order, int(split_k),
                                        nthreads, sched_json, *tail)
    else:
        out = ins.d
        sa, sb = _scale_bits(ins, scale_a, scale_b, m, n, k, epilogue, batch)

        def one(ab, bb, cb):
            return _tcnum.gemm(compiled, ins.name, ab, bb, cb, m, n, k, order, int(split_k), nthreads, sched_json, sa, sb)
    d_bits = _over_batch(one, a_bits, b_bits, c_bits, batch, FORMATS[out][0])
    result = _values(d_bits, out).view(GemmResult)
    result.instruction, result.arch = ins, arch_name
    result.k_order, result.split_k = (None if k_order is None else order), int(split_k)
    result.schedule = sched
    return result


def _sparse_gemm_options(ins, epilogue, order, split_k, sched, scale_a, scale_b):
    """A sparse instruction's gemm takes A, B and C alone: the K-steps ascending, no epilogue."""
    given = [name for name, on in (("an epilogue", epilogue), ("k_order", bool(order)), ("split_k", split_k != 1),
                                   ("schedule", sched is not None), ("scale_a/scale_b", scale_a is not None or
                                                                     scale_b is not None)) if on]
    if given:
        raise ValueError(f"{ins.name} is sparse: tcnum.gemm takes a (M×K, 2:4 sparse in every K-step of {ins.k}; "
                         f"tf32 1:2), b and c only, K-steps ascending; {', '.join(given)} not supported with it")


def mma(instr, a, b, c=None, *, arch="sm_90", model=None, scale_a=None, scale_b=None) -> np.ndarray:
    """One instruction on whole tiles: a (..., M, K), b (..., K, N), c (..., M, N) or None
    (zeros), with the instruction's own M, N, K and the same leading (batch) shape.
    Returns D (..., M, N) of D's dtype. A sparse instruction (mma.sp, wgmma.mma_async.sp)
    takes a dense (..., M, K) whose rows are 2:4 sparse (tf32: 1:2; ValueError naming the row
    and group otherwise). A block-scaled instruction (kind::mxf8f6f4, mxf4, mxf4nvf4) needs
    its scales, as the PTX ISA's SA and SB: scale_a (..., M, K/V) and scale_b (..., K/V, N),
    V = the instruction's scale_block, raw ue8m0/ue4m3 bits or ml_dtypes.float8_e8m0fnu."""
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
    scales = _tile_scales(ins, scale_a, scale_b, batch)
    if scales is not None:
        flat = [x.reshape((tiles,) + x.shape[-2:]) for x in (a_bits, b_bits, c_bits) + scales]
        d_bits = np.stack([_tcnum.gemm(compiled, ins.name, *(np.ascontiguousarray(x[t]) for x in flat[:3]),
                                       ins.m, ins.n, ins.k, [], 1, 1, "", *(np.ascontiguousarray(x[t]) for x in flat[3:]))
                           for t in range(tiles)]) if tiles else np.zeros((0, ins.m, ins.n), dtype=FORMATS[ins.d][0])
        return _values(d_bits.reshape(batch + want["c"]), ins.d)
    if ins.sparse:
        flat = [x.reshape((tiles,) + x.shape[-2:]) for x in (a_bits, b_bits, c_bits)]
        d_bits = np.stack([_tcnum.sparse_gemm(compiled, ins.name, np.ascontiguousarray(flat[0][t]),
                                              np.ascontiguousarray(flat[1][t]), np.ascontiguousarray(flat[2][t]),
                                              ins.m, ins.n, ins.k) for t in range(tiles)]) if tiles else \
            np.zeros((0, ins.m, ins.n), dtype=FORMATS[ins.d][0])
        return _values(d_bits.reshape(batch + want["c"]), ins.d)
    d_bits = _tcnum.mma_tiles(compiled, ins.name, a_bits, b_bits, c_bits, tiles)
    return _values(d_bits.reshape(batch + want["c"]), ins.d)


def mma_element(instr, a, b, c=None, *, arch="sm_90", model=None, meta=None, scale_a=None,
                scale_b=None) -> np.ndarray:
    """Single output elements d = c + Σ_k a_k·b_k of an instruction: a and b (..., K) (a row
    of A, a column of B), c (...) or None (zeros). Returns d (...) of D's dtype. This is the
    level of corpus cases (tcnum.read_corpus).

    Block-scaled instructions need the K/V scales of A's row and of B's column: scale_a and
    scale_b (..., K/V), V = the instruction's scale_block (raw ue8m0/ue4m3 bits or
    ml_dtypes.float8_e8m0fnu); the reference datapath computes them.

    Sparse instructions (mma.sp::ordered_metadata, wgmma.mma_async.sp): a is the dense row
    (..., K) with its 2:4 pattern (tf32: 1:2) checked — each group of 4 keeps its non-zero
    elements, then its lowest-placed zeros, so B's dropped rows are never read (ValueError naming
    the element and group that hold too many non-zeros); or, with meta (..., K/4; tf32 K/2) of
    the PTX metadata values (0x4, 0x8, 0x9, 0xc, 0xd, 0xe; tf32 0x4, 0xe), a is the stored row
    (..., K/2) as a corpus line holds it (read_corpus's CorpusCases.meta)."""
    compiled, _ = _model_sm(arch, model)
    ins = instruction(instr, compiled.sm)
    if ins.sparse:
        _element_scales(ins, scale_a, scale_b, ())  # no sparse form is block-scaled: refuses any
        return _sparse_element(compiled, ins, a, b, c, meta)
    if meta is not None:
        raise ValueError(f"{ins.name} is dense: meta= is for sparse instructions (mma.sp, wgmma.mma_async.sp)")
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
    sa, sb = _element_scales(ins, scale_a, scale_b, batch)
    d_bits = _tcnum.mma_elements(compiled, ins.name, a_bits, b_bits, c_bits, sa, sb)
    return _values(d_bits.reshape(batch), ins.d)


def _scale_operands(ins, scale_a, scale_b, shapes, what: str) -> tuple:
    """scale_a and scale_b as raw bits of the shapes a block-scaled instruction needs, or
    (None, None) for an instruction without scales (which must be given none)."""
    if not ins.scale_block:
        if scale_a is not None or scale_b is not None:
            raise ValueError(f"{ins.name} is not block-scaled: it takes no scale_a/scale_b")
        return None, None
    if scale_a is None or scale_b is None:
        raise ValueError(f"{ins.name} is block-scaled: give scale_a {shapes[0]} and scale_b {shapes[1]} "
                         f"({ins.scale_type} scales, one per {ins.scale_block} elements of K; {what})")
    out = []
    for x, name, shape in ((scale_a, "scale_a", shapes[0]), (scale_b, "scale_b", shapes[1])):
        bits, _ = as_bits(x, name, ins.scale_type)
        if bits.shape != shape:
            raise ValueError(f"{ins.name}: {name} must have shape {shape} ({what}), got {bits.shape}")
        out.append(np.ascontiguousarray(bits))
    return tuple(out)


def _element_scales(ins, scale_a, scale_b, batch) -> tuple:
    """Per element: the K/V scales of A's row and of B's column."""
    per = batch + (ins.k // ins.scale_block,) if ins.scale_block else ()
    return _scale_operands(ins, scale_a, scale_b, (per, per), "the scales of each element's row of A and column of B")


def _tile_scales(ins, scale_a, scale_b, batch):
    """Per tile: SA (M × K/V) and SB (K/V × N) as the PTX ISA lays them out, or None."""
    kv = ins.k // ins.scale_block if ins.scale_block else 0
    sa, sb = _scale_operands(ins, scale_a, scale_b, (batch + (ins.m, kv), batch + (kv, ins.n)),
                             "the PTX ISA's SA and SB of each tile")
    return None if sa is None else (sa, sb)


def _sparse_element(compiled, ins, a, b, c, meta) -> np.ndarray:
    a_bits, _ = as_bits(a, "a", ins.a)
    b_bits, _ = as_bits(b, "b", ins.b)
    batch = b_bits.shape[:-1]
    c_bits = np.zeros(batch, dtype=FORMATS[ins.c][0]) if c is None else as_bits(c, "c", ins.c)[0]
    groups = ins.k // (2 if ins.a == "tf32" else 4)
    a_len = ins.k if meta is None else ins.k // 2
    meta_bits = None
    if meta is not None:
        meta_bits = np.ascontiguousarray(np.asarray(meta))
        if meta_bits.dtype.kind not in "ui" or meta_bits.shape != batch + (groups,) or \
                (meta_bits.size and (meta_bits.min() < 0 or meta_bits.max() > 15)):
            raise ValueError(f"{ins.name}: meta must be integers 0..15 of shape (..., {groups}) matching b "
                             f"(..., {ins.k}); got {meta_bits.dtype} {meta_bits.shape}")
        meta_bits = meta_bits.astype(np.uint8)
    if (b_bits.ndim < 1 or b_bits.shape[-1] != ins.k or a_bits.shape != batch + (a_len,) or c_bits.shape != batch):
        what = f"a (..., {ins.k}) dense" if meta is None else f"a (..., {ins.k // 2}) stored"
        raise ValueError(f"{ins.name} elements take {what}, b (..., {ins.k}) and c (...) of one batch shape; "
                         f"got a {a_bits.shape}, b {b_bits.shape}, c {c_bits.shape}")
    d_bits = _tcnum.sparse_elements(compiled, ins.name, np.ascontiguousarray(a_bits), np.ascontiguousarray(b_bits),
                                    np.ascontiguousarray(c_bits), meta_bits)
    return _values(d_bits.reshape(batch), ins.d)


def _format_of(x, what: str) -> str:
    """A format from a name ("bf16"), a dtype or an array of that dtype."""
    if isinstance(x, str):
        return format_name(x)
    try:
        dt = np.dtype(x) if isinstance(x, (type, np.dtype)) or not hasattr(x, "dtype") else np.dtype(x.dtype)
    except TypeError as e:
        raise TypeError(f"{what} must be a format name, a dtype or an array, got {x!r}") from e
    held = _DTYPE_FORMATS.get(dt, ())
    if not held:
        raise TypeError(f"{what}: dtype {dt} is not a tensor-core format; valid: {', '.join(FORMATS)}")
    return held[0]


class KernelMatch:
    """The oracle of a kernel (tcnum::match_kernel, kernel_match.hpp): the instruction, the
    k-order and split-K of a straightforward kernel (ascending k-steps, no split-K; change them
    to match yours) and why. .gemm(a, b, ...) is tcnum.gemm with them (epilogue options too)."""

    def __init__(self, d: dict):
        self.arch = _tcnum.arch_name(d['sm'])
        self.instruction = Instruction(**d["instruction"])
        self.k_order = list(d["k_order"]) or None
        self.split_k = int(d["split_k"])
        self.explanation = d["explanation"]

    def gemm(self, a, b, c=None, **options):
        for key in ("instr", "arch", "model"):
            if key in options:
                raise TypeError(f"KernelMatch.gemm takes no {key}= (the match has its own)")
        options.setdefault("k_order", self.k_order)
        options.setdefault("split_k", self.split_k)
        return gemm(a, b, c, instr=self.instruction.name, arch=self.arch, **options)

    def __repr__(self) -> str:
        return f"KernelMatch({self.arch}, {self.instruction.name}, k_order={self.k_order}, split_k={self.split_k})"


def match_kernel(sass: str = "", *, a, b=None, accumulator="f32", arch="sm_90") -> KernelMatch:
    """tcnum::match_kernel: the catalog instruction for a kernel from the architecture, the
    operand formats (names, dtypes or arrays; b defaults to a) and the accumulator (f32 or
    f16), and optionally the MMA mnemonic of its SASS ("HGMMA.64x128x16.F32.BF16", or a whole
    line of cuobjdump -sass). Without sass, tcnum's default instruction. ValueError when the
    mnemonic cannot be read, contradicts the formats or the architecture lacks it."""
    if not isinstance(sass, str):
        raise TypeError(f"sass must be a str (an MMA mnemonic such as 'HGMMA.64x128x16.F32.BF16'), got {sass!r}")
    fa = _format_of(a, "a")
    fb = fa if b is None else _format_of(b, "b")
    facc = _format_of(accumulator, "accumulator")
    return KernelMatch(_tcnum.match_kernel(arch_number(arch), fa, fb, facc, sass))
