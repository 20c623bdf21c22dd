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
    with pytest.raises(ValueError, match="give both scale_a and scale_b"):
        tcnum.gemm(a, b, instr=MX, arch="sm_100", scale_a=sa)
    with pytest.raises(ValueError, match=r"scale_a must be 6×3 ue8m0 scales"):
        tcnum.gemm(a, b, instr=MX, arch="sm_100", scale_a=sa[:, :2], scale_b=sb)
    with pytest.raises(ValueError, match="is not block-scaled"):
        tcnum.gemm(a.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16), scale_a=sa, scale_b=sb)
    with pytest.raises(ValueError, match="no epilogue, no batch axes"):
        tcnum.gemm(a, b, instr=MX, arch="sm_100", scale_a=sa, scale_b=sb, alpha=2.0)
