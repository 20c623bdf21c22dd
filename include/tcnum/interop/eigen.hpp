// Eigen 3.4 interop (header-only): matrices of tcnum's value types in, accumulator matrices out.
//
//   Eigen::Matrix<tcnum::bfloat16_t, -1, -1> A = tcnum::eigen::from_float<tcnum::bfloat16_t>(Af);
//   Eigen::Matrix<tcnum::bfloat16_t, -1, -1> B = tcnum::eigen::from_float<tcnum::bfloat16_t>(Bf);
//   Eigen::MatrixXf C = Eigen::MatrixXf::Zero(m, n);
//   Eigen::MatrixXf D = tcnum::eigen::gemm(tcnum::builtin_model(80),
//                                          tcnum::parse_instruction("mma.m16n8k16.f32.bf16.bf16.f32"), A, B, C);
//
// Scalar types: tcnum::half_t (f16), bfloat16_t (bf16), tfloat32_t (tf32), float_e4m3_t, float_e5m2_t,
// and for f32 accumulators plain `float` (its bits are the f32 bits, NaN payloads and -0 included)
// or tcnum::float32_t. A, B and C may be any Eigen dense expression (blocks, maps, either storage
// order). The result's scalar type is C's unless given explicitly as the first template argument
// (only needed for sm_70's mma.m8n8k4 with C and D of different types).
#pragma once
#include <Eigen/Core>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "tcnum/core/dot.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/types.hpp"

// Lets Eigen::Matrix hold tcnum's value types. They are storage types (raw bits, no arithmetic):
// construct, copy, compare with ==, set from a constant; convert with tcnum::eigen::to_float
// before doing arithmetic.
namespace Eigen {
template <tcnum::Format F>
struct NumTraits<tcnum::Scalar<F>> : GenericNumTraits<tcnum::Scalar<F>> {
  using Real = tcnum::Scalar<F>;
  using NonInteger = tcnum::Scalar<F>;
  using Nested = tcnum::Scalar<F>;
  using Literal = tcnum::Scalar<F>;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 0,  // trivially copyable raw bits, like float
    ReadCost = 1,
    AddCost = 1,
    MulCost = 1
  };
  static int digits10() { return tcnum::spec(F).frac_bits * 30103 / 100000 + 1; }
  static int digits() { return tcnum::spec(F).frac_bits + 1; }
  static Real epsilon() { return Real(std::ldexp(1.0, -tcnum::spec(F).frac_bits)); }
  static Real highest() { return Real::bitcast(tcnum::max_finite_bits(F, false)); }
  static Real lowest() { return Real::bitcast(tcnum::max_finite_bits(F, true)); }
  static Real infinity() { return Real::bitcast(tcnum::infinity_bits(F, false)); }
  static Real quiet_NaN() { return Real::bitcast(tcnum::canonical_nan(F)); }
};
}  // namespace Eigen

namespace tcnum::eigen {

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

namespace detail {

template <class T>
struct scalar_format {
  static constexpr bool known = false;
};
template <Format F>
struct scalar_format<Scalar<F>> {
  static constexpr bool known = true;
  static constexpr Format value = F;
};
template <>
struct scalar_format<float> {  // f32 accumulators as plain floats, bit for bit
  static constexpr bool known = true;
  static constexpr Format value = Format::fp32;
};

template <class T>
inline constexpr bool is_tcnum_scalar_v = scalar_format<std::remove_cv_t<T>>::known;

template <class T>
std::uint32_t raw_bits(const T& x) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<std::uint32_t>(x);
  else
    return x.raw();
}

template <class T>
T from_bits(std::uint32_t bits) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<float>(bits);
  else
    return T::bitcast(bits);
}

template <class T>
void check_format(const Instruction& in, const char* operand, Format expected) {
  constexpr Format given = scalar_format<T>::value;
  if (given != expected)
    throw std::invalid_argument("tcnum::eigen: " + in.name + " takes " + std::string(name_of(expected)) + " for " +
                                operand + ", but the matrix given holds " + std::string(name_of(given)));
}

// Any dense expression -> row-major raw bits.
template <class Derived>
std::vector<std::uint32_t> row_major_bits(const Eigen::MatrixBase<Derived>& x) {
  std::vector<std::uint32_t> v(static_cast<std::size_t>(x.rows() * x.cols()));
  const auto cols = static_cast<std::size_t>(x.cols());
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index j = 0; j < x.cols(); ++j)
      v[static_cast<std::size_t>(i) * cols + static_cast<std::size_t>(j)] = raw_bits(x(i, j));
  return v;
}

}  // namespace detail

// D = A·B + C as `in` computes it under `model`, by tcnum::gemm (see gemm.hpp for k_order and
// split-K). TD is D's scalar type, C's by default. Throws std::invalid_argument when a scalar
// type does not match the instruction's format (naming both) or the shapes do not agree.
template <class TD = void, class DA, class DB, class DC>
auto gemm(const Model& model, const Instruction& in, const Eigen::MatrixBase<DA>& A, const Eigen::MatrixBase<DB>& B,
          const Eigen::MatrixBase<DC>& C, const GemmOptions& opt = {}) {
  using TA = typename DA::Scalar;
  using TB = typename DB::Scalar;
  using TC = typename DC::Scalar;
  using Out = std::conditional_t<std::is_void_v<TD>, TC, TD>;
  static_assert(detail::is_tcnum_scalar_v<TA>,
                "tcnum::eigen::gemm: A's scalar type must be tcnum::half_t, bfloat16_t, tfloat32_t, float_e4m3_t or "
                "float_e5m2_t");
  static_assert(detail::is_tcnum_scalar_v<TB>,
                "tcnum::eigen::gemm: B's scalar type must be tcnum::half_t, bfloat16_t, tfloat32_t, float_e4m3_t or "
                "float_e5m2_t");
  static_assert(detail::is_tcnum_scalar_v<TC>,
                "tcnum::eigen::gemm: C's scalar type must be float (f32 accumulators) or tcnum::half_t (f16)");
  static_assert(detail::is_tcnum_scalar_v<Out>,
                "tcnum::eigen::gemm: D's scalar type must be float (f32 accumulators) or tcnum::half_t (f16)");
  detail::check_format<TA>(in, "A", in.a_type);
  detail::check_format<TB>(in, "B", in.b_type);
  detail::check_format<TC>(in, "C", in.c_type);
  detail::check_format<Out>(in, "D", in.d_type);
  if (A.cols() != B.rows() || C.rows() != A.rows() || C.cols() != B.cols())
    throw std::invalid_argument("tcnum::eigen::gemm: shapes do not agree: A is " + std::to_string(A.rows()) + "×" +
                                std::to_string(A.cols()) + ", B " + std::to_string(B.rows()) + "×" +
                                std::to_string(B.cols()) + ", C " + std::to_string(C.rows()) + "×" +
                                std::to_string(C.cols()) + " (need A M×K, B K×N, C M×N)");
  const int m = static_cast<int>(A.rows()), n = static_cast<int>(B.cols()), k = static_cast<int>(A.cols());
  const std::vector<std::uint32_t> d =
      tcnum::gemm(model, in, m, n, k, detail::row_major_bits(A), detail::row_major_bits(B),
                  detail::row_major_bits(C), opt);
  Matrix<Out> D(m, n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) D(i, j) = detail::from_bits<Out>(d[static_cast<std::size_t>(i) * n + j]);
  return D;
}

// One instruction: A, B and C must have exactly the instruction's shape (in.m×in.k, in.k×in.n,
// in.m×in.n). Same as gemm() with K = in.k, i.e. a single mma_element per output element.
template <class TD = void, class DA, class DB, class DC>
auto mma(const Model& model, const Instruction& in, const Eigen::MatrixBase<DA>& A, const Eigen::MatrixBase<DB>& B,
         const Eigen::MatrixBase<DC>& C) {
  if (A.rows() != in.m || A.cols() != in.k || B.rows() != in.k || B.cols() != in.n || C.rows() != in.m ||
      C.cols() != in.n)
    throw std::invalid_argument("tcnum::eigen::mma: " + in.name + " takes A " + std::to_string(in.m) + "×" +
                                std::to_string(in.k) + ", B " + std::to_string(in.k) + "×" + std::to_string(in.n) +
                                ", C " + std::to_string(in.m) + "×" + std::to_string(in.n) + "; given A " +
                                std::to_string(A.rows()) + "×" + std::to_string(A.cols()) + ", B " +
                                std::to_string(B.rows()) + "×" + std::to_string(B.cols()) + ", C " +
                                std::to_string(C.rows()) + "×" + std::to_string(C.cols()));
  return gemm<TD>(model, in, A, B, C);
}

// float -> a tcnum value type, round to nearest even (fp8: satfinite, as CUDA's conversions).
template <class T, class Derived>
Matrix<T> from_float(const Eigen::MatrixBase<Derived>& x) {
  static_assert(detail::is_tcnum_scalar_v<T> && !std::is_same_v<T, float>,
                "tcnum::eigen::from_float<T>: T must be one of tcnum's value types (half_t, bfloat16_t, ...)");
  Matrix<T> out(x.rows(), x.cols());
  for (Eigen::Index j = 0; j < x.cols(); ++j)
    for (Eigen::Index i = 0; i < x.rows(); ++i) out(i, j) = T(static_cast<double>(x(i, j)));
  return out;
}

// A tcnum value type -> float, exactly (every format here fits in f32; NaN stays NaN).
template <class Derived>
Eigen::MatrixXf to_float(const Eigen::MatrixBase<Derived>& x) {
  using T = typename Derived::Scalar;
  static_assert(detail::is_tcnum_scalar_v<T>, "tcnum::eigen::to_float: not a tcnum value type");
  Eigen::MatrixXf out(x.rows(), x.cols());
  for (Eigen::Index j = 0; j < x.cols(); ++j)
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      if constexpr (std::is_same_v<T, float>)
        out(i, j) = x(i, j);
      else
        out(i, j) = static_cast<float>(x(i, j));
    }
  return out;
}

}  // namespace tcnum::eigen
