"""What a library kernel's name says about its schedule (docs/libraries.md, "Plans").

Kernel names seen on an H100 (torch 2.11, cuBLAS/cuBLASLt 13.1):
  nvjet_sm90_{types}_{BM}x{BN}_{BK}x{stages}_..._[algo2_][splitK_]{TN}   cuBLASLt's Hopper kernels (wgmma)
  cutlass_{75,80}_[wmma_]tensorop_[{t}_]s{1688,16816,161616}gemm_[{t}_]{BM}x{BN}_[{BK}x{stages}_]{layout}_align{n}
  sm{80,90}_xmma_gemm_{types}_..._tilesize{BM}x{BN}x{BK}_..._execute_segment_k_{on,off}_kernel...
  cublasLt::splitKreduce_kernel                       the split-K reduction (fp32, in slice order)
  sm80_xmma_gemm_..._execute_split_k_kernel...        the xmma kernels' own split-K reduction (likewise)
  Memset                                              zeroed semaphores: serial split-K (CUTLASS 2.x)
  gemv*, gemmSN*, gemmk1*, dot*, *simt_sgemm*         CUDA-core kernels: no tensor-core schedule
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SIGNATURE = re.compile(r"\(.*$")


@dataclass(frozen=True)
class KernelInfo:
    """The GEMM kernel of a call: family ("nvjet", "cutlass", "xmma", or "cuda_core"), the
    instruction shape it runs ("wgmma", "m16n8k8", "m16n8k16"), its k-tile (None: not in the
    name), and the structure flags in its name."""

    name: str
    family: str
    mma: str | None
    tile_k: int | None
    split_k: bool       # a split-K reduction kernel ran after it
    promoted: bool      # nvjet "algo2": FP8 partials promoted into fp32
    segment_k: bool     # xmma "execute_segment_k_on"
    partial_type: str | None = None  # splitKreduce's workspace type (its 4th template argument)


def short_name(kernel: str) -> str:
    """The kernel's name without `void`, template wrapper and parameter list."""
    k = _SIGNATURE.sub("", kernel.replace("void ", "")).strip()
    m = re.match(r"cutlass::Kernel2?<(.*)>$", k)
    return m.group(1) if m else k


_CUDA_CORE = ("gemv", "gemmSN", "gemmk1", "dot_kernel", "simt_sgemm", "gemmSM", "scal_kernel", "reduce_1Block", "_ffma_")


_TYPES = {"float": "f32", "__half": "f16", "__nv_bfloat16": "bf16"}


def reduce_workspace_type(kernels: list[str]) -> str | None:
    """The partials' type of cuBLASLt's splitKreduce_kernel<.., .., .., Partial, Out, Compute, ...>."""
    for k in kernels:
        m = re.search(r"splitKreduce_kernel<([^>]*)>", k)
        if m:
            args = [a.strip() for a in m.group(1).split(",")]
            return _TYPES.get(args[3]) if len(args) > 3 else None
    return None


def is_reduction_kernel(kernel: str) -> bool:
    """A parallel split-K reduction launched after the GEMM kernel: cuBLASLt's splitKreduce_kernel,
    or an xmma kernel's own `..._execute_split_k_kernel` (sm80_xmma TF32, algo 63: its fp32
    partials added in slice order, H100 2026-11-26: logged-seed4/tf32 #3424 reproduces)."""
    return "splitKreduce" in kernel or "execute_split_k_kernel" in kernel


def classify(kernels: list[str]) -> KernelInfo | str:
    """The main GEMM kernel of a call's kernel list, or a string saying why there is none."""
    if any(any(t in k for t in _CUDA_CORE) for k in kernels if not is_reduction_kernel(k)):
        cuda_core = next(k for k in kernels if any(t in k for t in _CUDA_CORE))
        return f"a CUDA-core kernel ({cuda_core[:120]}): no tensor-core schedule"
    names = [short_name(k) for k in kernels]
    # A reduction kernel after it (parallel split-K), or a memset of its semaphores before it
    # (CUTLASS 2.x serial split-K: slice s adds its partial to slice s-1's D, in order).
    split = any(is_reduction_kernel(n) for n in names) or any(n.startswith("Memset") for n in names)
    main = [n for n in names if any(t in n for t in ("nvjet", "gemm", "gemv", "dot_kernel"))
            and not is_reduction_kernel(n)]
    if len(main) != 1:
        return f"{len(main)} GEMM kernels in {names}"
    n = main[0]
    workspace = reduce_workspace_type(kernels)
    if any(t in n for t in _CUDA_CORE):
        return f"a CUDA-core kernel ({n}): no tensor-core schedule"
    if n.startswith("nvjet_sm90"):
        m = re.match(r"nvjet_sm90_[a-z]+_\d+x\d+_(\d+)x\d+_", n)
        return KernelInfo(n, "nvjet", "wgmma", int(m.group(1)) if m else None, split or "_splitK" in n,
                          "_algo2" in n, False, workspace)
    if n.startswith("cutlass_"):
        mma = "m16n8k8" if "s1688" in n else "m16n8k16" if ("s16816" in n or "s161616" in n) else None
        m = re.search(r"_\d+x\d+_(\d+)x\d+_", n)
        return KernelInfo(n, "cutlass", mma, int(m.group(1)) if m else None, split, False, False, workspace)
    if "xmma_gemm" in n:
        m = re.search(r"tilesize\d+x\d+x(\d+)", n)
        mma = "wgmma" if n.startswith("sm90") else "m16n8k8" if "tf32" in n else "m16n8k16"
        return KernelInfo(n, "xmma", mma, int(m.group(1)) if m else None, split, False, "segment_k_on" in n, workspace)
    return f"an unknown kernel family ({n})"
