"""Hypothesis strategies for tcnum's formats and for whole GEMM problems.

    from hypothesis import given
    from tcnum import strategies as tst

    @given(tst.gemm_problems("bf16", max_k=64))
    def test_my_kernel(problem):
        assert_bitexact(my_kernel(problem.a, problem.b), tcnum.gemm(problem.a, problem.b))

Every floating-point format of ``tcnum.FORMATS`` (f32, tf32, f16, bf16, e4m3, e5m2, e2m1, e2m3, e3m2, ue8m0,
ue4m3; the integer formats s8, u8, s4, u4, s32 are plain numpy integers): ``bits`` draws any storage bit pattern (tf32 with its 13 ignored low bits, ue4m3 with
its unread bit 7), weighted towards the specials (``special_bits``: ±0, ±Inf, NaNs, the
smallest and largest subnormals, the smallest normal, the largest finite value, ±1) and the
subnormals (``subnormal_bits``); ``values`` and ``arrays`` give them as numpy/ml_dtypes values.
Needs the ``hypothesis`` package (``pip install hypothesis``).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

try:
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("tcnum.strategies needs hypothesis: pip install hypothesis") from e

from ._arrays import FORMATS, decode, format_name

__all__ = ["GemmProblem", "LAYOUTS", "arrays", "bits", "gemm_problems", "special_bits", "subnormal_bits", "values"]

# format -> (storage bits drawn, has a sign bit, exponent bits, fraction bits, ignored low bits)
LAYOUTS = {
    "f32": (32, True, 8, 23, 0),
    "tf32": (32, True, 8, 10, 13),   # the register: 19 bits read, the low 13 ignored
    "f16": (16, True, 5, 10, 0),
    "bf16": (16, True, 8, 7, 0),
    "e4m3": (8, True, 4, 3, 0),
    "e5m2": (8, True, 5, 2, 0),
    "e2m1": (4, True, 2, 1, 0),
    "e2m3": (6, True, 2, 3, 0),
    "e3m2": (6, True, 3, 2, 0),
    "ue8m0": (8, False, 8, 0, 0),
    "ue4m3": (8, False, 4, 3, 0),    # bit 7 is not read
}


@functools.lru_cache(maxsize=None)
def special_bits(fmt: str) -> tuple:
    """The bit patterns of a format's special and boundary values, both signs where it has a
    sign: zeros, infinities, NaNs (the lowest and highest NaN pattern of each sign and the quiet
    one without payload), the smallest and largest subnormal, the smallest normal,
    the largest finite value and 1."""
    fmt = format_name(fmt)
    width, signed, e, m, low = LAYOUTS[fmt]
    if width == 32:  # f32, tf32: the low `low` bits are not read, so the patterns step by 1 << low
        ulp = 1 << low
        base = [0x00000000, 0x7F800000, 0x7FC00000, 0x7FFFFFFF, 0x7F800000 | ulp,  # 0, Inf, qNaN, canonical, sNaN
                ulp, 0x00800000 - ulp, 0x00800000, 0x7F800000 - ulp, 0x3F800000]  # subnormals, normal, max, 1
        return tuple(sorted({x | sign for x in base for sign in (0, 0x80000000)}))
    patterns = np.arange(1 << width, dtype=FORMATS[fmt][0])
    vals = decode(patterns, fmt)
    finite = np.isfinite(vals)
    mags = np.abs(vals)
    chosen = set(patterns[(vals == 0) | np.isinf(vals) | (mags == 1)].tolist())
    nan = np.isnan(vals)
    sign_bit = (patterns.astype(np.int64) >> (width - 1)) & 1 if signed else np.zeros(len(patterns), np.int64)
    for negative in (0, 1):  # NaNs: the lowest and highest pattern of each sign, and the quiet one with no payload
        these = patterns[nan & (sign_bit == negative)].astype(np.int64)
        if len(these):
            quiet = (int(these.min()) & ~((1 << m) - 1)) | (1 << (m - 1)) if m else int(these.min())
            chosen.update({int(these.min()), int(these.max())} | ({quiet} if quiet in set(these.tolist()) else set()))
    exp_field = (patterns.astype(np.int64) >> m) & ((1 << e) - 1)
    sub = finite & (exp_field == 0) & (vals != 0)
    normal = finite & (exp_field != 0)
    for mask in (sub, normal):
        if mask.any():
            for pick in (mags[mask].min(), mags[mask].max()):
                chosen.update(patterns[mask & (mags == pick)].tolist())
    return tuple(sorted(int(x) for x in chosen))


def subnormal_bits(fmt: str):
    """Subnormal bit patterns (exponent field 0, fraction not 0), either sign; tf32 with any
    ignored low bits. Formats without subnormals (ue8m0) draw nothing (hypothesis' nothing())."""
    fmt = format_name(fmt)
    width, signed, e, m, low = LAYOUTS[fmt]
    if m == 0:
        return st.nothing()
    sign = st.sampled_from([0, 1 << (width - 1)]) if signed else st.just(0)
    return st.builds(lambda s, f, lo: s | (f << low) | lo, sign, st.integers(1, (1 << m) - 1),
                     st.integers(0, (1 << low) - 1))


def bits(fmt: str):
    """Any storage bit pattern of `fmt` (an int), about a third of the draws special or subnormal."""
    fmt = format_name(fmt)
    width = LAYOUTS[fmt][0]
    parts = [st.sampled_from(special_bits(fmt)), st.integers(0, (1 << width) - 1)]
    if LAYOUTS[fmt][3]:
        parts.insert(1, subnormal_bits(fmt))
    return st.one_of(*parts)


def _as_values(raw: np.ndarray, fmt: str) -> np.ndarray:
    return raw.astype(FORMATS[fmt][0]).view(FORMATS[fmt][1])


def values(fmt: str):
    """One value of `fmt` as a 0-d numpy array of its dtype (ml_dtypes.bfloat16, numpy.float32 ...),
    from any bit pattern (NaN payloads, -0, subnormals included)."""
    fmt = format_name(fmt)
    return bits(fmt).map(lambda x: _as_values(np.array(x), fmt))


def arrays(fmt: str, shape, *, allow_nan: bool = True, allow_inf: bool = True):
    """Arrays of `fmt`'s dtype with `shape` (a tuple or a strategy of tuples), each element any
    bit pattern (weighted towards specials and subnormals). allow_nan / allow_inf=False leave
    NaNs / infinities out."""
    fmt = format_name(fmt)
    storage = FORMATS[fmt][0]
    elements = bits(fmt)
    if not (allow_nan and allow_inf):
        def keep(x):
            v = float(decode(np.array([x], storage), fmt)[0])
            return (allow_nan or not np.isnan(v)) and (allow_inf or not np.isinf(v))
        elements = elements.filter(keep)
    return hnp.arrays(storage, shape, elements=elements).map(lambda raw: raw.view(FORMATS[fmt][1]))


@dataclasses.dataclass
class GemmProblem:
    """One GEMM for tcnum.gemm(problem.a, problem.b, problem.c, arch=problem.arch)."""
    a: np.ndarray       # M×K
    b: np.ndarray       # K×N
    c: np.ndarray | None  # M×N float32 (or float16), or None
    arch: str

    @property
    def shape(self) -> tuple:
        return (self.a.shape[0], self.b.shape[1], self.a.shape[1])  # (M, N, K)


def gemm_problems(a: str = "bf16", b: str | None = None, *, c: str | None = None, arch: str = "sm_90",
                  max_m: int = 16, max_n: int = 16, max_k: int = 64, allow_nan: bool = True,
                  allow_inf: bool = True):
    """Whole GEMM problems: M, N in [1, max_m/max_n], K in [1, max_k], A and B of formats a and b
    (b defaults to a), C of format c ("f32" or "f16") or None, every element any bit pattern of
    its format (specials and subnormals weighted in), NaN/Inf left out where asked."""
    fa = format_name(a)
    fb = fa if b is None else format_name(b)
    fc = None if c is None else format_name(c)
    if fc not in (None, "f32", "f16"):
        raise ValueError(f"c={c!r}: an accumulator is f32 or f16 (or None for zeros)")
    for name, hi in (("max_m", max_m), ("max_n", max_n), ("max_k", max_k)):
        if not isinstance(hi, int) or hi < 1:
            raise ValueError(f"{name} must be a positive int, got {hi!r}")

    @st.composite
    def draw(draw_):
        m = draw_(st.integers(1, max_m))
        n = draw_(st.integers(1, max_n))
        k = draw_(st.integers(1, max_k))
        kw = {"allow_nan": allow_nan, "allow_inf": allow_inf}
        av = draw_(arrays(fa, (m, k), **kw))
        bv = draw_(arrays(fb, (k, n), **kw))
        cv = None if fc is None else draw_(arrays(fc, (m, n), **kw))
        return GemmProblem(av, bv, cv, arch)

    return draw()
