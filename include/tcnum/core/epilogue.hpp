// The epilogue: what a typical GEMM kernel does to the accumulators after the MMA main loop.
// It is a statement of one common epilogue, not of every kernel's: the test author says which
// steps their kernel does. Per output element, in IEEE binary32 arithmetic (round to nearest
// even, subnormals kept: no --use_fast_math / -ftz), `acc` the MMA result computed from a zero
// C (an f16 accumulator is widened exactly):
//
//   1. x = alpha·acc + bias      fused: one fmaf(alpha, acc, bias) (no bias: alpha·acc, one rounding)
//                                 unfused: alpha·acc rounded, then + bias rounded
//   2. x = beta·C + x            only when beta != 0 (C is then not read, as in cuBLAS/CUTLASS)
//                                 fused: fmaf(beta, C, x); unfused: beta·C rounded, then + x rounded
//   3. ReLU: x = max(x, +0)      NaN stays NaN; -0 and negative values give +0
//   4. D = x converted to D's format with `rounding` (RNE by default: cvt.rn); fp8 with
//      satfinite (cvt.rn.satfinite, CUDA's default) unless `satfinite` is false. NaN results
//      are the format's canonical NaN.
//
// The order of steps 1-2 is CUTLASS 3's sm90 fusion (Sm90LinearCombination:
// beta·C + (alpha·acc); Sm90LinCombPerRowBias: beta·C + (alpha·acc + bias);
// ...EltAct: the activation after that); CUTLASS's multiply_add is `a*b + c`, which nvcc
// contracts into one FFMA unless compiled with -fmad=false ("fused" = nvcc's default).
// cuBLAS's internal order is not documented.
#pragma once
#include <cstdint>
#include <span>

#include "tcnum/core/gemm_views.hpp"

namespace tcnum {

enum class BiasKind : std::uint8_t { none, per_row, per_column };

struct Epilogue {
  float alpha = 1.0f;
  float beta = 0.0f;
  BiasKind bias_kind = BiasKind::none;
  std::span<const float> bias;  // M values (per_row: bias[i]) or N values (per_column: bias[j])
  bool relu = false;
  bool fused = true;                            // fmaf (nvcc's default contraction) or mul then add
  Rounding rounding = Rounding::nearest_even;   // into D's format
  bool satfinite = true;                        // fp8 D: out of range gives ±max
};

// One element: steps 1-4 above for accumulator `acc`, source `c` and bias value `bias`
// (ignored when the epilogue has none); returns D's raw bits in `out`.
std::uint32_t epilogue_element(const Epilogue& ep, float acc, float c, float bias, Format out);

namespace detail {
void gemm_epilogue_views(const Model& model, const Instruction& in, const AnyView& a, const AnyView& b,
                         const AnyView* c, const AnyView& d, const Epilogue& ep, const GemmOptions& opt,
                         const Conversion& conv);
}

// acc = A·B (C = +0 into the MMA), then D = epilogue(acc, C). C (M×N, the epilogue's source)
// may hold floats or bits of any format (read exactly); D's element type says the output
// format (float: fp32). Throws std::invalid_argument on bad shapes, a bias of the wrong length,
// or beta != 0 without C.
template <class TA, class TB, class TC, class TD>
void gemm_with_epilogue(const Model& model, const Instruction& in, MatrixView<TA> a, MatrixView<TB> b,
                        MatrixView<TC> c, MatrixView<TD> d, const Epilogue& ep, const GemmOptions& opt = {},
                        const Conversion& conv = {}) {
  static_assert(!std::is_const_v<TD>, "tcnum::gemm_with_epilogue: D must be a view of writable elements");
  const AnyView ec = erase(c);
  detail::gemm_epilogue_views(model, in, erase(a), erase(b), &ec, erase(d), ep, opt, conv);
}

// The same without a source C (beta must be 0).
template <class TA, class TB, class TD>
void gemm_with_epilogue(const Model& model, const Instruction& in, MatrixView<TA> a, MatrixView<TB> b,
                        MatrixView<TD> d, const Epilogue& ep, const GemmOptions& opt = {}, const Conversion& conv = {}) {
  static_assert(!std::is_const_v<TD>, "tcnum::gemm_with_epilogue: D must be a view of writable elements");
  detail::gemm_epilogue_views(model, in, erase(a), erase(b), nullptr, erase(d), ep, opt, conv);
}

}  // namespace tcnum
