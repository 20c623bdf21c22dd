"""tcnum's formats against ml_dtypes/numpy, an independent implementation: every bit pattern
of the 8- and 16-bit formats, and samples of the 32-bit ones."""

import ml_dtypes
import numpy as np
import pytest

import tcnum

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")

SMALL = ["bf16", "f16", "e4m3", "e5m2"]


def all_patterns(fmt):
    storage = tcnum.FORMATS[fmt][0]
    return np.arange(1 << (8 * storage.itemsize), dtype=np.uint64).astype(storage)


def assert_decode_equals_ml_dtypes(bits, fmt):
    ours = tcnum.decode(bits, fmt)
    theirs = tcnum.from_bits(bits, fmt).astype(np.float64)
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    ok = ~np.isnan(ours)
    assert np.array_equal(ours[ok], theirs[ok])
    # signs of zeros too
    assert np.array_equal(np.signbit(ours[ok]), np.signbit(theirs[ok]))


@pytest.mark.parametrize("fmt", SMALL)
def test_decode_equals_ml_dtypes_on_every_pattern(fmt):
    assert_decode_equals_ml_dtypes(all_patterns(fmt), fmt)


@pytest.mark.parametrize("fmt", SMALL)
def test_every_pattern_round_trips_through_ml_dtypes_values(fmt):
    bits = all_patterns(fmt)
    values = tcnum.from_bits(bits, fmt)                   # ml_dtypes values
    back = tcnum.encode(values.astype(np.float64), fmt)    # tcnum's rounding of them
    nan = np.isnan(values.astype(np.float64))
    assert np.array_equal(back[~nan], bits[~nan])
    # NaN comes back as the hardware's canonical NaN, still a NaN for ml_dtypes
    assert np.isnan(tcnum.from_bits(back[nan], fmt).astype(np.float64)).all()
    assert np.array_equal(tcnum.to_bits(values), bits)


@pytest.mark.parametrize("fmt", SMALL)
def test_rounding_of_midpoints_equals_ml_dtypes(fmt):
    """Midpoints between neighbours (ties: to even) and points a quarter-step either side,
    as float32 (ml_dtypes rounds float64 through float32, i.e. twice; from float32 once)."""
    bits = all_patterns(fmt)
    v = tcnum.decode(bits, fmt)
    finite = np.isfinite(v) & (bits < bits.dtype.type(1 << (8 * bits.itemsize - 1)))
    pos = np.sort(np.unique(v[finite]))
    lo, hi = pos[:-1], pos[1:]
    probes = np.concatenate([(lo + hi) / 2, lo + (hi - lo) / 4, hi - (hi - lo) / 4])
    probes = np.concatenate([probes, -probes])
    as_f32 = probes.astype(np.float32)
    assert np.array_equal(as_f32.astype(np.float64), probes)  # exact in float32
    probes = as_f32
    ours = tcnum.encode(probes.astype(np.float64), fmt)
    theirs = tcnum.to_bits(probes.astype(tcnum.FORMATS[fmt][1]))
    assert np.array_equal(ours, theirs)


BLACKWELL = ["e2m1", "e2m3", "e3m2", "ue8m0"]
VALUE_BITS = {"e2m1": 4, "e2m3": 6, "e3m2": 6, "ue8m0": 8}


@pytest.mark.parametrize("fmt", BLACKWELL)
def test_blackwell_formats_decode_like_ml_dtypes_on_every_pattern(fmt):
    """FP4/FP6 in the low bits of a byte and ue8m0 (2^(e-127), 0xff NaN) against ml_dtypes'
    float4_e2m1fn, float6_e2m3fn, float6_e3m2fn, float8_e8m0fnu."""
    bits = np.arange(1 << VALUE_BITS[fmt], dtype=np.uint16).astype(np.uint8)
    assert_decode_equals_ml_dtypes(bits, fmt)
    assert np.array_equal(tcnum.to_bits(tcnum.from_bits(bits, fmt)), bits)


@pytest.mark.parametrize("fmt", ["e2m1", "e2m3", "e3m2"])
def test_blackwell_rounding_of_midpoints_equals_ml_dtypes(fmt):
    """Ties to even and quarter steps between neighbours, inside the range (FP4/FP6 have no
    Inf or NaN: beyond it both saturate differently from IEEE, which tcnum's own tests cover)."""
    v = np.unique(tcnum.decode(np.arange(1 << VALUE_BITS[fmt], dtype=np.uint16).astype(np.uint8), fmt))
    lo, hi = v[:-1], v[1:]
    probes = np.concatenate([(lo + hi) / 2, lo + (hi - lo) / 4, hi - (hi - lo) / 4]).astype(np.float32)
    ours = tcnum.encode(probes.astype(np.float64), fmt)
    theirs = tcnum.to_bits(probes.astype(tcnum.FORMATS[fmt][1]))
    assert np.array_equal(ours, theirs)


def test_f32_and_tf32_decode_on_random_patterns():
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 1 << 32, size=1 << 20, dtype=np.uint64).astype(np.uint32)
    bits[:6] = [0, 0x80000000, 0x7F800000, 0xFF800000, 0x00000001, 0x7F7FFFFF]
    f32 = tcnum.decode(bits, "f32")
    ref = bits.view(np.float32).astype(np.float64)
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(f32), nan) and np.array_equal(f32[~nan], ref[~nan])
    tf32 = tcnum.decode(bits, "tf32")  # the tensor core ignores the low 13 register bits
    ref = (bits & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(tf32), nan) and np.array_equal(tf32[~nan], ref[~nan])
    finite_or_inf = ~np.isnan(f32)
    back = tcnum.encode(f32[finite_or_inf], "f32")
    assert np.array_equal(back, bits[finite_or_inf])


def test_from_bits_and_to_bits_are_views_of_the_same_memory():
    raw = np.array([0x3F80, 0xC000], dtype=np.uint16)
    vals = tcnum.from_bits(raw, "bfloat16")
    assert vals.dtype == ml_dtypes.bfloat16 and list(vals.astype(np.float32)) == [1.0, -2.0]
    assert np.shares_memory(vals, raw) and tcnum.to_bits(vals) is not None
    assert np.array_equal(tcnum.to_bits(vals), raw)
