"""Integer MMA and f64 DMMA from Python: int8/uint8 (s8/u8) and nibble (s4/u4, one per byte) operands, int32 C
and D, exact sums with wrap or .satfinite (docs/models.md §8.5, docs/python.md "Integer MMA")."""

import numpy as np
import pytest

import tcnum

INT32_MIN, INT32_MAX = -2**31, 2**31 - 1


def exact(a, b, c):
    return c.astype(np.int64) + a.astype(np.int64) @ b.astype(np.int64)


def wrap(x):
    return ((x + 2**31) % 2**32 - 2**31).astype(np.int32)


@pytest.mark.parametrize("da, db", [(np.int8, np.int8), (np.int8, np.uint8), (np.uint8, np.int8), (np.uint8, np.uint8)])
def test_gemm_picks_the_integer_instruction_and_wraps(da, db):
    rng = np.random.default_rng(5)
    info_a, info_b = np.iinfo(da), np.iinfo(db)
    a = rng.integers(info_a.min, info_a.max + 1, size=(24, 32)).astype(da)
    b = rng.integers(info_b.min, info_b.max + 1, size=(32, 16)).astype(db)
    c = rng.integers(INT32_MAX - 100000, INT32_MAX, size=(24, 16), endpoint=True).astype(np.int32)
    d = tcnum.gemm(a, b, c, arch="sm_90")
    assert d.dtype == np.int32
    # sm_90's own family is wgmma: its integer m64nNk32 form, the smallest N
    want = "wgmma.m64n8k32.s32.{}.{}".format("s8" if da == np.int8 else "u8", "s8" if db == np.int8 else "u8")
    assert d.instruction.name == want
    np.testing.assert_array_equal(np.asarray(d), wrap(exact(a, b, c)))


def test_satfinite_clamps_after_every_k_step():
    rng = np.random.default_rng(6)
    a = np.full((16, 64), 127, np.int8)
    b = np.full((64, 8), 127, np.int8)
    b[32:] = -128  # the first step overflows upward, the second comes back down
    c = np.full((16, 8), INT32_MAX - 10, np.int32)
    sat = tcnum.gemm(a, b, c, instr="mma.m16n8k32.satfinite.s32.s8.s8.s32", arch="sm_80")
    step1 = np.clip(c.astype(np.int64) + 32 * 127 * 127, INT32_MIN, INT32_MAX)
    step2 = np.clip(step1 + 32 * 127 * -128, INT32_MIN, INT32_MAX)
    np.testing.assert_array_equal(np.asarray(sat), step2.astype(np.int32))
    plain = tcnum.gemm(a, b, c, instr="mma.m16n8k32.s32.s8.s8.s32", arch="sm_80")
    np.testing.assert_array_equal(np.asarray(plain), wrap(exact(a, b, c)))
    assert not np.array_equal(np.asarray(plain), np.asarray(sat))


def test_every_s8_product_through_mma_element():
    x = np.arange(-128, 128, dtype=np.int8)
    a = np.zeros((256, 256, 16), np.int8)
    b = np.zeros((256, 256, 16), np.int8)
    a[:, :, 7] = x[:, None]
    b[:, :, 7] = x[None, :]
    d = tcnum.mma_element("mma.m16n8k16.s32.s8.s8.s32", a, b)
    np.testing.assert_array_equal(d, np.outer(x.astype(np.int32), x.astype(np.int32)))


def test_nibbles_one_per_byte():
    a = np.tile(np.arange(-8, 8, dtype=np.int8), (16, 4))  # 16 × 64
    b = np.tile(np.arange(16, dtype=np.uint8)[:, None], (4, 8))  # 64 × 8
    d = tcnum.mma("mma.m16n8k64.s32.s4.u4.s32", a, b)
    np.testing.assert_array_equal(d, exact(a, b, np.zeros((16, 8), np.int32)).astype(np.int32))
    with pytest.raises(ValueError, match="s4 values are -8..7"):
        tcnum.mma("mma.m16n8k64.s32.s4.u4.s32", a * 2, b)
    with pytest.raises(ValueError, match="u4 values are 0..15"):
        tcnum.mma("mma.m16n8k64.s32.s4.u4.s32", a, b + 1)


def test_integer_formats_in_the_catalog_and_errors():
    ins = tcnum.instruction("mma.m16n8k32.satfinite.s32.u8.s8.s32", "sm_90")
    assert (ins.a, ins.b, ins.c, ins.d) == ("u8", "s8", "s32", "s32")
    names = [i.name for i in tcnum.instructions("sm_75") if i.d == "s32"]
    assert len(names) == 16 and all(n.startswith("mma.m8n8k") for n in names)
    np.testing.assert_array_equal(tcnum.decode(np.array([0x80, 0x7f], np.uint8), "s8"), [-128.0, 127.0])
    with pytest.raises(TypeError):  # int8 A with a float B: no instruction mixes them
        tcnum.gemm(np.zeros((16, 32), np.int8), np.zeros((32, 8), np.float16))
    with pytest.raises(TypeError):  # s32 C is int32, not float
        tcnum.gemm(np.zeros((16, 32), np.int8), np.zeros((32, 8), np.int8), np.zeros((16, 8), np.float32))


def test_dmma_is_an_fma_chain_in_k_order():
    # 1 + 2^53 rounds to 2^53 before -2^53 comes (a chain), where a fused sum would keep the 1.
    a = np.array([[2.0**53, 2.0**53, 0, 0], [2.0**53, 2.0**53, 0, 0]])
    b = np.array([[1.0, -1.0, 0, 0], [-1.0, 1.0, 0, 0]])
    d = tcnum.dmma_element("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", a, b, np.ones(2), arch="sm_80")
    np.testing.assert_array_equal(d, [0.0, 1.0])
    nan = np.array([[np.inf, 0, 0, 0]])
    out = tcnum.dmma_element("mma.m16n8k4.f64.f64.f64.f64", nan, np.zeros((1, 4)))
    assert out.view(np.uint64)[0] == 0xfff8000000000000  # inf·0: the device's negative NaN
    with pytest.raises(ValueError, match="sm_90"):
        tcnum.dmma_element("mma.m16n8k16.f64.f64.f64.f64", np.zeros((1, 16)), np.zeros((1, 16)), arch="sm_80")
    with pytest.raises(TypeError, match="float64"):
        tcnum.dmma_element("mma.m8n8k4.f64.f64.f64.f64", np.zeros((1, 4), np.float32), np.zeros((1, 4), np.float32))
