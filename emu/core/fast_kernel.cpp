// The fast kernel. One body (fast_kernel_body.inc), written with GCC vector extensions over 16
// lanes, compiled three times (AVX-512, AVX2, baseline SSE2) and dispatched once at run time. Why this and not Google
// Highway: the body needs 16-lane int32/float and 16-lane int64/double arithmetic with
// conversions between them and nothing else; GCC's vector types express exactly that in plain
// C++ operators, and function-level target attributes give the three builds without a new
// dependency (docs/benchmarks.md, "Fast path").
//
// The arithmetic of one block, per lane (the hazards listed in docs/benchmarks.md):
//   emax  = max(nominal exponents of the nonzero products and of the addend), then the floor;
//   term  = trunc(|a·b| · 2^(lsb - (emax - F))) with the product's sign: the product of two
//           significands of <= 11 bits is exact in a float, scaling it by a power of two is
//           exact, and the float-to-int conversion truncates toward zero, so one cvttps2dq does
//           the alignment and the truncation; terms sum exactly in int32 (the plan bounds it);
//   C     = the same in double/int64 (24-bit significand);
//   round = the exact int64 sum, converted to double (exact below 2^53), rounded to the
//           target's kept bits in the double's bit pattern (RZ: mask; RNE: add half-1+lsb),
//           then re-packed into fp32/f16 fields.
// A lane whose block holds a NaN/Inf, whose result would be subnormal or overflow, or (with
// IEEE -0 rules) whose block holds no nonzero term is reported back and recomputed by the
// reference datapath.
#include "fast_kernel.hpp"

#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

namespace tcnum::detail {
namespace {

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512bw,avx512vl,avx512cd,avx2,fma,bmi,bmi2")
namespace avx512 {
#include "fast_kernel_body.inc"
}  // namespace avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2")
namespace avx2 {
#include "fast_kernel_body.inc"
}  // namespace avx2
#pragma GCC pop_options

namespace baseline {
#include "fast_kernel_body.inc"
}  // namespace baseline

const KernelSet kAvx512{"avx512", avx512::gemm_chain, avx512::batch_step};
const KernelSet kAvx2{"avx2", avx2::gemm_chain, avx2::batch_step};
const KernelSet kBaseline{"baseline", baseline::gemm_chain, baseline::batch_step};
const KernelSet& best_available() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd"))
    return kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
    return kAvx2;
  return kBaseline;
}

const KernelSet& choose() {
  const KernelSet& best = best_available();
  const char* cap = std::getenv("TCNUM_SIMD");
  if (!cap) return best;
  const std::string_view want(cap);
  if (want == "baseline" || want == "scalar") return kBaseline;
  if (want == "avx2" && &best == &kAvx512) return kAvx2;
  return best;
}

}  // namespace

const KernelSet& kernels() {
  static const KernelSet& chosen = choose();
  return chosen;
}

}  // namespace tcnum::detail

namespace tcnum {
const char* simd_path() { return detail::kernels().name; }
const char* simd_best_available() { return detail::best_available().name; }
}  // namespace tcnum
