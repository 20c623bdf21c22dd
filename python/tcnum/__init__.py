"""tcnum: bit-exact NVIDIA tensor-core MMA numerics on the CPU, for numpy/ml_dtypes arrays.

    import numpy as np, ml_dtypes, tcnum
    a = np.random.randn(64, 32).astype(ml_dtypes.bfloat16)
    b = np.random.randn(32, 48).astype(ml_dtypes.bfloat16)
    d = tcnum.gemm(a, b)                 # float32 D, as an H100 (sm_90) computes it
    d.instruction.name                   # 'wgmma.m64n8k16.f32.bf16.bf16'
    tcnum.testing.assert_bitexact(kernel_output, d)  # kernel_output: your kernel's D, as a CPU array

See docs/python.md.
"""

from . import libraries, testing
from ._arrays import FORMATS, asarray, decode, encode, from_bits, to_bits
from ._catalog import (Instruction, arch_number, default_instruction, instruction, instructions, model,
                       natural_instruction, sparse_instructions)
from ._corpus import CorpusCases, ReplayFailure, ReplayResult, read_corpus, replay
from ._dmma import DMMA_INSTRUCTIONS, dmma_element
from ._ops import GemmResult, KernelMatch, gemm, match_kernel, mma, mma_element
from ._schedule import Schedule
from ._tcnum import __version__, build_info

__all__ = [
    "DMMA_INSTRUCTIONS", "FORMATS", "CorpusCases", "dmma_element", "GemmResult", "KernelMatch", "match_kernel", "Instruction", "ReplayFailure", "ReplayResult", "arch_number", "asarray", "build_info",
    "Schedule", "decode", "encode", "from_bits", "gemm", "instruction", "instructions", "mma", "mma_element", "model",
    "default_instruction", "libraries", "natural_instruction", "read_corpus", "replay", "sparse_instructions", "testing", "to_bits",
]
