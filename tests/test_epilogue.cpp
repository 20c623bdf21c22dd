// The epilogue (tcnum/core/epilogue.hpp): each step against values worked out by hand in
// binary32 and in the output formats, and gemm_with_epilogue tied to the plain GEMM.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "tcnum/core/epilogue.hpp"
#include "tcnum/core/model.hpp"

#include "random_values.hpp"

namespace tcnum {
namespace {

std::uint32_t f32(float x) { return std::bit_cast<std::uint32_t>(x); }

TEST(EpilogueElement, FusedIsOneRoundingUnfusedTwo) {
  // alpha·acc = (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: the 2^-24 is half an fp32 ULP at 1, a tie
  // that RNE drops (1 + 2^-11 is even). Adding bias = -1 then exposes it.
  Epilogue ep;
  ep.alpha = 1.0f + 0x1p-12f;
  ep.bias_kind = BiasKind::per_row;
  EXPECT_EQ(epilogue_element(ep, 1.0f + 0x1p-12f, 0.0f, -1.0f, Format::fp32), f32(0x1p-11f + 0x1p-24f));
  ep.fused = false;
  EXPECT_EQ(epilogue_element(ep, 1.0f + 0x1p-12f, 0.0f, -1.0f, Format::fp32), f32(0x1p-11f));
}

TEST(EpilogueElement, BetaTimesCIsAddedLastAndFused) {
  // x = alpha·acc = 3; beta·C = -(3 + 2^-22)(1 + 2^-23) = -(3 + 5·2^-23 + 2^-45) exactly.
  // Fused: 3 + beta·C rounds once to -5·2^-23; unfused: beta·C rounds first to -(3 + 3·2^-22).
  Epilogue ep;
  ep.alpha = 1.0f;
  ep.beta = 1.0f + 0x1p-23f;
  const float c = -(3.0f + 0x1p-22f);
  const double exact = 3.0 + static_cast<double>(ep.beta) * static_cast<double>(c);  // exact in double
  EXPECT_EQ(epilogue_element(ep, 3.0f, c, 0.0f, Format::fp32), f32(static_cast<float>(exact)));
  EXPECT_EQ(static_cast<float>(exact), -5 * 0x1p-23f);
  ep.fused = false;
  const float product = ep.beta * c;  // one rounding
  EXPECT_EQ(epilogue_element(ep, 3.0f, c, 0.0f, Format::fp32), f32(product + 3.0f));
  EXPECT_EQ(product + 3.0f, -3 * 0x1p-22f);
  EXPECT_NE(static_cast<float>(exact), product + 3.0f) << "the case must tell fused from unfused";
}

TEST(EpilogueElement, BetaZeroDoesNotReadC) {
  Epilogue ep;
  ep.alpha = 2.0f;
  EXPECT_EQ(epilogue_element(ep, 1.5f, std::numeric_limits<float>::quiet_NaN(), 0.0f, Format::fp32), f32(3.0f));
}

TEST(EpilogueElement, ConversionToOutputFormat) {
  Epilogue ep;
  // bf16 has 7 fraction bits: 1 + 2^-8 is a tie (-> 1, even), 1 + 3·2^-8 a tie (-> 1 + 2^-6, even).
  EXPECT_EQ(epilogue_element(ep, 1.0f + 0x1p-8f, 0, 0, Format::bf16), 0x3f80u);
  EXPECT_EQ(epilogue_element(ep, 1.0f + 3 * 0x1p-8f, 0, 0, Format::bf16), 0x3f82u);
  EXPECT_EQ(epilogue_element(ep, 1.0f + 0x1p-8f + 0x1p-20f, 0, 0, Format::bf16), 0x3f81u);  // above the tie
  // f16: 10 fraction bits.
  EXPECT_EQ(epilogue_element(ep, 1.0f + 0x1p-11f, 0, 0, Format::fp16), 0x3c00u);
  EXPECT_EQ(epilogue_element(ep, 1.0f + 3 * 0x1p-11f, 0, 0, Format::fp16), 0x3c02u);
  ep.rounding = Rounding::toward_zero;
  EXPECT_EQ(epilogue_element(ep, 1.0f + 3 * 0x1p-8f, 0, 0, Format::bf16), 0x3f81u);
  // fp8 e4m3: max 448 = 0x7e; satfinite clamps, without it the overflow is the NaN 0x7f.
  ep = Epilogue{};
  EXPECT_EQ(epilogue_element(ep, 1000.0f, 0, 0, Format::e4m3), 0x7eu);
  EXPECT_EQ(epilogue_element(ep, -1000.0f, 0, 0, Format::e4m3), 0xfeu);
  ep.satfinite = false;
  EXPECT_EQ(epilogue_element(ep, 1000.0f, 0, 0, Format::e4m3), 0x7fu);
  EXPECT_EQ(epilogue_element(ep, 1e6f, 0, 0, Format::e5m2), 0x7cu);  // e5m2 has Inf
  // A NaN accumulator: the canonical NaN of the output format.
  EXPECT_EQ(epilogue_element(Epilogue{}, std::numeric_limits<float>::quiet_NaN(), 0, 0, Format::bf16), 0x7fffu);
  EXPECT_EQ(epilogue_element(Epilogue{}, -std::numeric_limits<float>::quiet_NaN(), 0, 0, Format::fp32), 0x7fffffffu);
}

TEST(EpilogueElement, Relu) {
  Epilogue ep;
  ep.relu = true;
  EXPECT_EQ(epilogue_element(ep, -3.0f, 0, 0, Format::fp32), 0u);
  EXPECT_EQ(epilogue_element(ep, -0.0f, 0, 0, Format::fp32), 0u);
  EXPECT_EQ(epilogue_element(ep, 2.5f, 0, 0, Format::fp32), f32(2.5f));
  EXPECT_EQ(epilogue_element(ep, std::numeric_limits<float>::quiet_NaN(), 0, 0, Format::fp32), 0x7fffffffu);
  // ReLU comes after bias and beta·C: -1 + 2 = 1 survives.
  ep.beta = 1.0f;
  EXPECT_EQ(epilogue_element(ep, -1.0f, 2.0f, 0, Format::fp32), f32(1.0f));
}

TEST(GemmWithEpilogue, IdentityEpilogueIsThePlainGemm) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  const int m = 16, n = 16, k = 48;
  const auto a = test::random_normal<bfloat16_t>(std::size_t(m) * k, 11);
  const auto b = test::random_normal<bfloat16_t>(std::size_t(k) * n, 12);
  std::vector<float> plain(std::size_t(m) * n), with(std::size_t(m) * n);
  gemm(builtin_model(80), in, row_major(a, m, k), row_major(b, k, n), row_major(plain, m, n));
  gemm_with_epilogue(builtin_model(80), in, row_major(a, m, k), row_major(b, k, n), row_major(with, m, n), Epilogue{});
  for (std::size_t i = 0; i < plain.size(); ++i) ASSERT_EQ(f32(with[i]), f32(plain[i])) << i;
}

TEST(GemmWithEpilogue, BiasScalingAndBf16Output) {
  // Small integers: every step is exact, so D = 2·(A·B) + bias_j + 0.5·C by hand.
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  const int m = 4, n = 3, k = 5;
  std::vector<bfloat16_t> a(std::size_t(m) * k), b(std::size_t(k) * n);
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk) a[std::size_t(i) * k + kk] = bfloat16_t(double(i - kk));
  for (int kk = 0; kk < k; ++kk)
    for (int j = 0; j < n; ++j) b[std::size_t(kk) * n + j] = bfloat16_t(double(kk + j % 2));
  std::vector<half_t> c(std::size_t(m) * n);  // the source may be any format
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = half_t(double(i) * 2);
  const std::vector<float> bias = {10.0f, 20.0f, 30.0f};
  std::vector<bfloat16_t> d(std::size_t(m) * n);
  Epilogue ep;
  ep.alpha = 2.0f, ep.beta = 0.5f, ep.bias_kind = BiasKind::per_column, ep.bias = bias;
  gemm_with_epilogue(builtin_model(80), in, row_major(a, m, k), row_major(b, k, n), row_major(c, m, n),
                     row_major(d, m, n), ep);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int kk = 0; kk < k; ++kk) acc += double(i - kk) * double(kk + j % 2);
      const double want = 2 * acc + bias[std::size_t(j)] + 0.5 * double(i * n + j) * 2;
      EXPECT_EQ(d[std::size_t(i) * n + j], bfloat16_t(want)) << i << "," << j;
    }
  // Wrong bias length, beta without C.
  ep.bias_kind = BiasKind::per_row;  // needs M = 4 values
  EXPECT_THROW(gemm_with_epilogue(builtin_model(80), in, row_major(a, m, k), row_major(b, k, n), row_major(c, m, n),
                                  row_major(d, m, n), ep),
               std::invalid_argument);
  ep.bias_kind = BiasKind::none, ep.bias = {};
  EXPECT_THROW(gemm_with_epilogue(builtin_model(80), in, row_major(a, m, k), row_major(b, k, n), row_major(d, m, n), ep),
               std::invalid_argument);
}

}  // namespace
}  // namespace tcnum
