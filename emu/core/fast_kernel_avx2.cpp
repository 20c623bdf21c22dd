// The fast kernel's AVX2 build (x86 only; fast_kernel.cpp dispatches, fast_kernel_target.hpp
// says why one file per build).
#include "fast_kernel_target.hpp"

#if TCNUM_KERNEL_X86
namespace tcnum::detail {
namespace {

TCNUM_TARGET_PUSH("avx2,fma,bmi,bmi2")
namespace avx2 {
#define TCNUM_KERNEL_EMBEDDED_ROUNDING 0
#define TCNUM_KERNEL_MASKED_LOAD 0
#define TCNUM_KERNEL_LANE_PERMUTE 0
#define TCNUM_KERNEL_CHAIN_ROWS 4
#define TCNUM_KERNEL_SHAPES 0
#include "fast_kernel_body.inc"
}  // namespace avx2
TCNUM_TARGET_POP

constexpr KernelSet kAvx2{"avx2", avx2::kChainRows, avx2::gemm_chain, avx2::batch_step, avx2::prepare_planes, avx2::element_for,
                          avx2::or_masked, avx2::gather_rows};

}  // namespace

const KernelSet& avx2_kernels() { return kAvx2; }

}  // namespace tcnum::detail
#endif  // TCNUM_KERNEL_X86
