"""tcnum.strategies (hypothesis) and the pytest plugin's fixtures, used as a user would."""

import re

import ml_dtypes
import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="tcnum.strategies needs hypothesis (pip install hypothesis)")
from hypothesis import given, settings, strategies as st  # noqa: E402

import tcnum  # noqa: E402
from tcnum import strategies as tst  # noqa: E402
from tcnum.testing import assert_close_ulps  # noqa: E402

FAST = settings(max_examples=60, deadline=None)


@pytest.mark.parametrize("fmt", sorted(tst.LAYOUTS))
def test_every_format_has_a_layout_that_fits_its_storage(fmt):
    width, signed, e, m, low = tst.LAYOUTS[fmt]
    assert width <= tcnum.FORMATS[fmt][0].itemsize * 8
    assert int(signed) + e + m + low <= width


@pytest.mark.parametrize("fmt", [f for f in sorted(tst.LAYOUTS) if f not in ("tf32", "ue4m3")])
@FAST
@given(data=st.data())
def test_drawn_values_are_what_ml_dtypes_reads_from_the_same_bits(fmt, data):
    x = data.draw(tst.values(fmt))
    raw = tcnum.to_bits(x.reshape(1))
    with np.errstate(invalid="ignore"):  # signalling NaNs
        want = float(x.astype(np.float64))
    got = float(tcnum.decode(raw, fmt)[0])
    assert (np.isnan(got) and np.isnan(want)) or (got == want and np.signbit(got) == np.signbit(want))


def test_specials_are_the_known_patterns():
    # written out from the formats' definitions, not computed by the code under test
    assert {0x0000, 0x8000, 0x7F80, 0xFF80, 0x0001, 0x007F, 0x0080, 0x7F7F, 0x3F80, 0x7FC0} <= set(tst.special_bits("bf16"))
    assert {0x00, 0x80, 0x7F, 0xFF, 0x01, 0x07, 0x08, 0x7E, 0x38} <= set(tst.special_bits("e4m3"))
    assert {0x7C, 0xFC, 0x7B, 0x01, 0x03, 0x04, 0x7E} <= set(tst.special_bits("e5m2"))
    assert {0x7C00, 0x7E00, 0x0001, 0x03FF, 0x0400, 0x7BFF} <= set(tst.special_bits("f16"))
    assert {0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7FC00000,
            0x7FFFFFFF, 0x80000000} <= set(tst.special_bits("f32"))
    assert {0x00002000, 0x007FE000, 0x7F7FE000, 0x7F802000} <= set(tst.special_bits("tf32"))
    assert 0x7F800001 not in tst.special_bits("tf32")  # tf32 reads it as Inf: not a NaN there
    assert set(tst.special_bits("e2m1")) >= {0x0, 0x8, 0x1, 0x7, 0x2, 0xF}  # ±0, min sub, max 6, 1, -6
    assert 0xFF in tst.special_bits("ue8m0") and 0x7F in tst.special_bits("ue8m0")  # NaN, 1


@pytest.mark.parametrize("fmt", ["f32", "tf32", "f16", "bf16", "e4m3", "e5m2", "e2m1", "e2m3", "e3m2"])
@FAST
@given(data=st.data())
def test_subnormal_bits_are_subnormal(fmt, data):
    width, signed, e, m, low = tst.LAYOUTS[fmt]
    x = data.draw(tst.subnormal_bits(fmt))
    assert 0 <= x < (1 << width)
    assert (x >> (m + low)) & ((1 << e) - 1) == 0 and (x >> low) & ((1 << m) - 1) != 0
    v = abs(float(tcnum.decode(np.array([x], tcnum.FORMATS[fmt][0]), fmt)[0]))
    min_normal = 2.0 ** (1 - (2 ** (e - 1) - 1))
    assert 0 < v < min_normal


@FAST
@given(tst.arrays("bf16", (3, 5), allow_nan=False, allow_inf=False))
def test_arrays_leave_out_what_is_asked(x):
    assert x.dtype == ml_dtypes.bfloat16 and x.shape == (3, 5)
    assert np.isfinite(x.astype(np.float32)).all()


@settings(max_examples=40, deadline=None)
@given(tst.gemm_problems("bf16", max_m=8, max_n=8, max_k=40), st.data())
def test_law_bias_is_one_fp32_addition_after_the_chain_on_any_bits(problem, data):
    n = problem.b.shape[1]
    bias = data.draw(tst.arrays("f32", (n,)))
    with np.errstate(all="ignore"):
        want = np.asarray(tcnum.gemm(problem.a, problem.b, arch=problem.arch)) + bias
    got = tcnum.gemm(problem.a, problem.b, bias=bias, arch=problem.arch)
    # tcnum writes the canonical NaN, numpy propagates a payload: NaN positions must agree, not payloads
    assert_close_ulps(got, want, 0, any_nan=True)


@settings(max_examples=40, deadline=None)
@given(tst.gemm_problems("f16", max_m=6, max_n=6, max_k=40), st.sampled_from(["bf16", "f16", "e4m3", "e5m2"]),
       st.booleans(), st.sampled_from(["nearest_even", "toward_zero"]))
def test_law_out_dtype_is_one_conversion_of_the_fp32_accumulator(problem, fmt, satfinite, rounding):
    acc = np.asarray(tcnum.gemm(problem.a, problem.b))
    fp8 = fmt in ("e4m3", "e5m2")
    want = tcnum.from_bits(tcnum.encode(acc.astype(np.float64), fmt, rounding=rounding,
                                        satfinite=satfinite and fp8), fmt)
    got = tcnum.gemm(problem.a, problem.b, out_dtype=fmt, satfinite=satfinite, rounding=rounding)
    assert got.dtype == tcnum.FORMATS[fmt][1]
    tcnum.testing.assert_bitexact(got, want)


@settings(max_examples=25, deadline=None)
@given(tst.gemm_problems("e4m3", "e5m2", c="f32", max_m=4, max_n=4, max_k=64))
def test_gemm_problems_with_c_draw_every_operand_in_its_format(problem):
    m, n, k = problem.shape
    assert problem.a.dtype == ml_dtypes.float8_e4m3fn and problem.b.dtype == ml_dtypes.float8_e5m2
    assert problem.c.dtype == np.float32 and problem.c.shape == (m, n) and problem.b.shape == (k, n)
    d = tcnum.gemm(problem.a, problem.b, problem.c, arch=problem.arch)
    assert d.shape == (m, n) and d.instruction.a == "e4m3" and d.instruction.b == "e5m2"


def test_bad_strategy_arguments_are_errors():
    with pytest.raises(ValueError, match="unknown format 'bf17'"):
        tst.bits("bf17")
    with pytest.raises(ValueError, match="an accumulator is f32 or f16"):
        tst.gemm_problems("bf16", c="bf16")
    with pytest.raises(ValueError, match="max_k must be a positive int"):
        tst.gemm_problems("bf16", max_k=0)


def test_plugin_fixtures(tcnum_arch, tcnum_rng, tcnum_seed, assert_bitexact, request):
    assert tcnum_arch == request.config.getoption("--tcnum-arch")
    assert tcnum.arch_number(tcnum_arch) >= 70
    again = np.random.default_rng(tcnum_seed)
    assert np.array_equal(tcnum_rng.integers(0, 1 << 30, 8), again.integers(0, 1 << 30, 8))
    assert assert_bitexact is tcnum.testing.assert_bitexact
    with pytest.raises(AssertionError, match="shapes differ"):
        assert_bitexact(np.zeros(2, np.float32), np.zeros(3, np.float32))


def test_plugin_seeds_differ_between_tests_and_follow_the_base_seed(pytester):
    pytester.makepyfile(test_seeds="""
        def test_one(tcnum_seed, tcnum_arch):
            print("SEED one", tcnum_seed, tcnum_arch)
        def test_two(tcnum_seed):
            print("SEED two", tcnum_seed)
    """)
    plug = ["-p", "tcnum.pytest_plugin"] if not _entry_point_loaded(pytester) else []
    first = pytester.runpytest_subprocess(*plug, "-s", "--tcnum-arch", "sm_80")
    first.assert_outcomes(passed=2)
    again = pytester.runpytest_subprocess(*plug, "-s", "--tcnum-arch", "sm_80")
    other = pytester.runpytest_subprocess(*plug, "-s", "--tcnum-seed", "5")
    seeds = lambda r: dict(re.findall(r"SEED (\w+) (\d+)", "\n".join(r.outlines)))  # noqa: E731
    assert len(seeds(first)) == 2 and seeds(first) == seeds(again)
    assert seeds(first)["one"] != seeds(first)["two"] and any("sm_80" in line for line in first.outlines)
    assert seeds(other)["one"] != seeds(first)["one"] and seeds(other)["two"] != seeds(first)["two"]
    assert any("tcnum: --tcnum-arch sm_80" in line for line in first.outlines)
    bad = pytester.runpytest_subprocess(*plug, "--tcnum-arch", "sm_12")
    assert bad.ret != 0 and any("--tcnum-arch sm_12" in line for line in bad.errlines + bad.outlines)


def _entry_point_loaded(pytester) -> bool:
    from importlib.metadata import entry_points
    return any(ep.value == "tcnum.pytest_plugin" for ep in entry_points(group="pytest11"))
