"""tcnum.gemm's epilogue (the C++ tcnum::gemm_with_epilogue bound), batched gemm and
tcnum.match_kernel. The expected values are computed here independently: numpy's float32
arithmetic (one IEEE rounding per operation) where it suffices, exact rationals rounded to
binary32 by hand for the fused multiply-adds numpy lacks."""

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import tcnum
from tcnum.testing import assert_bitexact, compare

BF16 = ml_dtypes.bfloat16


def _inputs(rng, m=32, n=24, k=64, dtype=BF16):
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    return a, b


def round_f32(q: Fraction) -> np.float32:
    """An exact rational rounded once to binary32, to nearest even (subnormals kept)."""
    if q == 0:
        return np.float32(0.0)
    neg, q = q < 0, abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()  # 2^e <= q < 2^(e+1), after the fix-up
    if Fraction(2) ** e > q:
        e -= 1
    e = max(e, -126)
    ulp = Fraction(2) ** (e - 23)
    units, rest = divmod(q, ulp)
    if rest * 2 > ulp or (rest * 2 == ulp and units % 2 == 1):
        units += 1
    value = units * ulp
    out = np.float32(np.inf) if value >= Fraction(2) ** 128 else np.float32(float(value))
    return -out if neg else out


def fma_f32(x, y, z) -> np.float32:
    """fmaf(x, y, z) for finite binary32 values: one rounding of the exact x·y + z."""
    exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    if exact == 0:  # the sign of an exact zero: -0 only when both terms are -0
        prod_neg = (np.signbit(x) != np.signbit(y)) if (x * y == 0) else False
        return np.float32(-0.0) if (x * y == 0 and prod_neg and z == 0 and np.signbit(z)) else np.float32(0.0)
    return round_f32(exact)


def test_round_f32_agrees_with_numpy_where_numpy_rounds_once():
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(2000) * 2.0 ** rng.integers(-150, 100, 2000)).astype(np.float32)
    y = (rng.standard_normal(2000) * 2.0 ** rng.integers(-150, 100, 2000)).astype(np.float32)
    assert (np.abs(x) < 2.0**-126).sum() > 50  # subnormals and their sums
    for xi, yi in zip(x, y):
        got = round_f32(Fraction(float(xi)) + Fraction(float(yi)))
        want = np.float32(xi + yi)
        assert got.view(np.uint32) == want.view(np.uint32) or got == want == 0  # exact zeros: sign aside


@pytest.mark.parametrize("shape", ["(N,)", "(1, N)", "(M, 1)"])
@pytest.mark.parametrize("bias_dtype", [np.float32, BF16])
def test_bias_is_added_to_the_fp32_accumulator_once(tcnum_rng, shape, bias_dtype):
    a, b = _inputs(tcnum_rng)
    m, n = a.shape[0], b.shape[1]
    bias = {"(N,)": (n,), "(1, N)": (1, n), "(M, 1)": (m, 1)}[shape]
    bias = (tcnum_rng.standard_normal(bias) * 4).astype(bias_dtype)
    want = np.asarray(tcnum.gemm(a, b)) + bias.astype(np.float32)  # float32 + float32: one rounding
    got = tcnum.gemm(a, b, bias=bias)
    assert got.dtype == np.float32 and got.shape == (m, n)
    assert_bitexact(got, want)


def test_bias_after_the_chain_is_not_c_into_the_mma():
    # The bias of cuBLAS's addmm/F.linear is added after the chain; c= enters the chain (its
    # alignment changes what the products keep), so the two differ somewhere.
    rng = np.random.default_rng(7)
    a, b = _inputs(rng, 64, 64, 256)
    bias = (rng.standard_normal(64) * 100).astype(np.float32)
    via_c = tcnum.gemm(a, b, np.broadcast_to(bias, (64, 64)).copy())
    assert compare(tcnum.gemm(a, b, bias=bias), via_c).count > 0


def test_alpha_and_unfused_steps_are_numpy_float32_arithmetic(tcnum_rng):
    a, b = _inputs(tcnum_rng)
    acc = np.asarray(tcnum.gemm(a, b))
    bias = tcnum_rng.standard_normal(b.shape[1]).astype(np.float32)
    c = tcnum_rng.standard_normal(acc.shape).astype(np.float32)
    alpha, beta = np.float32(0.3), np.float32(-1.7)
    assert_bitexact(tcnum.gemm(a, b, alpha=0.3), alpha * acc)  # alpha rounded to binary32 once
    assert_bitexact(tcnum.gemm(a, b, alpha=0.3, bias=bias, fused=False), alpha * acc + bias)
    assert_bitexact(tcnum.gemm(a, b, c, alpha=0.3, beta=-1.7, bias=bias, fused=False),
                    beta * c + (alpha * acc + bias))
    assert_bitexact(tcnum.gemm(a, b, c, beta=0.0), acc)  # beta = 0: C is not read


def test_fused_alpha_bias_and_beta_are_single_roundings_of_exact_values(tcnum_rng):
    a, b = _inputs(tcnum_rng, 16, 12, 32)
    acc = np.asarray(tcnum.gemm(a, b))
    bias = tcnum_rng.standard_normal(12).astype(np.float32)
    c = tcnum_rng.standard_normal(acc.shape).astype(BF16)  # the source C in bf16, read exactly
    alpha, beta = np.float32(1.1), np.float32(0.7)
    got = tcnum.gemm(a, b, c, alpha=1.1, beta=0.7, bias=bias)
    want = np.empty_like(acc)
    for i, j in np.ndindex(*acc.shape):
        x = fma_f32(alpha, acc[i, j], bias[j])
        want[i, j] = fma_f32(beta, np.float32(c[i, j]), x)
    assert_bitexact(got, want)
    unfused = tcnum.gemm(a, b, c, alpha=1.1, beta=0.7, bias=bias, fused=False)
    assert compare(unfused, want).count > 0, "fused and unfused never differ here: the test is blind"


def test_relu_output_formats_rounding_and_satfinite(tcnum_rng):
    a, b = _inputs(tcnum_rng)
    a[0, 0] = np.nan  # row 0 of the accumulator is NaN
    acc = np.asarray(tcnum.gemm(a, b))
    relu = np.where(np.isnan(acc), acc, np.where(acc > 0, acc, np.float32(0.0))).astype(np.float32)
    got = tcnum.gemm(a, b, activation="relu")
    assert_bitexact(got[1:], relu[1:])
    assert np.isnan(got[0]).all() and (np.signbit(got[1:]) == 0).all()  # -0 and negatives give +0
    fin = acc[1:]
    for fmt, dtype in (("bf16", BF16), ("f16", np.float16)):
        d = tcnum.gemm(a[1:], b, out_dtype=dtype)
        assert d.dtype == np.dtype(dtype)
        assert_bitexact(d, fin.astype(dtype))  # ml_dtypes/numpy: float32 -> narrow, RNE, once
        assert_bitexact(tcnum.gemm(a[1:], b, out_dtype=fmt, rounding="toward_zero"),
                        tcnum.from_bits(tcnum.encode(fin, fmt, rounding="toward_zero"), fmt))
    big = np.asarray(tcnum.gemm(a[1:], b, alpha=1000.0))
    assert np.abs(big).max() > 448 * 2
    e4 = tcnum.gemm(a[1:], b, alpha=1000.0, out_dtype=ml_dtypes.float8_e4m3fn)
    assert np.abs(e4.astype(np.float32)).max() == 448 and not np.isnan(e4.astype(np.float32)).any()
    assert_bitexact(e4, tcnum.from_bits(tcnum.encode(big, "e4m3", satfinite=True), "e4m3"))
    e5 = tcnum.gemm(a[1:], b, alpha=1e6, out_dtype="e5m2", satfinite=False)
    assert np.isinf(e5.astype(np.float32)).any()
    e5s = tcnum.gemm(a[1:], b, alpha=1e6, out_dtype="e5m2")
    assert np.abs(e5s.astype(np.float32)).max() == 57344
    # ReLU comes after alpha, bias and beta·C, before the conversion
    bias = np.full(b.shape[1], -0.5, np.float32)
    want = np.maximum(fin + bias, np.float32(0)).astype(BF16)
    assert_bitexact(tcnum.gemm(a[1:], b, bias=bias, activation="relu", out_dtype="bf16"), want)


def test_f16_accumulator_and_schedules_with_an_epilogue(tcnum_rng):
    a, b = _inputs(tcnum_rng, 16, 16, 64, np.float16)
    ins = "mma.m16n8k16.f16.f16.f16.f16"
    acc = tcnum.gemm(a, b, instr=ins, arch="sm_80")
    bias = tcnum_rng.standard_normal(16).astype(np.float16)
    got = tcnum.gemm(a, b, instr=ins, arch="sm_80", bias=bias)
    assert got.dtype == np.float16
    assert_bitexact(got, (acc.astype(np.float32) + bias.astype(np.float32)).astype(np.float16))
    a, b = _inputs(tcnum_rng, 16, 16, 256)
    bias = tcnum_rng.standard_normal(16).astype(np.float32)
    schedule = tcnum.Schedule(split_k=3, slice_rule="whole_tiles", tile_k=64, partial_tile="first")
    assert compare(tcnum.gemm(a, b, schedule=schedule), tcnum.gemm(a, b)).count > 0  # else the check is blind
    for opts in ({"split_k": 2}, {"k_order": list(range(15, -1, -1))}, {"schedule": schedule}):
        assert_bitexact(tcnum.gemm(a, b, bias=bias, **opts), np.asarray(tcnum.gemm(a, b, **opts)) + bias)


def test_epilogue_errors_say_what_to_do():
    a, b = _inputs(np.random.default_rng(0), 8, 4, 16)
    c = np.zeros((8, 4), np.float32)
    with pytest.raises(ValueError, match=r"c enters the MMA's accumulator unless beta= is given"):
        tcnum.gemm(a, b, c, bias=np.zeros(4, np.float32))
    with pytest.raises(ValueError, match=r"beta = 2 but no c was given"):
        tcnum.gemm(a, b, beta=2)
    with pytest.raises(ValueError, match=r"bias must broadcast against D \(M×N = 8×4\).*got shape \(8,\)"):
        tcnum.gemm(a, b, bias=np.zeros(8, np.float32))
    with pytest.raises(TypeError, match=r"float32 cannot hold exactly"):
        tcnum.gemm(a, b, bias=np.full(4, 0.1))
    tcnum.gemm(a, b, bias=np.full(4, 0.5))  # float64 values binary32 holds are fine
    with pytest.raises(TypeError, match=r"bias: dtype int64 is not a float array"):
        tcnum.gemm(a, b, bias=np.zeros(4, np.int64))
    with pytest.raises(ValueError, match=r"activation 'gelu'; valid: None, 'relu'"):
        tcnum.gemm(a, b, activation="gelu")
    with pytest.raises(ValueError, match=r"out_dtype 'tf32' is not an epilogue output; valid: f32"):
        tcnum.gemm(a, b, out_dtype="tf32")
    with pytest.raises(ValueError, match=r"is not an epilogue output"):
        tcnum.gemm(a, b, out_dtype=np.int8)
    with pytest.raises(ValueError, match=r"rounding 'up'"):
        tcnum.gemm(a, b, out_dtype="bf16", rounding="up")
    with pytest.raises(TypeError, match=r"alpha must be a real number, got str"):
        tcnum.gemm(a, b, alpha="2")


def test_batched_gemm_is_gemm_of_every_batch_element_with_matmul_broadcasting(tcnum_rng):
    a = tcnum_rng.standard_normal((2, 3, 16, 32)).astype(BF16)
    b = tcnum_rng.standard_normal((3, 32, 8)).astype(BF16)
    c = tcnum_rng.standard_normal((16, 8)).astype(np.float32)
    d = tcnum.gemm(a, b, c)
    assert d.shape == (2, 3, 16, 8) and d.dtype == np.float32
    for i, j in np.ndindex(2, 3):
        assert_bitexact(d[i, j], tcnum.gemm(a[i, j], b[j], c))
    bias = tcnum_rng.standard_normal(8).astype(np.float32)
    e = tcnum.gemm(a, b, alpha=2.0, bias=bias, out_dtype="bf16")
    for i, j in np.ndindex(2, 3):
        assert_bitexact(e[i, j], tcnum.gemm(a[i, j], b[j], alpha=2.0, bias=bias, out_dtype="bf16"))
    with pytest.raises(ValueError, match=r"batch shapes do not broadcast: a \(2, 3, 16, 32\), b \(2, 32, 8\)"):
        tcnum.gemm(a, b[:2])


def test_match_kernel_reads_the_sass_and_its_gemm_is_the_instructions():
    km = tcnum.match_kernel("HGMMA.64x128x16.F32.BF16", a="bf16", arch="sm_90")
    assert km.instruction.family == "wgmma" and km.instruction.k == 16
    assert (km.instruction.a, km.instruction.b, km.instruction.d) == ("bf16", "bf16", "f32")
    assert km.arch == "sm_90" and km.split_k == 1 and km.k_order is None and "HGMMA" in km.explanation
    a, b = _inputs(np.random.default_rng(3))
    assert_bitexact(km.gemm(a, b), tcnum.gemm(a, b, instr=km.instruction.name, arch="sm_90"))
    km80 = tcnum.match_kernel("HMMA.16816.F32.BF16", a=BF16, b=BF16, accumulator=np.float32, arch="sm_80")
    assert km80.instruction.name == "mma.m16n8k16.f32.bf16.bf16.f32"
    assert tcnum.match_kernel(a=a, arch="sm_90").instruction == tcnum.gemm(a, b).instruction
    with pytest.raises(ValueError, match=r"HGMMA"):
        tcnum.match_kernel("HGMMA.64x128x16.F32.BF16", a="f16")  # contradicts the formats
    with pytest.raises(ValueError, match=r"sm_91|architecture|arch"):
        tcnum.match_kernel(a="bf16", arch="sm_91")
    with pytest.raises(TypeError, match=r"no instr="):
        km.gemm(a, b, instr="x")
