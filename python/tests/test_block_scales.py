"""Block-scaled instructions from Python: tcnum.gemm's scale_a / scale_b reach the C++ gemm
(scale_A[i][k // B] multiplies A[i][k], scale_B[k // B][j] multiplies B[k][j]: PTX ISA)."""

import ml_dtypes
import numpy as np
import pytest

import tcnum

MX = "tcgen05.mma.m128n16k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.ue8m0"
UNIT = 127  # ue8m0 bits of 1.0


def _operands(m=6, n=5, k=96, seed=3):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(ml_dtypes.float8_e4m3fn)
    b = rng.standard_normal((k, n)).astype(ml_dtypes.float8_e4m3fn)
    ks = k // tcnum.instruction(MX, "sm_100").scale_block
    sa = rng.integers(UNIT - 3, UNIT + 4, (m, ks)).astype(np.uint8)
    sb = rng.integers(UNIT - 3, UNIT + 4, (ks, n)).astype(np.uint8)
    return a, b, sa, sb


def test_the_instruction_names_its_scales():
    ins = tcnum.instruction(MX, "sm_100")
    assert (ins.scale_block, ins.scale_type) == (32, "ue8m0")
    plain = tcnum.instruction("wgmma.m64n8k16.f32.bf16.bf16", "sm_90")
    assert (plain.scale_block, plain.scale_type) == (0, "")


def test_doubling_a_rows_scales_doubles_that_row_of_d_and_no_other():
    a, b, sa, sb = _operands()
    d = np.asarray(tcnum.gemm(a, b, instr=MX, arch="sm_100", scale_a=sa, scale_b=sb))
    up = sa.copy()
    up[2] += 1  # every block of row 2 scaled by 2: its products, its sum and its D double exactly
    d2 = np.asarray(tcnum.gemm(a, b, instr=MX, arch="sm_100", scale_a=up, scale_b=sb))
    assert np.array_equal(d2[2], 2 * d[2])
    assert np.array_equal(np.delete(d2, 2, axis=0), np.delete(d, 2, axis=0))
    unit = np.asarray(tcnum.gemm(a, b, instr=MX, arch="sm_100", scale_a=np.full_like(sa, UNIT),
                                 scale_b=np.full_like(sb, UNIT)))
    assert not np.array_equal(unit, d), "the scales must be used"
    as_e8m0 = sa.view(ml_dtypes.float8_e8m0fnu)  # the ml_dtypes type is taken as the same bits
    assert np.array_equal(np.asarray(tcnum.gemm(a, b, instr=MX, arch="sm_100", scale_a=as_e8m0, scale_b=sb)), d)


def test_bad_scales_are_refused_with_the_reason():
    a, b, sa, sb = _operands()
    with pytest.raises(ValueError, match=r"is block-scaled: give scale_a \(6, 3\) and scale_b \(3, 5\)"):
        tcnum.gemm(a, b, instr=MX, arch="sm_100", scale_a=sa)
    with pytest.raises(ValueError, match=r"scale_a must have shape \(6, 3\) \(M×\(K/32\) for scale_a"):
        tcnum.gemm(a, b, instr=MX, arch="sm_100", scale_a=sa[:, :2], scale_b=sb)
    with pytest.raises(ValueError, match="is not block-scaled"):
        tcnum.gemm(a.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16), scale_a=sa, scale_b=sb)
    with pytest.raises(ValueError, match="no epilogue, no batch axes"):
        tcnum.gemm(a, b, instr=MX, arch="sm_100", scale_a=sa, scale_b=sb, alpha=2.0)


# tcnum.mma (tiles) and tcnum.mma_element take the scales too: SA (..., M, K/V) and SB
# (..., K/V, N) per tile as the PTX ISA lays them out, the K/V scales of A's row and of B's
# column per element. The tile path runs tcnum::gemm, the element path the reference datapath's
# mma_element: the two must give the same bits.

def _tile_operands(ins, tiles=2, seed=5):
    rng = np.random.default_rng(seed)
    kv = ins.k // ins.scale_block
    a = rng.standard_normal((tiles, ins.m, ins.k)).astype(ml_dtypes.float8_e4m3fn)
    b = rng.standard_normal((tiles, ins.k, ins.n)).astype(ml_dtypes.float8_e4m3fn)
    c = rng.standard_normal((tiles, ins.m, ins.n)).astype(np.float32)
    sa = rng.integers(UNIT - 6, UNIT + 7, (tiles, ins.m, kv)).astype(np.uint8)
    sb = rng.integers(UNIT - 6, UNIT + 7, (tiles, kv, ins.n)).astype(np.uint8)
    return a, b, c, sa, sb


def test_mma_tiles_and_elements_take_the_scales_and_agree():
    ins = tcnum.instruction(MX, "sm_100")
    a, b, c, sa, sb = _tile_operands(ins)
    d = np.asarray(tcnum.mma(MX, a, b, c, arch="sm_100", scale_a=sa, scale_b=sb))
    assert d.shape == (2, ins.m, ins.n)
    # Every element of every tile through the element path: row i of A, column j of B, their scales.
    rows = np.repeat(a[:, :, None, :], ins.n, axis=2)                      # (t, M, N, K)
    cols = np.repeat(np.swapaxes(b, 1, 2)[:, None, :, :], ins.m, axis=1)   # (t, M, N, K)
    srow = np.repeat(sa[:, :, None, :], ins.n, axis=2)
    scol = np.repeat(np.swapaxes(sb, 1, 2)[:, None, :, :], ins.m, axis=1)
    e = np.asarray(tcnum.mma_element(MX, rows, cols, c, arch="sm_100", scale_a=srow, scale_b=scol))
    assert np.array_equal(e.view(np.uint32), d.view(np.uint32))
    unit = np.asarray(tcnum.mma(MX, a, b, c, arch="sm_100", scale_a=np.full_like(sa, UNIT),
                                scale_b=np.full_like(sb, UNIT)))
    assert not np.array_equal(unit, d), "the scales must be used"


def test_an_elements_scale_of_two_doubles_it_nvfp4():
    # NVFP4 (mxf4nvf4, scale_vec::4X): ue4m3 scales, one per 16 e2m1 elements; 0x38 is 1.0, 0x40 2.0.
    ins = next(i for i in tcnum.instructions(arch="sm_100")
               if "mxf4nvf4" in i.name and i.scale_type == "ue4m3")
    rng = np.random.default_rng(7)
    a = rng.integers(0, 16, (20, ins.k)).astype(np.uint8)  # raw e2m1 codes
    b = rng.integers(0, 16, (20, ins.k)).astype(np.uint8)
    kv = ins.k // ins.scale_block
    one, two = np.full((20, kv), 0x38, np.uint8), np.full((20, kv), 0x40, np.uint8)
    d1 = np.asarray(tcnum.mma_element(ins.name, a, b, arch="sm_100", scale_a=one, scale_b=one))
    d2 = np.asarray(tcnum.mma_element(ins.name, a, b, arch="sm_100", scale_a=two, scale_b=one))
    assert np.any(d1 != 0)
    assert np.array_equal(d2, 2 * d1)


def test_mma_and_mma_element_refuse_missing_or_misshapen_scales():
    ins = tcnum.instruction(MX, "sm_100")
    a, b, c, sa, sb = _tile_operands(ins)
    with pytest.raises(ValueError, match=r"is block-scaled: give scale_a \(2, 128, 1\) and scale_b \(2, 1, 16\)"):
        tcnum.mma(MX, a, b, c, arch="sm_100")
    with pytest.raises(ValueError, match="is block-scaled"):
        tcnum.mma(MX, a, b, c, arch="sm_100", scale_a=sa)
    with pytest.raises(ValueError, match=r"scale_b must have shape \(2, 1, 16\)"):
        tcnum.mma(MX, a, b, c, arch="sm_100", scale_a=sa, scale_b=sb[:, :, :8])
    with pytest.raises(ValueError, match=r"is block-scaled: give scale_a \(1,\)"):
        tcnum.mma_element(MX, a[0, 0], b[0, :, 0], arch="sm_100")
    with pytest.raises(ValueError, match=r"scale_b must have shape \(1,\)"):
        tcnum.mma_element(MX, a[0, 0], b[0, :, 0], arch="sm_100", scale_a=sa[0, 0], scale_b=sb[0])
    bf = np.zeros(16, ml_dtypes.bfloat16)
    with pytest.raises(ValueError, match="is not block-scaled"):
        tcnum.mma_element("mma.m16n8k16.f32.bf16.bf16.f32", bf, bf, scale_a=sa[0, 0], scale_b=sa[0, 0])
    with pytest.raises(ValueError, match="is not block-scaled"):
        tcnum.mma_element("mma.sp::ordered_metadata.m16n8k32.f32.bf16.bf16.f32", np.zeros(32, ml_dtypes.bfloat16),
                          np.zeros(32, ml_dtypes.bfloat16), scale_a=sa[0, 0], scale_b=sa[0, 0])
