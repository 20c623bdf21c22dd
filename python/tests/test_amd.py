"""AMD CDNA MFMA instructions (gfx908, gfx90a, gfx942) through Python: catalog, default
instruction, mma_element and gemm on the literature-only models (docs/models.md §10)."""

import ml_dtypes
import numpy as np
import pytest

import tcnum


def test_gfx_architectures_and_their_instructions():
    assert tcnum._catalog.arch_number("gfx942") == 942 and tcnum._catalog.arch_number("gfx90a") == 910
    names = {i.name for i in tcnum.instructions("gfx942")}
    assert {"v_mfma_f32_32x32x8_f16", "v_mfma_f32_16x16x8_xf32", "v_mfma_f32_16x16x32_fp8_bf8"} <= names
    assert all(i.family == "mfma" for i in tcnum.instructions("gfx908"))
    assert "v_mfma_f32_32x32x2f32" in {i.name for i in tcnum.instructions("gfx90a")}
    assert not any(i.family == "mfma" for i in tcnum.instructions("sm_90"))
    with pytest.raises(ValueError, match="not available on gfx942"):
        tcnum.instruction("mma.m16n8k16.f32.f16.f16.f32", "gfx942")
    assert tcnum.model("gfx942")["name"] == "gfx942"


def test_default_instruction_knows_the_family():
    assert tcnum.default_instruction("f16", "f16", "f32", "gfx942").name == "v_mfma_f32_16x16x16_f16"
    assert tcnum.default_instruction("e4m3fnuz", "e5m2fnuz", "f32", "gfx942").name == "v_mfma_f32_16x16x32_fp8_bf8"
    assert tcnum.default_instruction("f32", "f32", "f32", "gfx908").family == "mfma"
    with pytest.raises(ValueError, match="gfx908 has no matrix-core instruction with f16"):
        tcnum.default_instruction("f16", "f16", "f32", "gfx908")


def test_mma_element_group_rounds_to_nearest_into_f32():
    # Group of 8 products: 1 + 2^-24 + 2^-24 rounds up only when both tiny products survive the
    # group sum (24 kept bits below 2^0 keep them); RNE at the group's end: 1 + 2^-23.
    a = np.array([1.0, 2.0**-12, 2.0**-12] + [0.0] * 13, dtype=np.float16)
    b = np.array([1.0, 2.0**-12, 2.0**-12] + [0.0] * 13, dtype=np.float16)
    d = tcnum.mma_element("v_mfma_f32_16x16x16_f16", a[None, :], b[None, :], np.zeros(1, np.float32), arch="gfx942")
    assert d[0] == np.float32(1.0 + 2.0**-23)


def test_gemm_on_gfx942_f32():
    # Small integers: every FMA of the chain is exact, so D is A·B exactly (the chain's roundings
    # are checked against std::fmaf in tests/test_datapath_laws.cpp).
    rng = np.random.default_rng(5)
    a = rng.integers(-8, 9, (4, 8)).astype(np.float32)
    b = rng.integers(-8, 9, (8, 3)).astype(np.float32)
    d = tcnum.gemm(a, b, arch="gfx942")
    assert d.instruction.name == "v_mfma_f32_16x16x4_f32" and d.arch == "gfx942"
    assert np.array_equal(np.asarray(d), a @ b)


def test_gemm_on_fp8_fnuz():
    a = np.ones((2, 32), dtype=ml_dtypes.float8_e4m3fnuz)
    b = np.full((32, 2), 0.5, dtype=ml_dtypes.float8_e5m2fnuz)
    d = tcnum.gemm(a, b, arch="gfx942")
    assert d.instruction.name == "v_mfma_f32_16x16x32_fp8_bf8"
    assert np.all(np.asarray(d) == 16.0)
