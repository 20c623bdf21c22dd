// The fast kernel. One body (fast_kernel_body.inc), written with GCC vector extensions over 16
// lanes, compiled three times (AVX-512, AVX2, baseline SSE2) and dispatched once at run time. Why this and not Google
// Highway: the body needs 16-lane int32/float and 16-lane int64/double arithmetic with
// conversions between them and nothing else; GCC's vector types express exactly that in plain
// C++ operators, and function-level target attributes give the three builds without a new
// dependency (docs/benchmarks.md, "Fast path"). The target regions use a mechanism each compiler
// honours (TCNUM_TARGET_PUSH below: GCC's `#pragma GCC target`, which clang ignores without a
// word, and clang's `#pragma clang attribute`, as Highway's HWY_PUSH_ATTRIBUTES does), so that
// "avx512" names AVX-512 code under both; tests/simd/check_zmm.sh checks the objects.
// Off x86 (aarch64) only the portable build exists, named "portable": GCC's vector extensions
// lower it to the target's own vectors (NEON on aarch64).
//
// The arithmetic of one block, per lane (the hazards listed in docs/benchmarks.md):
//   emax  = max(nominal exponents of the nonzero products and of the addend), then the floor;
//   term  = trunc(|a·b| · 2^(lsb - (emax - F))) with the product's sign: the product of two
//           significands of <= 11 bits is exact in a float, scaling it by a power of two is
//           exact, and the float-to-int conversion truncates toward zero, so one cvttps2dq does
//           the alignment and the truncation; terms sum exactly in int32 (the plan bounds it);
//   C     = trunc(|C| · 2^(F - emax)) with C's sign: C (or the previous block's result) as an fp32
//           value, scaled by subtracting from its exponent field; NaN/Inf/subnormal C -> reference;
//   round = the exact int32 sum rounded into the target: with AVX-512 (GCC) one int -> fp32
//           conversion with embedded RZ rounding plus a mask and an exponent addition (RZ), or
//           RZ with a sticky last bit then the fp32 -> f16 conversion (RNE to f16); elsewhere in
//           integer lanes (round_sum_into).
// Operand planes are decoded 16 operands at a time (prepare_planes) by the same instruction set.
// A lane whose block holds a NaN/Inf, whose result would be subnormal or overflow, or (with
// IEEE -0 rules) whose block holds no nonzero term is reported back and recomputed by the
// reference datapath.
#include "fast_kernel.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#define TCNUM_KERNEL_X86 1
#include <immintrin.h>
#else
#define TCNUM_KERNEL_X86 0
#endif

// Every function defined between TCNUM_TARGET_PUSH(features) and TCNUM_TARGET_POP is compiled
// for those instruction-set features: GCC's pragma covers all code in the region; clang's
// attribute every function declared in it, lambdas too (else the AVX-512 intrinsics that they
// reach would not compile); tests/simd/check_zmm.sh checks the registers each build uses.
#define TCNUM_PRAGMA(text) _Pragma(#text)
#if defined(__clang__)
#define TCNUM_TARGET_PUSH(features) \
  TCNUM_PRAGMA(clang attribute push(__attribute__((target(features))), apply_to = function))
#define TCNUM_TARGET_POP TCNUM_PRAGMA(clang attribute pop)
#else
#define TCNUM_TARGET_PUSH(features) TCNUM_PRAGMA(GCC push_options) TCNUM_PRAGMA(GCC target(features))
#define TCNUM_TARGET_POP TCNUM_PRAGMA(GCC pop_options)
#endif

namespace tcnum::detail {
namespace {

#if TCNUM_KERNEL_X86
TCNUM_TARGET_PUSH("avx512f,avx512dq,avx512bw,avx512vl,avx512cd,avx2,fma,bmi,bmi2")
namespace avx512 {
// Embedded rounding (AVX-512F: int32 -> fp32 with RZ, fp32 <-> f16) rounds a block in a few
// instructions; masked loads fetch a single element's operands, permutes pick its lanes.
#define TCNUM_KERNEL_EMBEDDED_ROUNDING 1
#define TCNUM_KERNEL_MASKED_LOAD 1
#define TCNUM_KERNEL_LANE_PERMUTE 1
// The common block layouts (8, 16, 32 products; one or two blocks) as compile-time shapes: here only, where the
// speed is measured, to keep the build short.
#define TCNUM_KERNEL_SHAPES 1
#include "fast_kernel_body.inc"
#undef TCNUM_KERNEL_EMBEDDED_ROUNDING
#undef TCNUM_KERNEL_MASKED_LOAD
#undef TCNUM_KERNEL_LANE_PERMUTE
#undef TCNUM_KERNEL_SHAPES
}  // namespace avx512
TCNUM_TARGET_POP

TCNUM_TARGET_PUSH("avx2,fma,bmi,bmi2")
namespace avx2 {
#define TCNUM_KERNEL_EMBEDDED_ROUNDING 0
#define TCNUM_KERNEL_MASKED_LOAD 0
#define TCNUM_KERNEL_LANE_PERMUTE 0
#define TCNUM_KERNEL_SHAPES 0
#include "fast_kernel_body.inc"
#undef TCNUM_KERNEL_EMBEDDED_ROUNDING
#undef TCNUM_KERNEL_MASKED_LOAD
#undef TCNUM_KERNEL_LANE_PERMUTE
#undef TCNUM_KERNEL_SHAPES
}  // namespace avx2
TCNUM_TARGET_POP
#endif  // TCNUM_KERNEL_X86

namespace baseline {
#define TCNUM_KERNEL_EMBEDDED_ROUNDING 0
#define TCNUM_KERNEL_MASKED_LOAD 0
#define TCNUM_KERNEL_LANE_PERMUTE 0
#define TCNUM_KERNEL_SHAPES 0
#include "fast_kernel_body.inc"
#undef TCNUM_KERNEL_EMBEDDED_ROUNDING
#undef TCNUM_KERNEL_MASKED_LOAD
#undef TCNUM_KERNEL_LANE_PERMUTE
#undef TCNUM_KERNEL_SHAPES
}  // namespace baseline

#if TCNUM_KERNEL_X86
const KernelSet kAvx512{"avx512", avx512::gemm_chain, avx512::batch_step, avx512::prepare_planes, avx512::element_for};
const KernelSet kAvx2{"avx2", avx2::gemm_chain, avx2::batch_step, avx2::prepare_planes, avx2::element_for};
const KernelSet kBaseline{"baseline", baseline::gemm_chain, baseline::batch_step, baseline::prepare_planes, baseline::element_for};
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
#else   // one build for every CPU of the architecture: nothing to dispatch, TCNUM_SIMD changes nothing
const KernelSet kPortable{"portable", baseline::gemm_chain, baseline::batch_step, baseline::prepare_planes, baseline::element_for};
const KernelSet& best_available() { return kPortable; }
const KernelSet& choose() { return kPortable; }
#endif

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
