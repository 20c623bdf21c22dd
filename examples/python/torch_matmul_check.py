"""Check torch.matmul in bf16 on a GPU against tcnum.gemm, bit for bit.

    python3 examples/python/torch_matmul_check.py [--size 512]

On a GPU: A and B are random bf16 matrices; torch.matmul (cuBLAS) computes D on the device,
tcnum.gemm computes it on the CPU with the model of the device's architecture, and the two
are compared with tcnum.testing.assert_bitexact. cuBLAS writes a bf16 D: its fp32
accumulator is rounded to nearest even, which the oracle's fp32 D is rounded to as well.
Where torch can write the fp32 accumulator itself (torch.mm(..., out_dtype=torch.float32)),
that is compared too. Without a GPU only the CPU part runs: torch CPU tensors go straight
into tcnum.gemm, and exact products are checked against torch.
"""

import argparse
import sys

import ml_dtypes
import torch

import tcnum

import oracle_variants


def cpu_part():
    """torch CPU tensors in, numpy out: on small integers every product is exact, so
    tcnum.gemm must equal torch's own float64 matmul."""
    g = torch.Generator().manual_seed(0)
    a = torch.randint(-4, 5, (64, 96), generator=g).to(torch.bfloat16)
    b = torch.randint(-4, 5, (96, 40), generator=g).to(torch.bfloat16)
    d = tcnum.gemm(a, b)  # bf16 torch tensors via DLPack
    want = (a.double() @ b.double()).float()
    tcnum.testing.assert_bitexact(d, want.numpy())
    print(f"CPU part: torch bf16 tensors -> tcnum.gemm ({d.instruction.name}): exact product matches torch, "
          f"{d.size} elements")


def gpu_part(size):
    major, minor = torch.cuda.get_device_capability()
    arch = f"sm_{major}{minor}"
    print(f"GPU: {torch.cuda.get_device_name()} ({arch}), torch {torch.__version__}")
    # cuBLAS may otherwise reduce split-K partial sums in bf16
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    g = torch.Generator().manual_seed(1)
    m = n = k = size
    a = torch.randn(m, k, generator=g).to(torch.bfloat16)
    b = torch.randn(k, n, generator=g).to(torch.bfloat16)
    oracle = tcnum.gemm(a, b, arch=arch)  # fp32 D, the natural instruction of the arch
    print(f"oracle: {oracle.instruction.name}, k-steps ascending, no split-K")
    failures = 0

    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA], acc_events=True) as prof:
        d_bf16 = torch.matmul(a.cuda(), b.cuda()).cpu()
    kernels = sorted({e.name for e in prof.events()
                      if e.device_type == torch.autograd.DeviceType.CUDA and not e.name.startswith("Memcpy")})
    print(f"cuBLAS kernel(s): {', '.join(kernels)}")
    # cuBLAS's epilogue for a bf16 D: the fp32 accumulator rounded to bf16 (RNE), tcnum's C++ epilogue
    want = tcnum.gemm(a, b, arch=arch, out_dtype="bf16")
    report = tcnum.testing.compare(d_bf16, want)
    print(f"torch.matmul bf16 -> bf16 D: {report}")
    if report.count:
        failures += not oracle_variants.explain(a, b, d_bf16, arch, round_to=ml_dtypes.bfloat16)

    try:
        d_f32 = torch.mm(a.cuda(), b.cuda(), out_dtype=torch.float32).cpu()
    except (TypeError, RuntimeError) as e:
        print(f"torch.mm(out_dtype=float32) not available: {e}")
    else:
        report = tcnum.testing.compare(d_f32, oracle)
        print(f"torch.mm bf16 -> fp32 D (out_dtype=torch.float32): {report}")
        if report.count:
            failures += not oracle_variants.explain(a, b, d_f32, arch)
        oracle_variants.sensitivity(a, b, d_f32, arch)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512)
    args = parser.parse_args()
    cpu_part()
    if not torch.cuda.is_available():
        print("no CUDA device: the GPU part was not run")
        return 0
    return 1 if gpu_part(args.size) else 0


if __name__ == "__main__":
    sys.exit(main())
