// The fast kernel's AVX-512 build (x86 only; fast_kernel.cpp dispatches, fast_kernel_target.hpp
// says why one file per build).
#include "fast_kernel_target.hpp"

#if TCNUM_KERNEL_X86
namespace tcnum::detail {
namespace {

TCNUM_TARGET_PUSH("avx512f,avx512dq,avx512bw,avx512vl,avx512cd,avx2,fma,bmi,bmi2")
namespace avx512 {
// Embedded rounding (AVX-512F: int32 -> fp32 with RZ, fp32 <-> f16) rounds a block in a few
// instructions; masked loads fetch a single element's operands, permutes pick its lanes.
#define TCNUM_KERNEL_EMBEDDED_ROUNDING 1
#define TCNUM_KERNEL_MASKED_LOAD 1
#define TCNUM_KERNEL_LANE_PERMUTE 1
// The common block layouts (8, 16, 32 products; one or two blocks) as compile-time shapes: here
// only, where the speed is measured, to keep the build short.
#define TCNUM_KERNEL_CHAIN_ROWS 8
#define TCNUM_KERNEL_SHAPES 1
#include "fast_kernel_body.inc"
}  // namespace avx512
TCNUM_TARGET_POP

constexpr KernelSet kAvx512{"avx512", avx512::kChainRows, avx512::gemm_chain, avx512::batch_step, avx512::prepare_planes,
                            avx512::element_for, avx512::or_masked, avx512::gather_rows};

}  // namespace

const KernelSet& avx512_kernels() { return kAvx512; }

}  // namespace tcnum::detail
#endif  // TCNUM_KERNEL_X86
