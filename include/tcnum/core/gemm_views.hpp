// GEMM on matrix views: D = A·B + C as `in` computes it under `model`, with A, B, C and D in
// the caller's storage (any layout, leading dimension and element type of matrix_view.hpp).
// Built on the raw-bits tcnum::gemm (gemm.hpp), which stays the lowest layer: the views are
// gathered into its operands and D is scattered into the caller's view.
//
//   tcnum::gemm(tcnum::builtin_model(90), in, tcnum::row_major(a, M, K), tcnum::col_major(b, K, N),
//               tcnum::row_major(d, M, N));      // C = +0
#pragma once
#include "tcnum/core/matrix_view.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum {

// How a view of float values becomes an operand of a narrower format (bf16, f16, tf32, fp8,
// or f16 C). Views holding bits are never converted: their format must be the operand's.
struct Conversion {
  Rounding rounding = Rounding::nearest_even;  // RNE: CUDA's __float2bfloat16 / __float2half_rn
  // false: a value the operand's format cannot hold exactly is an error naming the element;
  // true: it is rounded with `rounding`.
  bool allow_inexact = false;
  // fp8 only: a finite value beyond the range gives ±max (CUDA's __NV_SATFINITE, the default
  // of __nv_fp8_e4m3's constructor) instead of Inf / NaN.
  bool satfinite = true;
};

namespace detail {
// The operand's raw bits, M×K/K×N/M×N row-major, as tcnum::gemm takes them.
std::vector<std::uint32_t> gather(const AnyView& v, Format operand_format, const Conversion& conv,
                                  const Instruction& in, const char* operand);
// Writes values of `format` (row-major) into `out`: bits of the same format, or exact float values.
void scatter(const std::vector<std::uint32_t>& values, Format format, const AnyView& out, const Instruction& in,
             const char* what);
void gemm_views(const Model& model, const Instruction& in, const AnyView& a, const AnyView& b, const AnyView* c,
                const AnyView& d, const GemmOptions& opt, const Conversion& conv);
}  // namespace detail

// D = A·B + C. A is M×K, B K×N, C and D M×N. A and B hold in.a_type/in.b_type (or floats,
// converted per `conv`); C holds in.c_type (or floats); D holds in.d_type or floats (f16
// results are exact in float). D may be C's memory (in place: the
// operands are read before D is written). Throws std::invalid_argument on
// mismatched shapes, formats, or an inexact conversion not allowed by `conv`.
template <class TA, class TB, class TC, class TD>
void gemm(const Model& model, const Instruction& in, MatrixView<TA> a, MatrixView<TB> b, MatrixView<TC> c,
          MatrixView<TD> d, const GemmOptions& opt = {}, const Conversion& conv = {}) {
  static_assert(!std::is_const_v<TD>, "tcnum::gemm: D must be a view of writable elements");
  const AnyView ec = erase(c);
  detail::gemm_views(model, in, erase(a), erase(b), &ec, erase(d), opt, conv);
}

// D = A·B with C = +0 (what a kernel whose accumulators start at zero computes).
template <class TA, class TB, class TD>
void gemm(const Model& model, const Instruction& in, MatrixView<TA> a, MatrixView<TB> b, MatrixView<TD> d,
          const GemmOptions& opt = {}, const Conversion& conv = {}) {
  static_assert(!std::is_const_v<TD>, "tcnum::gemm: D must be a view of writable elements");
  detail::gemm_views(model, in, erase(a), erase(b), nullptr, erase(d), opt, conv);
}

}  // namespace tcnum
