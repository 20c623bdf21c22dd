"""tcnum.testing: assert_bitexact and the compare report (the C++ tcnum::compare's)."""

import ml_dtypes
import numpy as np
import pytest

import tcnum
from tcnum.testing import assert_bitexact, assert_close_ulps, compare


def test_identical_arrays_pass_and_a_planted_difference_is_reported_with_coordinates_bits_and_ulps():
    expected = np.arange(24, dtype=np.float32).reshape(4, 6) / 7
    actual = expected.copy()
    assert_bitexact(actual, expected)
    actual.view(np.uint32)[2, 3] += 3  # 3 ULP up
    with pytest.raises(AssertionError) as e:
        assert_bitexact(actual, expected)
    text = str(e.value)
    bits = int(expected.view(np.uint32)[2, 3])
    assert text.startswith("f32 4×6: 1 of 24 elements differ (bit-exact)")
    assert "max ULP distance 3" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("(2, 3)"))
    assert f"[0x{bits:08x}]" in row and f"[0x{bits + 3:08x}]" in row and row.rstrip().endswith("3")
    r = compare(actual, expected)
    assert r.count == 1 and r.first[0].index == (2, 3) and r.first[0].ulp == 3
    assert (r.first[0].expected_bits, r.first[0].actual_bits) == (bits, bits + 3)


def test_ulp_distance_crosses_zero_and_specials_are_classed():
    x = np.array([np.float16(2.0**-24), 0.0, np.inf, 1.0], dtype=np.float16)
    y = np.array([-np.float16(2.0**-24), -0.0, np.nan, 1.0], dtype=np.float16)
    r = compare(x, y)
    assert r.count == 3 and [m.ulp for m in r.first] == [2, 0, None]
    assert [m.index for m in r.first] == [(0,), (1,), (2,)]
    assert r.max_ulp == 2 and r.class_mismatches == 2
    assert r.expected_classes == {"nan": 1, "inf": 0, "negative_zero": 1}
    assert r.actual_classes == {"nan": 0, "inf": 1, "negative_zero": 0}
    assert "compared as a 1×4 matrix" in str(r) and "classes: expected 1 NaN" in str(r)


def test_coordinates_of_higher_dimensional_arrays():
    e = np.zeros((2, 3, 4), dtype=np.float16)
    a = e.copy()
    a[1, 2, 3] = 1.0
    r = compare(a, e)
    assert r.count == 1 and r.first[0].index == (1, 2, 3) and "(5, 3)" in r.text


def test_formats_inputs_and_mismatched_arguments():
    a = np.array([1, 2, 3], dtype=ml_dtypes.bfloat16)
    b = a.copy()
    b[1] = ml_dtypes.bfloat16(2.015625)
    r = compare(a, b)
    assert r.format == "bf16" and r.count == 1 and r.first[0].ulp == 1 and r.first[0].expected_bits == 0x4001
    assert_bitexact(tcnum.to_bits(a), tcnum.to_bits(a), format="bf16")
    with pytest.raises(TypeError, match="actual is bfloat16 but expected is float16"):
        compare(a, a.astype(np.float16))  # compare returns a report: it cannot hold a dtype difference
    with pytest.raises(ValueError, match=r"shapes differ: actual \(3,\), expected \(2,\)"):
        compare(a, a[:2])
    with pytest.raises(TypeError, match="raw uint16 bits need format"):
        assert_bitexact(tcnum.to_bits(a), tcnum.to_bits(a))
    with pytest.raises(AssertionError, match="my kernel\n"):
        assert_bitexact(a, b, msg="my kernel")


def test_tolerances_for_kernels_not_meant_to_be_bit_exact():
    e = np.array([1.0, 2.0, np.nan, 0.0], dtype=np.float32)
    a = e.copy()
    a.view(np.uint32)[0] += 2
    a.view(np.uint32)[2] = 0x7FC00001  # another NaN payload
    a[3] = -0.0
    with pytest.raises(AssertionError, match="3 of 4 elements differ"):
        assert_bitexact(a, e)
    with pytest.raises(AssertionError, match=r"2 of 4 elements differ \(≤ 2 ULP\)"):
        assert_close_ulps(a, e, 2)
    assert_close_ulps(a, e, 2, any_nan=True, any_zero_sign=True)
    with pytest.raises(AssertionError):
        assert_close_ulps(a, e, 1, any_nan=True, any_zero_sign=True)


def test_tf32_ignores_the_low_register_bits():
    a = np.array([1.0, 2.0], dtype=np.float32)
    b = a.copy()
    b.view(np.uint32)[0] |= 0x1FFF
    assert compare(a, b).count == 1
    tf = compare(a, b, format="tf32")
    assert tf.count == 0 and tf.not_identical == 1


def _hides_its_frame(fn, *args, **kwargs) -> bool:
    """True when the frame of fn that raised says __tracebackhide__ (pytest then shows the caller)."""
    try:
        fn(*args, **kwargs)
    except AssertionError as e:
        tb = e.__traceback__
        frames = []
        while tb is not None:
            frames.append(tb.tb_frame)
            tb = tb.tb_next
        mine = [f for f in frames if f.f_code is fn.__code__]
        return bool(mine) and all(f.f_locals.get("__tracebackhide__") is True for f in mine)
    raise AssertionError(f"{fn.__name__} did not raise")


@pytest.mark.parametrize("check", [assert_bitexact, lambda a, e, **kw: assert_close_ulps(a, e, 4, **kw)])
def test_a_different_shape_or_dtype_is_an_assertion_error_not_a_usage_error(check):
    a = np.array([1, 2, 3], dtype=ml_dtypes.bfloat16)
    with pytest.raises(AssertionError, match=r"dtypes differ: actual bfloat16, expected float16"):
        check(a, a.astype(np.float16))
    with pytest.raises(AssertionError, match=r"dtypes differ: actual float32, expected float64"):
        check(a.astype(np.float32), a.astype(np.float64))
    with pytest.raises(AssertionError, match=r"dtypes differ: actual uint16, expected bfloat16"):
        check(tcnum.to_bits(a), a)
    with pytest.raises(AssertionError, match=r"shapes differ: actual \(3,\), expected \(2,\)"):
        check(a, a[:2])
    with pytest.raises(AssertionError, match=r"shapes differ: actual \(3, 1\), expected \(1, 3\)"):
        check(a.reshape(3, 1), a.reshape(1, 3))  # same elements, same bits: still not equal
    with pytest.raises(AssertionError, match="^kernel 7\nshapes differ"):
        check(a, a[:1], msg="kernel 7")
    with pytest.raises(AssertionError, match=r"actual is float16, which does not hold bf16"):
        check(a.astype(np.float16), a, format="bf16")
    with pytest.raises(AssertionError, match=r"expected holds uint8 bits, but bf16 is stored as uint16"):
        check(tcnum.to_bits(a), np.zeros(3, np.uint8), format="bf16")
    # still usage errors, not differences: raw bits of one dtype without a format, a bad format
    with pytest.raises(TypeError, match="raw uint16 bits need format"):
        check(tcnum.to_bits(a), tcnum.to_bits(a))
    with pytest.raises(ValueError, match="unknown format 'bf17'"):
        check(a, a, format="bf17")


def test_assertions_hide_their_own_frame_from_pytest_tracebacks():
    a = np.array([1, 2, 3], dtype=np.float32)
    b = a.copy()
    b[0] = 5
    assert _hides_its_frame(assert_bitexact, a, b)
    assert _hides_its_frame(assert_bitexact, a, a[:2])
    assert _hides_its_frame(assert_close_ulps, a, b, 1)


def test_accumulators_the_narrow_d_hides_are_reported_passes_on_d_fails_on_the_accumulator():
    rng = np.random.default_rng(25)
    a = rng.standard_normal((32, 64)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((64, 16)).astype(ml_dtypes.bfloat16)
    oracle_acc = np.asarray(tcnum.gemm(a, b))
    oracle_d = np.asarray(tcnum.gemm(a, b, out_dtype="bf16"))
    # The "kernel": the oracle's accumulators with one last-bit difference that bf16 cannot see
    # (at an element whose low 16 bits are far from a bf16 rounding tie), stored to bf16 (RNE).
    low = oracle_acc.view(np.uint32) & 0xFFFF
    i, j = (int(x) for x in np.argwhere((low > 0x100) & (low < 0x7F00))[7])
    kernel_acc = oracle_acc.copy()
    kernel_acc.view(np.uint32)[i, j] += 1
    kernel_d = kernel_acc.astype(ml_dtypes.bfloat16)
    assert_bitexact(kernel_d, oracle_d)  # the bf16 check alone passes
    r = compare(kernel_d, oracle_d, accumulators=(kernel_acc, oracle_acc))
    assert r.verdict == "passes on D, fails on the accumulator"
    assert not r and r.count == 0 and r.total == 32 * 16
    assert r.accumulator.count == 1 and r.accumulator.first[0].index == (i, j) and r.accumulator.first[0].ulp == 1
    assert r.accumulator.format == "f32" and r.format == "bf16"
    text = str(r)
    assert text.startswith("passes on D, fails on the accumulator: 0 of 512 D elements and 1 of 512 "
                           "accumulators differ\nD: bf16 32×16: ")
    assert "\naccumulator: f32 32×16: 1 of 512 elements differ (bit-exact)" in text
    with pytest.raises(AssertionError, match="^passes on D, fails on the accumulator"):
        assert_bitexact(kernel_d, oracle_d, accumulators=(kernel_acc, oracle_acc))
    # The other three verdicts.
    kernel_d2 = kernel_d.copy()
    kernel_d2.view(np.uint16)[0, 0] ^= 1
    assert compare(kernel_d, oracle_d, accumulators=(oracle_acc, oracle_acc)).verdict == \
        "passes on D and on the accumulator"
    assert compare(kernel_d, oracle_d, accumulators=(oracle_acc, oracle_acc))
    assert_bitexact(kernel_d, oracle_d, accumulators=(oracle_acc, oracle_acc))
    assert compare(kernel_d2, oracle_d, accumulators=(oracle_acc, oracle_acc)).verdict == \
        "fails on D, passes on the accumulator"
    assert compare(kernel_d2, oracle_d, accumulators=(kernel_acc, oracle_acc)).verdict == \
        "fails on D and on the accumulator"
    # Without accumulators nothing changes; a bad pair and a shape difference are errors.
    assert compare(kernel_d, oracle_d).verdict == "passes" and compare(kernel_d, oracle_d).accumulator is None
    with pytest.raises(TypeError, match="accumulators must be a pair"):
        compare(kernel_d, oracle_d, accumulators=kernel_acc)
    with pytest.raises(AssertionError, match="^accumulators: shapes differ"):
        assert_bitexact(kernel_d, oracle_d, accumulators=(kernel_acc[1:], oracle_acc))
