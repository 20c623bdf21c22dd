"""tcnum.gemm, mma and mma_element on arrays: exact cases against numpy, laws between the
three levels, and the typed-array path against the raw-bit C++ call."""

import itertools

import ml_dtypes
import numpy as np
import pytest

import tcnum
from tcnum import _tcnum

ARCHS = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"]


def classes(arch):
    """One instruction per numeric class (family, formats): N does not change numerics. The
    block-scaled kinds are left out (test_block_scales.py), and so are the integer ones, which
    are exact (test_integer_mma.py)."""
    seen = {}
    for ins in tcnum.instructions(arch):
        if "block_scale" in ins.name or ins.d == "s32":
            continue
        seen.setdefault((ins.family, ins.a, ins.b, ins.c, ins.d), ins)
    return list(seen.values())


def small_integers(rng, shape, fmt, bound):
    """Integers in [-bound, bound], exact in every input format (e5m2 up to 8)."""
    return rng.integers(-bound, bound + 1, size=shape).astype(np.float32).astype(tcnum.FORMATS[fmt][1])


@pytest.mark.parametrize("arch", ARCHS)
def test_gemm_equals_numpy_where_exact(arch):
    """Integer data with |D| <= 1024: every sum is exact, so every model must give numpy's
    float64 product (the truncations and roundings of the datapath have nothing to cut)."""
    rng = np.random.default_rng(abs(hash(arch)) % 2**32)
    for ins in classes(arch):
        m, n, k = 5, 7, 3 * ins.k + 5  # K not a multiple of the instruction's k: zero padding
        a = small_integers(rng, (m, k), ins.a, 4)
        b = small_integers(rng, (k, n), ins.b, 4)
        c = small_integers(rng, (m, n), ins.c, 8)
        d = tcnum.gemm(a, b, c, instr=ins.name, arch=arch)
        want = a.astype(np.float64) @ b.astype(np.float64) + c.astype(np.float64)
        assert d.dtype == tcnum.FORMATS[ins.d][1], ins.name
        assert np.array_equal(d.astype(np.float64), want), ins.name
        assert d.instruction == ins and d.arch == arch


def test_default_instruction_is_named_in_the_result():
    rng = np.random.default_rng(1)
    a = small_integers(rng, (4, 32), "bf16", 2)
    b = small_integers(rng, (32, 3), "bf16", 2)
    assert tcnum.gemm(a, b).instruction.name == "wgmma.m64n8k16.f32.bf16.bf16"
    assert tcnum.gemm(a, b).instruction == tcnum.default_instruction("bf16", "bf16", "f32", "sm_90")
    assert tcnum.gemm(a, b, arch="sm_100").instruction.name == "tcgen05.mma.m64n8k16.f32.bf16.bf16"
    assert tcnum.gemm(a, b, arch="sm_80").instruction.name == "mma.m16n8k16.f32.bf16.bf16.f32"
    h = a.astype(np.float16), b.astype(np.float16)
    assert tcnum.gemm(*h, np.zeros((4, 3), np.float16)).instruction.d == "f16"
    assert tcnum.gemm(*h).instruction.d == "f32"
    f8 = a.astype(ml_dtypes.float8_e4m3fn), b.astype(ml_dtypes.float8_e5m2)
    assert tcnum.gemm(*f8, arch="sm_89").instruction.name == "mma.m16n8k32.f32.e4m3.e5m2.f32"
    t = tcnum.gemm(a.astype(np.float32), b.astype(np.float32), arch="sm_80")
    assert t.instruction.name == "mma.m16n8k8.f32.tf32.tf32.f32"


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_k_order_and_split_k_do_not_change_exact_sums(arch):
    rng = np.random.default_rng(2)
    a = small_integers(rng, (6, 128), "bf16", 4)
    b = small_integers(rng, (128, 5), "bf16", 4)
    base = tcnum.gemm(a, b, arch=arch)
    steps = 128 // base.instruction.k
    order = list(rng.permutation(steps))
    shuffled = tcnum.gemm(a, b, arch=arch, k_order=order, split_k=3)
    assert shuffled.k_order == order and shuffled.split_k == 3
    assert np.array_equal(np.asarray(base), np.asarray(shuffled))


def random_bits(rng, fmt, shape, specials=False):
    storage = tcnum.FORMATS[fmt][0]
    if specials:  # every pattern, NaN and Inf included
        return rng.integers(0, np.iinfo(storage).max, size=shape, endpoint=True, dtype=np.uint64).astype(storage)
    values = rng.standard_normal(shape) * np.exp2(rng.integers(-6, 6, size=shape))
    return tcnum.encode(values, fmt)


@pytest.mark.parametrize("ins", classes("sm_90"), ids=lambda i: i.name)
def test_one_k_step_gemm_equals_the_tile_and_the_elements(ins):
    """gemm with K = k is one instruction: it equals mma on that tile, which equals
    mma_element on each row/column pair; with K = 2k it equals two chained mma calls."""
    rng = np.random.default_rng(3)
    m, n, k = ins.m, min(ins.n, 16), ins.k
    tile = tcnum.instruction(ins.name.replace(f"n{ins.n}k", f"n{n}k"), "sm_90") if ins.family != "mma" else ins
    a = tcnum.from_bits(random_bits(rng, ins.a, (m, 2 * k)), ins.a)
    b = tcnum.from_bits(random_bits(rng, ins.b, (2 * k, n)), ins.b)
    c = tcnum.from_bits(random_bits(rng, ins.c, (m, n)), ins.c)
    d1 = tcnum.mma(tile.name, a[:, :k], b[:k], c)
    elements = tcnum.mma_element(tile.name, np.repeat(a[:, None, :k], n, axis=1),
                                 np.repeat(b[:k].T[None], m, axis=0), c)
    tcnum.testing.assert_bitexact(d1, elements)
    tcnum.testing.assert_bitexact(tcnum.gemm(a[:, :k], b[:k], c, instr=tile.name), d1)
    # the second step takes the running D as C, in D's type (mma's C type is its last field)
    second = tile.name.rsplit(".", 1)[0] + "." + ins.d if ins.family == "mma" else tile.name
    chained = tcnum.mma(second, a[:, k:], b[k:], d1)
    tcnum.testing.assert_bitexact(tcnum.gemm(a, b, c, instr=tile.name), chained)


def test_mma_takes_batches_of_tiles():
    rng = np.random.default_rng(4)
    ins = tcnum.instruction("mma.m16n8k16.f32.f16.f16.f32")
    a = tcnum.from_bits(random_bits(rng, "f16", (3, 2, 16, 16)), "f16")
    b = tcnum.from_bits(random_bits(rng, "f16", (3, 2, 16, 8)), "f16")
    d = tcnum.mma(ins.name, a, b)
    assert d.shape == (3, 2, 16, 8) and d.dtype == np.float32
    tcnum.testing.assert_bitexact(d[2, 1], tcnum.mma(ins.name, a[2, 1], b[2, 1], np.zeros((16, 8), np.float32)))


@pytest.mark.parametrize("fmt, instr", [("bf16", "mma.m16n8k16.f32.bf16.bf16.f32"),
                                         ("e4m3", "wgmma.m64n8k32.f16.e4m3.e4m3"),
                                         ("tf32", "wgmma.m64n8k8.f32.tf32.tf32")])
def test_typed_arrays_equal_the_cpp_gemm_on_raw_bits(fmt, instr):
    """Typed arrays, raw storage-width bits and the library's uint32 call agree bit for bit,
    on every kind of pattern (NaN, Inf, subnormals, tf32's low register bits)."""
    rng = np.random.default_rng(5)
    ins = tcnum.instruction(instr)
    m, n, k = 9, 10, 3 * ins.k
    a_bits = random_bits(rng, fmt, (m, k), specials=True)
    b_bits = random_bits(rng, fmt, (k, n), specials=True)
    c_bits = random_bits(rng, ins.c, (m, n))
    typed = tcnum.gemm(tcnum.from_bits(a_bits, fmt), tcnum.from_bits(b_bits, fmt),
                       tcnum.from_bits(c_bits, ins.c), instr=instr)
    raw = tcnum.gemm(a_bits, b_bits, c_bits, instr=instr)
    model = _tcnum.Model.builtin(90)
    cpp = _tcnum.gemm(model, instr, a_bits.astype(np.uint32), b_bits.astype(np.uint32), c_bits.astype(np.uint32),
                      m, n, k, [], 1, 0)
    assert cpp.dtype == tcnum.FORMATS[ins.d][0]
    assert np.array_equal(tcnum.to_bits(typed), cpp) and np.array_equal(tcnum.to_bits(raw), cpp)


def test_thread_count_does_not_change_results():
    rng = np.random.default_rng(6)
    a = tcnum.from_bits(random_bits(rng, "bf16", (64, 64)), "bf16")
    b = tcnum.from_bits(random_bits(rng, "bf16", (64, 32)), "bf16")
    tcnum.testing.assert_bitexact(tcnum.gemm(a, b, threads=1), tcnum.gemm(a, b, threads=2))


class DLPackOnly:
    """An object that offers nothing but DLPack, like a framework's tensor."""

    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, **kwargs):
        return self._arr.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


class ArrayOnly:
    def __init__(self, arr):
        self._arr = arr

    def __array__(self, dtype=None, copy=None):
        return self._arr


def test_dlpack_and_array_protocol_inputs():
    rng = np.random.default_rng(8)
    a = small_integers(rng, (8, 16), "f16", 3)
    b = small_integers(rng, (16, 4), "f16", 3)
    want = tcnum.gemm(a, b)
    tcnum.testing.assert_bitexact(tcnum.gemm(DLPackOnly(a), DLPackOnly(b)), want)
    tcnum.testing.assert_bitexact(tcnum.gemm(ArrayOnly(a), ArrayOnly(b)), want)
    assert tcnum.asarray(DLPackOnly(a)).dtype == np.float16 and np.array_equal(tcnum.asarray(ArrayOnly(a)), a)
    # non-contiguous views are fine
    tcnum.testing.assert_bitexact(tcnum.gemm(np.asfortranarray(a), b[:, ::1]), want)


def test_dlpack_import_of_types_numpy_lacks_is_a_view_that_keeps_the_producer_alive():
    """The extension's own DLPack import (used for bf16/fp8 tensors that np.from_dlpack refuses)."""
    a = np.arange(6, dtype=np.float16).reshape(2, 3)
    bits, name = _tcnum.import_dlpack(DLPackOnly(a))
    assert name == "float16" and bits.dtype == np.uint16 and np.shares_memory(bits, a)
    assert np.array_equal(bits.view(np.float16), a)
    strided = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    bits, name = _tcnum.import_dlpack(strided)
    assert name == "float32" and np.array_equal(bits.view(np.float32), strided)


def test_jax_arrays_of_every_format():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    cpu = jax.devices("cpu")[0]  # on a GPU host JAX's default device is the GPU
    rng = np.random.default_rng(10)
    for fmt, jdtype in [("bf16", jnp.bfloat16), ("f16", jnp.float16), ("e4m3", jnp.float8_e4m3fn),
                        ("e5m2", jnp.float8_e5m2)]:
        a = small_integers(rng, (8, 64), fmt, 3)
        b = small_integers(rng, (64, 4), fmt, 3)
        ja = jax.device_put(a.astype(np.float32), cpu).astype(jdtype)
        jb = jax.device_put(b.astype(np.float32), cpu).astype(jdtype)
        assert tcnum.asarray(ja).dtype == tcnum.FORMATS[fmt][1]
        tcnum.testing.assert_bitexact(tcnum.gemm(ja, jb), tcnum.gemm(a, b))


def test_a_gpu_tensor_is_refused_with_a_clear_error():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    a = torch.ones((16, 16), dtype=torch.bfloat16, device="cuda")
    with pytest.raises(TypeError, match="computes on the CPU"):
        tcnum.gemm(a, a)


def test_torch_cpu_tensors_of_every_format():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    for fmt, tdtype in [("bf16", torch.bfloat16), ("f16", torch.float16), ("e4m3", torch.float8_e4m3fn),
                        ("e5m2", torch.float8_e5m2)]:
        a = small_integers(rng, (8, 64), fmt, 3)
        b = small_integers(rng, (64, 4), fmt, 3)
        ta = torch.from_numpy(a.astype(np.float32)).to(tdtype)
        tb = torch.from_numpy(b.astype(np.float32)).to(tdtype)
        assert tcnum.asarray(ta).dtype == tcnum.FORMATS[fmt][1]
        assert np.array_equal(tcnum.to_bits(tcnum.asarray(ta)), tcnum.to_bits(a))
        got = tcnum.gemm(ta, tb)
        tcnum.testing.assert_bitexact(got, tcnum.gemm(a, b))
        tcnum.testing.assert_bitexact(torch.from_numpy(np.asarray(got)), got)
