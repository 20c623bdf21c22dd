"""Sparse A from Python (mma.sp::ordered_metadata, wgmma.mma_async.sp): a dense A with its 2:4
pattern checked (tf32: 1:2), or the stored elements with their metadata as corpus lines hold them."""

import ml_dtypes
import numpy as np
import pytest

import tcnum

SP = "mma.sp::ordered_metadata.m16n8k32.f32.bf16.bf16.f32"
DENSE = "mma.m16n8k16.f32.bf16.bf16.f32"


def _sparse_rows(rows, k, rng, dtype=ml_dtypes.bfloat16, keep=2, group=4):
    """Random rows whose groups of `group` keep `keep` non-zeros (random places)."""
    a = rng.standard_normal((rows, k)).astype(dtype)
    for r in range(rows):
        for q in range(0, k, group):
            drop = rng.choice(group, group - keep, replace=False)
            a[r, q + drop] = 0
    return a


def test_the_sparse_forms_are_listed_apart():
    names = [i.name for i in tcnum.sparse_instructions("sm_90")]
    assert SP in names and "wgmma.mma_async.sp.m64n128k32.f32.bf16.bf16" in names
    assert all(not i.sparse for i in tcnum.instructions("sm_90"))
    assert tcnum.instruction(SP, "sm_80").sparse and tcnum.instruction(SP, "sm_80").k == 32
    assert [i.name for i in tcnum.sparse_instructions("sm_75")] == []


def test_a_sparse_element_is_the_dense_datapath_over_the_selected_products():
    """The law of docs/models.md: with 16 selected products the sparse bf16 element of sm_90 equals
    the dense m16n8k16 element over those products (one 16-product block either way)."""
    rng = np.random.default_rng(5)
    a = _sparse_rows(200, 32, rng)
    b = rng.standard_normal((200, 32)).astype(ml_dtypes.bfloat16)
    c = rng.standard_normal(200).astype(np.float32)
    d = tcnum.mma_element(SP, a, b, c, arch="sm_90")
    sel_a = np.stack([row[row != 0][:16] for row in a.astype(np.float32)]).astype(ml_dtypes.bfloat16)
    sel_b = np.stack([bb[aa != 0][:16] for aa, bb in zip(a.astype(np.float32), b)])
    full = np.array([np.count_nonzero(row) == 16 for row in a.astype(np.float32)])
    dense = tcnum.mma_element(DENSE, sel_a, sel_b, c, arch="sm_90")
    assert full.sum() > 150 and np.array_equal(d[full].view(np.uint32), dense[full].view(np.uint32))


def test_stored_a_with_metadata_equals_the_dense_row():
    a = np.zeros((1, 32), ml_dtypes.bfloat16)
    a[0, [1, 3, 4, 6]] = [1, 2, 3, 4]  # groups 0 and 1 keep (1, 3) and (0, 2); the rest 0 -> (0, 1)
    b = np.arange(1, 33, dtype=np.float32).astype(ml_dtypes.bfloat16)[None, :]
    d = tcnum.mma_element(SP, a, b, arch="sm_90")
    meta = np.array([[0xD, 0x8, 4, 4, 4, 4, 4, 4]], np.uint8)
    stored = np.zeros((1, 16), ml_dtypes.bfloat16)
    stored[0, :4] = [1, 2, 3, 4]
    assert float(d[0]) == 1 * 2 + 2 * 4 + 3 * 5 + 4 * 7
    assert np.array_equal(tcnum.mma_element(SP, stored, b, arch="sm_90", meta=meta), d)


def test_invalid_patterns_say_where():
    a = np.zeros((2, 32), ml_dtypes.bfloat16)
    a[1, 4:7] = 1  # three non-zeros in group 1 of row 1
    b = np.ones((2, 32), ml_dtypes.bfloat16)
    with pytest.raises(ValueError, match=r"row of a 1: A's group 1 \(k = 4..7\) has more than 2 non-zero"):
        tcnum.mma_element(SP, a, b)
    stored = np.zeros((1, 16), ml_dtypes.bfloat16)
    with pytest.raises(ValueError, match=r"metadata value 5 \(group 3\) is not a valid 2:4 pattern"):
        tcnum.mma_element(SP, stored, b[:1], meta=np.array([[4, 4, 4, 5, 4, 4, 4, 4]], np.uint8))
    with pytest.raises(ValueError, match=r"meta must be integers 0..15 of shape \(..., 8\)"):
        tcnum.mma_element(SP, stored, b[:1], meta=np.array([[4, 4]], np.uint8))
    with pytest.raises(ValueError, match="is dense: meta= is for sparse"):
        tcnum.mma_element(DENSE, stored, b[:1, :16], meta=np.array([[4] * 4], np.uint8))
    big = np.ones((16, 32), ml_dtypes.bfloat16)
    with pytest.raises(ValueError, match=r"a\[0, 0:32\]: A's group 0"):
        tcnum.gemm(big, np.ones((32, 8), ml_dtypes.bfloat16), instr=SP)


def test_tf32_is_one_of_two():
    ins = "mma.sp::ordered_metadata.m16n8k8.f32.tf32.tf32.f32"
    a = np.array([[1.5, 0, 0, 2.0, 0, 0, 4.0, 0]], np.float32)
    b = np.arange(1, 9, dtype=np.float32)[None, :]
    assert float(tcnum.mma_element(ins, a, b)[0]) == 1.5 * 1 + 2 * 4 + 4 * 7
    with pytest.raises(ValueError, match=r"group 0 \(k = 0..1\) has more than 1 non-zero"):
        tcnum.mma_element(ins, np.ones((1, 8), np.float32), b)


def test_sparse_gemm_chains_k_steps_as_one_instruction_per_step():
    rng = np.random.default_rng(9)
    a = _sparse_rows(16, 64, rng)
    b = rng.standard_normal((64, 8)).astype(ml_dtypes.bfloat16)
    d = np.asarray(tcnum.gemm(a, b, instr=SP))
    first = tcnum.mma(SP, a[:, :32], b[:32], arch="sm_90")
    both = tcnum.mma(SP, a[:, 32:], b[32:], first, arch="sm_90")
    assert np.array_equal(d.view(np.uint32), np.asarray(both).view(np.uint32))
    with pytest.raises(ValueError, match="is sparse: tcnum.gemm takes"):
        tcnum.gemm(a, b, instr=SP, split_k=2)


def test_read_corpus_gives_the_metadata(tmp_path):
    a = np.zeros(16, np.uint16)
    b = np.full(32, 0x3F80, np.uint16)  # bf16 1.0
    a[:2] = 0x3F80
    line = ("sm_90 " + SP + " " + "".join(f"{x:04x}" for x in a) + " " + "".join(f"{x:04x}" for x in b) +
            " 00000000 40000000 4e444444\n")
    path = tmp_path / "sparse.tcc"
    path.write_text(line)
    (cases,) = tcnum.read_corpus(path)
    assert cases.a.shape == (1, 16) and cases.meta.tolist() == [[4, 14, 4, 4, 4, 4, 4, 4]]
    d = tcnum.mma_element(cases.instruction, cases.a, cases.b, cases.c, arch=cases.arch, meta=cases.meta)
    assert np.array_equal(np.asarray(d).view(np.uint32), np.asarray(cases.d).view(np.uint32))
    assert tcnum.replay([path]).failed == 0


def test_integer_mma_sp_takes_int8_arrays_and_is_exact():
    """Integer mma.sp (validated on the H100, docs/models.md §9): a dense int8 A with its 2:4
    pattern; D is C plus the exact sum, clamped for .satfinite."""
    rng = np.random.default_rng(26)
    a = rng.integers(-128, 128, (64, 32)).astype(np.int8)
    for r in range(64):
        for q in range(0, 32, 4):
            a[r, q + rng.choice(4, 2, replace=False)] = 0
    b = rng.integers(-128, 128, (64, 32)).astype(np.int8)
    c = rng.integers(-2**31, 2**31, 64).astype(np.int32)
    exact = c.astype(np.int64) + (a.astype(np.int64) * b.astype(np.int64)).sum(axis=1)
    sat = tcnum.mma_element("mma.sp::ordered_metadata.m16n8k32.satfinite.s32.s8.s8.s32", a, b, c, arch="sm_90")
    np.testing.assert_array_equal(sat.astype(np.int64), np.clip(exact, -2**31, 2**31 - 1))
    wrap = tcnum.mma_element("mma.sp::ordered_metadata.m16n8k32.s32.s8.s8.s32", a, b, c, arch="sm_80")
    np.testing.assert_array_equal(wrap, ((exact + 2**31) % 2**32 - 2**31).astype(np.int32))
