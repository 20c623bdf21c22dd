"""Bad input raises ValueError/TypeError whose message lists the valid choices."""

import ml_dtypes
import numpy as np
import pytest

import tcnum

BF = ml_dtypes.bfloat16


def bf(shape):
    return np.ones(shape, dtype=BF)


def test_unsupported_dtype_lists_the_valid_dtypes():
    with pytest.raises(TypeError, match=r"float64 is not a tensor-core format; valid: ml_dtypes.bfloat16"):
        tcnum.gemm(np.ones((2, 2)), bf((2, 2)))
    with pytest.raises(TypeError, match="int32 is not allowed here; valid formats: bf16"):  # s32: C and D only
        tcnum.gemm(bf((2, 2)), np.ones((2, 2), np.int32))
    with pytest.raises(TypeError, match="expected an array"):
        tcnum.gemm(object(), bf((2, 2)))


def test_raw_bits_need_a_format_of_the_right_width():
    raw = np.zeros((4, 16), np.uint16)
    with pytest.raises(TypeError, match=r"raw uint16 bits need a format.*bf16"):
        tcnum.gemm(raw, raw.T)
    with pytest.raises(TypeError, match="raw bits of bf16 are uint16, got uint8"):
        tcnum.gemm(raw.astype(np.uint8), raw.T, instr="mma.m16n8k16.f32.bf16.bf16.f32", arch="sm_80")
    with pytest.raises(TypeError, match=r"expected bf16 \(bfloat16 or raw uint16 bits\), got float16"):
        tcnum.gemm(np.ones((4, 16), np.float16), bf((16, 4)), instr="mma.m16n8k16.f32.bf16.bf16.f32", arch="sm_80")


def test_shapes():
    with pytest.raises(ValueError, match=r"a is 3×5 but b is 4×2"):
        tcnum.gemm(bf((3, 5)), bf((4, 2)))
    with pytest.raises(ValueError, match=r"a must be a 2-D matrix \(M×K\) or a batch of them \(\.\.\., M×K\), got shape \(3,\)"):
        tcnum.gemm(bf((3,)), bf((3, 2)))
    with pytest.raises(ValueError, match=r"c must be M×N = 3×2 \(or a batch of them, \.\.\., 3×2\), got shape \(2, 3\)"):
        tcnum.gemm(bf((3, 4)), bf((4, 2)), np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"takes a \(\.\.\., 16, 16\), b \(\.\.\., 16, 8\)"):
        tcnum.mma("mma.m16n8k16.f32.bf16.bf16.f32", bf((16, 8)), bf((8, 8)))
    with pytest.raises(ValueError, match=r"elements take a and b \(\.\.\., 16\)"):
        tcnum.mma_element("mma.m16n8k16.f32.bf16.bf16.f32", bf((3, 8)), bf((3, 8)))


def test_unknown_or_unavailable_instructions_list_the_valid_names():
    with pytest.raises(ValueError, match=r"(?s)'mma.bogus' is not available on sm_90; valid names there:\n.*"
                                         r"mma.m16n8k16.f32.bf16.bf16.f32"):
        tcnum.gemm(bf((2, 16)), bf((16, 2)), instr="mma.bogus")
    with pytest.raises(ValueError, match=r"(?s)not available on sm_80.*\n  mma.m16n8k16"):
        tcnum.mma("wgmma.m64n8k16.f32.bf16.bf16", bf((64, 16)), bf((16, 8)), arch="sm_80")
    with pytest.raises(TypeError, match="PTX name"):
        tcnum.instruction(42)


def test_no_instruction_for_the_dtypes_lists_what_exists():
    e4m3 = np.ones((2, 32), ml_dtypes.float8_e4m3fn)
    with pytest.raises(ValueError, match=r"sm_80 has no tensor-core instruction with e4m3 inputs and f32 accumulation; "
                                         r"input types there: bf16 f16 tf32 \(e4m3 needs sm_89 or later\)"):
        tcnum.gemm(e4m3, e4m3.T, arch="sm_80")
    with pytest.raises(ValueError, match=r"sm_90 has no tensor-core instruction with e4m3 × bf16 inputs"):
        tcnum.gemm(e4m3, bf((32, 2)))
    with pytest.raises(TypeError, match="c: dtype bfloat16 is not an accumulator; valid: float32"):
        tcnum.gemm(bf((2, 2)), bf((2, 2)), bf((2, 2)))


def test_unknown_architecture_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown architecture 'sm_91'; known: sm_70 sm_75 sm_80"):
        tcnum.gemm(bf((2, 2)), bf((2, 2)), arch="sm_91")
    with pytest.raises(ValueError, match="unknown architecture"):
        tcnum.instructions("hopper")
    with pytest.raises(TypeError, match="arch is a name"):
        tcnum.model(9.0)


def test_gemm_options():
    a, b = bf((2, 64)), bf((64, 2))
    with pytest.raises(ValueError, match=r"k_order is not a permutation: step 1 appears twice"):
        tcnum.gemm(a, b, k_order=[0, 1, 1, 2])
    with pytest.raises(ValueError, match=r"k_order has 2 entries, expected one per k-step: 4"):
        tcnum.gemm(a, b, k_order=[0, 1])
    with pytest.raises(ValueError, match=r"split_k = 5 must be in 1..steps"):
        tcnum.gemm(a, b, split_k=5)
    with pytest.raises(TypeError, match="split_k must be an int"):
        tcnum.gemm(a, b, split_k=1.5)
    with pytest.raises(ValueError, match="threads must be None"):
        tcnum.gemm(a, b, threads=0)


def test_models_files_and_devices():
    with pytest.raises(ValueError, match="model JSON"):
        tcnum.gemm(bf((2, 2)), bf((2, 2)), model={"name": "x"})
    with pytest.raises(TypeError, match="model is a dict"):
        tcnum.gemm(bf((2, 2)), bf((2, 2)), model=3)
    with pytest.raises(FileNotFoundError, match="no such corpus file"):
        tcnum.replay("/nonexistent.tcc.gz")
    with pytest.raises(FileNotFoundError, match="no corpus file matches"):
        tcnum.replay("/nonexistent/**/*.tcc.gz")

    class OnGpu:
        def __dlpack__(self, **kwargs):
            raise AssertionError("must not be called")

        def __dlpack_device__(self):
            return (2, 0)  # kDLCUDA

    with pytest.raises(TypeError, match=r"computes on the CPU; move the tensor there first"):
        tcnum.gemm(OnGpu(), bf((2, 2)))


def test_format_names():
    with pytest.raises(ValueError, match="unknown format 'fp64'; valid: f32, tf32, f16, bf16, e4m3, e5m2"):
        tcnum.from_bits(np.zeros(2, np.uint16), "fp64")
    with pytest.raises(ValueError, match="rounding"):
        tcnum.encode([1.0], "bf16", rounding="up")
    with pytest.raises(TypeError, match="raw bits of f16 are uint16, got uint32"):
        tcnum.decode(np.zeros(2, np.uint32), "f16")
