"""tcnum.testing.assert_bitexact and its report."""

import ml_dtypes
import numpy as np
import pytest

import tcnum
from tcnum.testing import assert_bitexact, compare


def test_identical_arrays_pass_and_a_planted_bit_is_reported_with_coordinates_bits_and_ulps():
    expected = np.arange(24, dtype=np.float32).reshape(4, 6) / 7
    actual = expected.copy()
    assert_bitexact(actual, expected)
    actual.view(np.uint32)[2, 3] += 3  # 3 ULP up
    with pytest.raises(AssertionError) as e:
        assert_bitexact(actual, expected)
    text = str(e.value)
    bits = int(expected.view(np.uint32)[2, 3])
    assert "1 of 24 f32 elements differ" in text
    assert f"at (2, 3): actual {float(actual[2, 3])!r} (0x{bits + 3:08x}), expected {float(expected[2, 3])!r} (0x{bits:08x}), 3 ULP" in text
    assert "max ULP distance 3 at (2, 3)" in text


def test_ulp_distance_crosses_zero_and_specials_are_classed():
    x = np.array([np.float16(2.0**-24), 0.0, np.inf, 1.0], dtype=np.float16)
    y = np.array([-np.float16(2.0**-24), -0.0, np.nan, 1.0], dtype=np.float16)
    r = compare(x, y)
    assert r.count == 3 and [m.ulp for m in r.first] == [2, 0, None]
    assert r.max_ulp == 2 and r.max_ulp_index == (0,)
    assert r.classes == {"actual Inf": 1, "expected NaN": 1, "expected -0": 1}
    assert "NaN" in str(r)


def test_formats_torchless_inputs_and_mismatched_arguments():
    a = np.array([1, 2, 3], dtype=ml_dtypes.bfloat16)
    b = a.copy()
    b[1] = ml_dtypes.bfloat16(2.015625)
    r = compare(a, b)
    assert r.format == "bf16" and r.count == 1 and r.first[0].ulp == 1 and r.first[0].expected_bits == 0x4001
    assert_bitexact(tcnum.to_bits(a), tcnum.to_bits(a), format="bf16")
    with pytest.raises(TypeError, match="actual is bfloat16 but expected is float16"):
        assert_bitexact(a, a.astype(np.float16))
    with pytest.raises(ValueError, match=r"shapes differ: actual \(3,\), expected \(2,\)"):
        assert_bitexact(a, a[:2])
    with pytest.raises(TypeError, match="raw uint16 bits need format"):
        assert_bitexact(tcnum.to_bits(a), tcnum.to_bits(a))
    with pytest.raises(AssertionError, match="my kernel\n1 of 3 bf16"):
        assert_bitexact(a, b, msg="my kernel")


def test_tf32_ignores_the_low_register_bits():
    a = np.array([1.0, 2.0], dtype=np.float32)
    b = a.copy()
    b.view(np.uint32)[0] |= 0x1FFF
    assert compare(a, b).count == 1
    assert compare(a, b, format="tf32").count == 0
