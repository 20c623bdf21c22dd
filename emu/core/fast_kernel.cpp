// The fast kernel's dispatch. One body (fast_kernel_body.inc), written with GCC vector extensions
// over 16 lanes, compiled three times (AVX-512, AVX2, baseline SSE2), one translation unit per
// build (fast_kernel_avx512.cpp, fast_kernel_avx2.cpp, fast_kernel_baseline.cpp, so that they
// compile in parallel, as Highway compiles one SIMD source per target), and chosen here once at
// run time. Why this and not Google Highway: the body needs 16-lane int32/float and 16-lane
// int64/double arithmetic with conversions between them and nothing else; GCC's vector types
// express exactly that in plain C++ operators, and function-level target attributes give the
// three builds without a new dependency (docs/benchmarks.md, "Fast path"). The target regions
// use a mechanism each compiler honours (TCNUM_TARGET_PUSH in fast_kernel_target.hpp: GCC's
// `#pragma GCC target`, which clang ignores without a word, and clang's `#pragma clang
// attribute`, as Highway's HWY_PUSH_ATTRIBUTES does), so that "avx512" names AVX-512 code under
// both; tests/simd/check_zmm.sh checks the objects.
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
#include "fast_kernel_target.hpp"
#include "tcnum/core/build_info.hpp"

namespace tcnum::detail {
namespace {

#if TCNUM_KERNEL_X86
const KernelSet& best_available() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd"))
    return avx512_kernels();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
    return avx2_kernels();
  return baseline_kernels();
}

const KernelSet& choose() {
  const KernelSet& best = best_available();
  const char* cap = std::getenv("TCNUM_SIMD");
  if (!cap) return best;
  const std::string_view want(cap);
  if (want == "baseline" || want == "scalar") return baseline_kernels();
  if (want == "avx2" && &best == &avx512_kernels()) return avx2_kernels();
  return best;
}
#else   // one build for every CPU of the architecture ("portable"): nothing to dispatch, TCNUM_SIMD changes nothing
const KernelSet& best_available() { return baseline_kernels(); }
const KernelSet& choose() { return baseline_kernels(); }
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
