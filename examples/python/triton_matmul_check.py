"""Check a Triton matmul against tcnum.gemm, bit for bit (needs a GPU and Triton).

    python3 examples/python/triton_matmul_check.py [--size 512]

The kernel is the textbook one: each program keeps an fp32 accumulator for a BLOCK_M×BLOCK_N
tile and walks K in BLOCK_K steps with acc = tl.dot(a, b, acc). On sm_90 Triton compiles
tl.dot to wgmma (k = 16 for bf16/f16, 32 for fp8), chained through the accumulator in
ascending k: exactly tcnum.gemm's default (natural instruction, ascending k-steps, no split-K).
"""

import argparse
import sys

import numpy as np
import torch
import triton
import triton.language as tl

import tcnum

import oracle_variants


@triton.jit
def matmul_kernel(a_ptr, b_ptr, d_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(d_ptr + rm[:, None] * N + rn[None, :], acc)


def run(dtype, size, arch):
    g = torch.Generator().manual_seed(2)
    a = torch.randn(size, size, generator=g).to(dtype)
    b = torch.randn(size, size, generator=g).to(dtype)
    d = torch.empty(size, size, dtype=torch.float32, device="cuda")
    grid = (size // 128, size // 128)
    matmul_kernel[grid](a.cuda(), b.cuda(), d, size, size, size, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64)
    oracle = tcnum.gemm(a, b, arch=arch)
    report = tcnum.testing.compare(d.cpu(), oracle)
    print(f"Triton tl.dot {str(dtype).replace('torch.', '')} -> fp32, {size}³, oracle {oracle.instruction.name}: "
          f"{report}")
    oracle_variants.sensitivity(a, b, d.cpu(), arch)
    if report.count and not oracle_variants.explain(a, b, d.cpu(), arch):
        return report.count
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("no CUDA device: not run")
        return 0
    major, minor = torch.cuda.get_device_capability()
    arch = f"sm_{major}{minor}"
    print(f"GPU: {torch.cuda.get_device_name()} ({arch}), Triton {triton.__version__}")
    dtypes = [torch.bfloat16, torch.float16] + ([torch.float8_e4m3fn] if major >= 9 else [])
    failed = sum(run(dt, args.size, arch) > 0 for dt in dtypes)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
