"""tcnum's compiled core; use the `tcnum` package, not this module."""

from collections.abc import Sequence
from typing import Annotated

import numpy
from numpy.typing import NDArray


def build_info() -> dict:
    """
    version, git revision (at configure time), compiler and the fast kernel's SIMD path of this build
    """

class Model:
    @staticmethod
    def builtin(sm: int) -> Model: ...

    @staticmethod
    def from_json(text: str) -> Model: ...

    def to_json(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def sm(self) -> int: ...

def parse_arch(arch: str) -> int: ...

def known_archs() -> list[int]: ...

def arch_name(arch: int) -> str: ...

def instructions(sm: int) -> list: ...

def instruction(name: str, sm: int) -> dict: ...

def default_instruction(a: str, b: str, d: str, c: str | None, sm: int) -> dict: ...

def decode(bits: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], format: str) -> NDArray:
    """Exact values of raw bits (flat float64 array)."""

def encode(values: Annotated[NDArray[numpy.float64], dict(order='C', device='cpu', writable=False)], format: str, toward_zero: bool = False, satfinite: bool = False) -> NDArray:
    """
    Raw bits of float64 values rounded into a format (flat array of its storage width).
    """

def import_dlpack(x: Annotated[NDArray, dict(device='cpu', writable=False)]) -> tuple[Annotated[NDArray, dict(writable=False)], str]: ...

def mma_elements(model: Model, instruction: str, a: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], b: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], c: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], scale_a: Annotated[NDArray, dict(order='C', device='cpu', writable=False)] | None = None, scale_b: Annotated[NDArray, dict(order='C', device='cpu', writable=False)] | None = None) -> NDArray: ...

def mma_tiles(model: Model, instruction: str, a: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], b: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], c: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], tiles: int) -> NDArray: ...

def gemm(model: Model, instruction: str, a: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], b: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], c: Annotated[NDArray, dict(order='C', device='cpu', writable=False)] | None, m: int, n: int, k: int, k_order: Sequence[int], split_k: int, threads: int, schedule_json: str = '', scale_a: Annotated[NDArray, dict(order='C', device='cpu', writable=False)] | None = None, scale_b: Annotated[NDArray, dict(order='C', device='cpu', writable=False)] | None = None) -> NDArray: ...

def gemm_epilogue(model: Model, instruction: str, a: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], b: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], c: Annotated[NDArray, dict(order='C', device='cpu', writable=False)] | None, c_format: str, m: int, n: int, k: int, k_order: Sequence[int], split_k: int, threads: int, schedule_json: str, alpha: float, beta: float, bias: Annotated[NDArray[numpy.float32], dict(order='C', device='cpu', writable=False)] | None, bias_kind: str, relu: bool, fused: bool, rounding: str, satfinite: bool, out_format: str) -> NDArray:
    """
    D = epilogue(A·B, C) as tcnum::gemm_with_epilogue computes it (raw bits of out_format).
    """

def match_kernel(sm: int, a: str, b: str, accumulator: str, sass: str = '') -> dict:
    """
    tcnum::match_kernel as a dict (instruction, k_order, split_k, explanation).
    """

def schedule_normalize(json: str) -> str:
    """
    The schedule parsed strictly and printed back with every field (throws ValueError).
    """

def schedule_resolve(json: str, model: Model, instruction: str, k: int) -> list[list[tuple[int, int]]]:
    """Every slice's k-steps (begin, length) for K under an instruction."""

def replay(paths: Sequence[str], model: Model | None, max_failures: int) -> tuple: ...

def read_corpus(path: str) -> list: ...

def compare(expected: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], actual: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], format: str, rows: int, cols: int, max_ulps: int, any_nan: bool, any_zero_sign: bool, max_listed: int) -> dict: ...

def dmma_elements(a: Annotated[NDArray[numpy.uint64], dict(shape=(None, None), order='C', device='cpu', writable=False)], b: Annotated[NDArray[numpy.uint64], dict(shape=(None, None), order='C', device='cpu', writable=False)], c: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> list[int]:
    """
    f64 DMMA elements (tcnum::dmma_element) on raw binary64 bits: a, b n×K, c n; returns D's bits.
    """

def sparse_elements(model: Model, instruction: str, a: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], b: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], c: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], meta: Annotated[NDArray, dict(order='C', device='cpu', writable=False)] | None) -> NDArray: ...

def sparse_gemm(model: Model, instruction: str, a: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], b: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], c: Annotated[NDArray, dict(order='C', device='cpu', writable=False)] | None, m: int, n: int, k: int) -> NDArray: ...

def sparse_instructions(sm: int) -> list: ...

def cpp_gemm_seconds(model: Model, instruction: str, a: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], b: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], c: Annotated[NDArray, dict(order='C', device='cpu', writable=False)], m: int, n: int, k: int, repeats: int, threads: int) -> list[float]: ...
