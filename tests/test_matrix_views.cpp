// Matrix views and the GEMM on views (tcnum/core/matrix_view.hpp, gemm_views.hpp): every
// layout, leading dimension and element type gives what the raw-bits tcnum::gemm gives on the
// same matrices written out by hand here; bad views, formats and conversions are errors.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcnum/core/gemm_views.hpp"
#include "tcnum/core/model.hpp"

#include "random_values.hpp"

namespace tcnum {
namespace {

using Bits = std::vector<std::uint32_t>;

const Instruction& bf16_mma() {
  static const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  return in;
}

std::vector<bfloat16_t> random_bf16(std::size_t count, std::uint64_t seed) {
  return test::random_normal<bfloat16_t>(count, seed);
}

TEST(MatrixView, DefaultLeadingDimensionIsPacked) {
  std::vector<float> v(12);
  EXPECT_EQ(row_major(v, 3, 4).ld, 4);
  EXPECT_EQ(col_major(v, 3, 4).ld, 3);
  auto r = row_major(v, 3, 4);
  r(1, 2) = 7.0f;
  EXPECT_EQ(v[1 * 4 + 2], 7.0f);
  auto c = col_major(v, 3, 4);
  c(1, 2) = 8.0f;
  EXPECT_EQ(v[2 * 3 + 1], 8.0f);
}

TEST(MatrixView, TransposedSeesTheSameMemory) {
  std::vector<float> v(6);
  auto a = row_major(v, 2, 3);
  a(1, 2) = 5.0f;
  auto t = a.transposed();
  EXPECT_EQ(t.rows, 3);
  EXPECT_EQ(t.cols, 2);
  EXPECT_EQ(t.layout, Layout::col_major);
  EXPECT_EQ(t(2, 1), 5.0f);
}

TEST(MatrixView, BadViewsAreErrors) {
  std::vector<float> v(12);
  EXPECT_THROW(row_major(v, 3, 4, 3), std::invalid_argument);   // ld < cols
  EXPECT_THROW(col_major(v, 3, 4, 2), std::invalid_argument);   // ld < rows
  EXPECT_THROW(row_major(v, -1, 4), std::invalid_argument);
  EXPECT_THROW(row_major(v, 4, 4), std::invalid_argument);      // beyond the vector
  EXPECT_THROW(row_major(v, 3, 4, 5), std::invalid_argument);   // 2·5 + 4 > 12
  EXPECT_NO_THROW(row_major(v, 2, 4, 8));                       // 1·8 + 4 = 12
  EXPECT_THROW(row_major(static_cast<float*>(nullptr), 2, 2), std::invalid_argument);
  std::vector<std::uint16_t> raw(4);
  EXPECT_THROW(row_major(Format::fp32, raw, 2, 2), std::invalid_argument);  // 32-bit format in 16 bits
  EXPECT_NO_THROW(row_major(Format::bf16, raw, 2, 2));
  try {
    row_major(v, 3, 4, 3);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("at least 4"), std::string::npos) << e.what();
  }
}

// The raw-bits oracle on row-major copies written out here element by element.
Bits raw_gemm(const Instruction& in, int m, int n, int k, const std::vector<bfloat16_t>& a_rm,
              const std::vector<bfloat16_t>& b_rm, const Bits& c_rm, const GemmOptions& opt = {}) {
  Bits a(a_rm.size()), b(b_rm.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = a_rm[i].raw();
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = b_rm[i].raw();
  return gemm(builtin_model(80), in, m, n, k, a, b, c_rm, opt);
}

TEST(GemmViews, EveryLayoutAndLeadingDimensionGivesTheRawResult) {
  const int m = 20, n = 12, k = 40;  // ragged against 16×8×16
  const std::vector<bfloat16_t> a_rm = random_bf16(std::size_t(m) * k, 1), b_rm = random_bf16(std::size_t(k) * n, 2);
  Bits c_rm(std::size_t(m) * n);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  for (auto& x : c_rm) x = encode(Format::fp32, normal(rng));
  const Bits want = raw_gemm(bf16_mma(), m, n, k, a_rm, b_rm, c_rm);

  for (Layout la : {Layout::row_major, Layout::col_major})
    for (Layout lb : {Layout::row_major, Layout::col_major})
      for (int pad : {0, 3}) {
        SCOPED_TRACE("A " + std::string(la == Layout::row_major ? "row" : "col") + ", B " +
                     (lb == Layout::row_major ? "row" : "col") + ", pad " + std::to_string(pad));
        // Copies of A, B, C in the layout under test with `pad` extra elements per line.
        const int lda = (la == Layout::row_major ? k : m) + pad, ldb = (lb == Layout::row_major ? n : k) + pad;
        const int ldc = m + pad;  // C column-major, D row-major with its own padding
        std::vector<bfloat16_t> a(std::size_t(lda) * (la == Layout::row_major ? m : k));
        std::vector<bfloat16_t> b(std::size_t(ldb) * (lb == Layout::row_major ? k : n));
        std::vector<float> c(std::size_t(ldc) * n), d(std::size_t(n + pad) * m, -1.0f);
        for (int i = 0; i < m; ++i)
          for (int kk = 0; kk < k; ++kk)
            a[la == Layout::row_major ? std::size_t(i) * lda + kk : std::size_t(kk) * lda + i] = a_rm[std::size_t(i) * k + kk];
        for (int kk = 0; kk < k; ++kk)
          for (int j = 0; j < n; ++j)
            b[lb == Layout::row_major ? std::size_t(kk) * ldb + j : std::size_t(j) * ldb + kk] = b_rm[std::size_t(kk) * n + j];
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) c[std::size_t(j) * ldc + i] = std::bit_cast<float>(c_rm[std::size_t(i) * n + j]);

        const auto A = la == Layout::row_major ? row_major(a, m, k, lda) : col_major(a, m, k, lda);
        const auto B = lb == Layout::row_major ? row_major(b, k, n, ldb) : col_major(b, k, n, ldb);
        gemm(builtin_model(80), bf16_mma(), A, B, col_major(c, m, n, ldc), row_major(d, m, n, n + pad));
        for (int i = 0; i < m; ++i) {
          for (int j = 0; j < n; ++j)
            ASSERT_EQ(std::bit_cast<std::uint32_t>(d[std::size_t(i) * (n + pad) + j]), want[std::size_t(i) * n + j])
                << "(" << i << ", " << j << ")";
          for (int j = n; j < n + pad; ++j) EXPECT_EQ(d[std::size_t(i) * (n + pad) + j], -1.0f) << "padding written";
        }
      }
}

TEST(GemmViews, RawBitsViewsAndZeroC) {
  const int m = 16, n = 8, k = 32;
  const std::vector<bfloat16_t> a_rm = random_bf16(std::size_t(m) * k, 4), b_rm = random_bf16(std::size_t(k) * n, 5);
  const Bits want = raw_gemm(bf16_mma(), m, n, k, a_rm, b_rm, Bits(std::size_t(m) * n, 0));
  std::vector<std::uint16_t> a(a_rm.size()), b(b_rm.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint16_t>(a_rm[i].raw());
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint16_t>(b_rm[i].raw());
  std::vector<std::uint32_t> d(std::size_t(m) * n);
  gemm(builtin_model(80), bf16_mma(), row_major(Format::bf16, a, m, k), row_major(Format::bf16, b, k, n),
       row_major(Format::fp32, d, m, n));
  EXPECT_EQ(d, want);
}

// col_major(Format, vector, ...) as row_major(Format, vector, ...): raw bits stored column by
// column (B as cuBLAS's "N" operand, D column-major), from a vector whose extent is checked.
TEST(GemmViews, RawBitsColumnMajorVectors) {
  const int m = 16, n = 8, k = 32;
  const std::vector<bfloat16_t> a_rm = random_bf16(std::size_t(m) * k, 14), b_rm = random_bf16(std::size_t(k) * n, 15);
  const Bits want = raw_gemm(bf16_mma(), m, n, k, a_rm, b_rm, Bits(std::size_t(m) * n, 0));
  std::vector<std::uint16_t> a(a_rm.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint16_t>(a_rm[i].raw());
  std::vector<std::uint16_t> b_cm(b_rm.size());  // element (r, c) of B at c·k + r
  for (int r = 0; r < k; ++r)
    for (int c = 0; c < n; ++c) b_cm[std::size_t(c) * k + r] = static_cast<std::uint16_t>(b_rm[std::size_t(r) * n + c].raw());
  const std::vector<std::uint16_t>& b_const = b_cm;
  std::vector<std::uint32_t> d_cm(std::size_t(m) * n, 0xFFFFFFFFu);  // element (i, j) of D at j·m + i
  const MatrixView<const std::uint16_t> bv = col_major(Format::bf16, b_const, k, n);
  EXPECT_EQ(bv.layout, Layout::col_major);
  EXPECT_EQ(bv.ld, k);
  EXPECT_EQ(bv.format, Format::bf16);
  gemm(builtin_model(80), bf16_mma(), row_major(Format::bf16, a, m, k), bv, col_major(Format::fp32, d_cm, m, n));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      ASSERT_EQ(d_cm[std::size_t(j) * m + i], want[std::size_t(i) * n + j]) << "(" << i << ", " << j << ")";
  // The vector's extent and the format's width are checked, as for row_major.
  EXPECT_THROW(col_major(Format::bf16, b_cm, k + 1, n), std::invalid_argument);     // beyond the vector
  EXPECT_THROW(col_major(Format::bf16, b_const, k, n, k + 1), std::invalid_argument);  // 7·33 + 32 > 256
  EXPECT_THROW(col_major(Format::fp32, b_cm, k, n), std::invalid_argument);          // 32-bit format in 16 bits
  EXPECT_NO_THROW(col_major(Format::bf16, b_cm, k / 2, n, k));                       // 7·32 + 16 <= 256
}

TEST(GemmViews, DInPlaceOverC) {
  const int m = 16, n = 8, k = 16;
  const std::vector<bfloat16_t> a = random_bf16(std::size_t(m) * k, 6), b = random_bf16(std::size_t(k) * n, 7);
  std::vector<float> cd(std::size_t(m) * n, 0.5f);
  const Bits want = raw_gemm(bf16_mma(), m, n, k, a, b, Bits(cd.size(), encode(Format::fp32, 0.5)));
  gemm(builtin_model(80), bf16_mma(), row_major(a, m, k), row_major(b, k, n), row_major(cd, m, n), row_major(cd, m, n));
  for (std::size_t i = 0; i < cd.size(); ++i) ASSERT_EQ(std::bit_cast<std::uint32_t>(cd[i]), want[i]) << i;
}

TEST(GemmViews, FloatOperandsExactlyRepresentableAreAccepted) {
  const int m = 16, n = 8, k = 16;
  const std::vector<bfloat16_t> a = random_bf16(std::size_t(m) * k, 8), b = random_bf16(std::size_t(k) * n, 9);
  std::vector<float> af(a.size()), bf(b.size()), d(std::size_t(m) * n);
  for (std::size_t i = 0; i < a.size(); ++i) af[i] = static_cast<float>(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) bf[i] = static_cast<float>(b[i]);
  gemm(builtin_model(80), bf16_mma(), row_major(af, m, k), row_major(bf, k, n), row_major(d, m, n));
  const Bits want = raw_gemm(bf16_mma(), m, n, k, a, b, Bits(d.size(), 0));
  for (std::size_t i = 0; i < d.size(); ++i) ASSERT_EQ(std::bit_cast<std::uint32_t>(d[i]), want[i]) << i;
}

TEST(GemmViews, InexactFloatIsAnErrorNamingTheElementUnlessAllowed) {
  const int m = 16, n = 8, k = 16;
  std::vector<float> a(std::size_t(m) * k, 1.0f), b(std::size_t(k) * n, 1.0f), d(std::size_t(m) * n);
  const float inexact = 1.0f + 0x1p-8f + 0x1p-10f;  // between bf16 1 and 1 + 2^-7, nearer 1 + 2^-7
  a[std::size_t(3) * k + 5] = inexact;
  try {
    gemm(builtin_model(80), bf16_mma(), row_major(a, m, k), row_major(b, k, n), row_major(d, m, n));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("A(3, 5)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos) << e.what();
  }
  // Allowed: RNE gives 1 + 2^-7; RZ gives 1. Row 3 then sums 15 ones and that value.
  gemm(builtin_model(80), bf16_mma(), row_major(a, m, k), row_major(b, k, n), row_major(d, m, n), {},
       Conversion{.allow_inexact = true});
  EXPECT_EQ(d[std::size_t(3) * n], 16.0f + 0x1p-7f);
  EXPECT_EQ(d[0], 16.0f);
  gemm(builtin_model(80), bf16_mma(), row_major(a, m, k), row_major(b, k, n), row_major(d, m, n), {},
       Conversion{.rounding = Rounding::toward_zero, .allow_inexact = true});
  EXPECT_EQ(d[std::size_t(3) * n], 16.0f);
}

TEST(GemmViews, FormatMismatchesAreErrors) {
  const int m = 16, n = 8, k = 16;
  std::vector<half_t> a(std::size_t(m) * k), b(std::size_t(k) * n);
  std::vector<bfloat16_t> d_bf16(std::size_t(m) * n);
  std::vector<float> d(std::size_t(m) * n);
  // f16 operands to a bf16 instruction.
  EXPECT_THROW(gemm(builtin_model(80), bf16_mma(), row_major(a, m, k), row_major(b, k, n), row_major(d, m, n)),
               std::invalid_argument);
  // An f32 D into bf16 storage without an epilogue.
  std::vector<bfloat16_t> ab(std::size_t(m) * k), bb(std::size_t(k) * n);
  EXPECT_THROW(gemm(builtin_model(80), bf16_mma(), row_major(ab, m, k), row_major(bb, k, n), row_major(d_bf16, m, n)),
               std::invalid_argument);
  // Shapes.
  EXPECT_THROW(gemm(builtin_model(80), bf16_mma(), row_major(ab, m, k), row_major(bb, n, k), row_major(d, m, n)),
               std::invalid_argument);
}

TEST(GemmViews, F16AccumulatorIntoFloatViewIsExact) {
  const Instruction in = find_instruction("mma.m16n8k16.f16.f16.f16.f16", 80);
  const int m = 16, n = 8, k = 16;
  std::vector<half_t> a(std::size_t(m) * k, half_t(0.0)), b(std::size_t(k) * n, half_t(0.0));
  a[0] = half_t(1.0), b[0] = half_t(0x1p-14 * 3);  // an f16 value that is not a round decimal
  std::vector<float> d(std::size_t(m) * n);
  std::vector<half_t> dh(std::size_t(m) * n);
  gemm(builtin_model(80), in, row_major(a, m, k), row_major(b, k, n), row_major(d, m, n));
  gemm(builtin_model(80), in, row_major(a, m, k), row_major(b, k, n), row_major(dh, m, n));
  EXPECT_EQ(d[0], 0x1p-14f * 3);
  EXPECT_EQ(dh[0], half_t(0x1p-14 * 3));
  EXPECT_EQ(d[1], 0.0f);
}

}  // namespace
}  // namespace tcnum
