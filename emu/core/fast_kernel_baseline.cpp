// The fast kernel's baseline build, for the compiler's default target: SSE2 on x86, and off x86
// (aarch64) the one build, "portable", with the target's own vectors (NEON). fast_kernel.cpp
// dispatches; fast_kernel_target.hpp says why one file per build.
#include "fast_kernel_target.hpp"

namespace tcnum::detail {
namespace {

namespace baseline {
#define TCNUM_KERNEL_EMBEDDED_ROUNDING 0
#define TCNUM_KERNEL_MASKED_LOAD 0
#define TCNUM_KERNEL_LANE_PERMUTE 0
#define TCNUM_KERNEL_CHAIN_ROWS 4
#define TCNUM_KERNEL_SHAPES 0
#include "fast_kernel_body.inc"
}  // namespace baseline

constexpr KernelSet kBaseline{TCNUM_KERNEL_X86 ? "baseline" : "portable", baseline::kChainRows, baseline::gemm_chain, baseline::batch_step,
                              baseline::prepare_planes, baseline::element_for, baseline::or_masked, baseline::gather_rows};

}  // namespace

const KernelSet& baseline_kernels() { return kBaseline; }

}  // namespace tcnum::detail
