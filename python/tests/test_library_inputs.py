"""The library corpus's input generator "tcnum-irwin12-v1" (python/tcnum/libraries/inputs.py,
docs/library-corpus.md): numpy equals the pure-Python reference, random access equals the full
matrix, and the fixed vectors below (shared with the C++ test) hold. Loads the file by path, so
it runs without the compiled tcnum module."""

import importlib.util
import pathlib
import random

import numpy as np
import pytest

PATH = pathlib.Path(__file__).resolve().parents[1] / "tcnum" / "libraries" / "inputs.py"


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("tcnum_library_inputs", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# (seed, operand id, element index, d) -> the 64-bit draw, computed with draw_reference.
FIXED_DRAWS = [
    ((1, 1, 0, 0), 0x1EA59F2878E51FB5),
    ((1, 1, 0, 1), 0xB2F683D11FA164F5),
    ((123456789, 2, 1000, 3), 0x36D3251FE25246FE),
    ((0, 3, 0, 0), 0x18330D235A79896C),
    ((2**64 - 1, 2, 10**12, 2), 0x63B9376B2FBE1B9C),
]
# (seed, operand id, element index, dist, E) -> the float value.
FIXED_VALUES = [
    ((7, 1, 5, "normal", 0), -2.03594970703125),  # s = 259782, x = (259782 - 393210) / 65536
    ((7, 1, 5, "wide", 4), -8.143798828125),  # t = draw3 mod 9 - 4 = 2
    ((7, 1, 5, "wide", 16), -4169.625),  # t = draw3 mod 33 - 16 = 11
    ((7, 2, 0, "normal", 0), 0.2697296142578125),
    ((7, 2, 0, "wide", 4), 0.03371620178222656),
    ((42, 3, 17, "normal", 0), 0.3248748779296875),
    ((42, 3, 17, "wide", 16), 2.5989990234375),
]


def test_fixed_vectors(gen):
    for args, want in FIXED_DRAWS:
        got = gen.draw_reference(*args)
        print(f"draw{args} = 0x{got:016X}")
        assert got == want
        seed, op, e, d = args
        assert int(gen.draws(seed, op, np.array([e], dtype=np.uint64), d)[0]) == want
    for (seed, op, e, dist, E), want in FIXED_VALUES:
        got = gen.value_reference(seed, op, e, dist, E)
        print(f"value(seed={seed}, id={op}, e={e}, {dist}, E={E}) = {got!r}")
        assert got == want
        assert float(gen.values_at(seed, op, np.array([e]), dist, E)[0]) == want


def test_numpy_equals_reference(gen):
    rng = random.Random(5)
    for _ in range(300):
        seed = rng.choice([0, 1, 2**64 - 1, rng.getrandbits(64), rng.randrange(1000)])
        op = rng.choice([1, 2, 3])
        e = rng.choice([0, rng.randrange(1 << 20), rng.getrandbits(40)])
        d = rng.randrange(4)
        assert int(gen.draws(seed, op, np.array([e], dtype=np.uint64), d)[0]) == gen.draw_reference(seed, op, e, d)
        dist, E = rng.choice([("normal", 0), ("wide", 4), ("wide", 8), ("wide", 16)])
        x = gen.values_at(seed, op, np.array([e]), dist, E)
        assert x.dtype == np.float32 and float(x[0]) == gen.value_reference(seed, op, e, dist, E)


def test_matrix_layout_and_random_access(gen):
    rows, cols = 37, 53
    full = gen.values(11, "A", rows, cols, "wide", 8)
    assert full.shape == (rows, cols) and full.dtype == np.float32
    for i, j in [(0, 0), (5, 7), (36, 52), (20, 0)]:
        assert float(full[i, j]) == gen.value_reference(11, 1, i * cols + j, "wide", 8)
    r, c = [36, 0, 9], [52, 3, 0, 17]
    np.testing.assert_array_equal(gen.values(11, 1, rows, cols, "wide", 8, row_idx=r, col_idx=c), full[np.ix_(r, c)])
    np.testing.assert_array_equal(gen.values(11, 1, rows, cols, "wide", 8, row_idx=r), full[r])
    np.testing.assert_array_equal(gen.values(11, 1, rows, cols, "wide", 8, col_idx=c), full[:, c])
    np.testing.assert_array_equal(gen.values(11, 1, rows, cols, "wide", 8, chunk=7), full)  # chunking changes nothing
    with pytest.raises(ValueError):
        gen.values(11, 1, rows, cols, row_idx=[rows])
    with pytest.raises(ValueError):
        gen.values(11, 1, rows, cols, "uniform")


def test_distribution(gen):
    x = gen.values(3, 1, 200, 500).astype(np.float64)
    assert abs(x.mean()) < 0.01 and abs(x.std() - 1.0) < 0.01 and np.abs(x).max() < 6
    assert np.all(x * 65536 == np.round(x * 65536))  # multiples of 2**-16
    w = gen.values(3, 1, 200, 500, "wide", 4)
    n = gen.values(3, 1, 200, 500)
    ratio = np.abs(w[n != 0] / n[n != 0])
    assert set(np.log2(ratio).astype(int).tolist()) == set(range(-4, 5))


def test_to_dtype_rounds_to_nearest_even(gen):
    import ml_dtypes
    # bf16: 1 + 2**-8 is halfway between 1 and 1 + 2**-7 -> even (1); 1 + 3 * 2**-8 -> 1 + 2**-6.
    x = np.array([1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8)], dtype=np.float32)
    assert gen.to_dtype(x, "bf16").astype(np.float32).tolist() == [1.0, 1 + 2**-6, -1.0]
    # e4m3: 3 mantissa bits; 1 + 2**-4 -> 1, 1 + 3 * 2**-4 -> 1.25
    y = gen.to_dtype(np.array([1 + 2**-4, 1 + 3 * 2**-4], dtype=np.float32), "e4m3")
    assert y.dtype == ml_dtypes.float8_e4m3fn and y.astype(np.float32).tolist() == [1.0, 1.25]
    assert gen.to_dtype(x, "tf32").dtype == np.float32 and gen.to_dtype(x, "f16").dtype == np.float16
    # no value of a "wide" draw with the per-dtype E overflows its type
    for name in ("e4m3", "e5m2", "f16", "bf16"):
        v = gen.values(9, 2, 64, 512, "wide", gen.WIDE_E[name])
        assert np.all(np.isfinite(gen.to_dtype(v, name).astype(np.float32)))
