// README's first C++ example: on that element the sm_90 oracle, an fmaf loop and the correctly
// rounded sum give three different results. The values are derived by hand (README and below),
// so the README's printed output is checked here.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tcnum/core/gemm_views.hpp"
#include "tcnum/reference/mpfr_reference.hpp"

namespace tcnum {
namespace {

TEST(ReadmeFirstLook, OracleFmafAndExactDiffer) {
  std::vector<bfloat16_t> a(16, bfloat16_t(0.0)), b(16, bfloat16_t(0.0));
  for (int k = 0; k < 4; ++k) a[k] = bfloat16_t(0x3p-13), b[k] = bfloat16_t(0x1p-13);
  std::vector<float> c = {1.0f}, d(1);
  gemm(builtin_model(90), find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90), row_major(a, 1, 16),
       row_major(b, 16, 1), row_major(c, 1, 1), row_major(d, 1, 1));
  // Aligned to C's exponent with 25 fraction bits, each 3·2^-26 is cut to 2^-25: 1 + 4·2^-25.
  EXPECT_EQ(d[0], 1.0f + 0x1p-23f);

  float fmaf_loop = 1.0f;  // 1 + 3·2^-26 is below half an ULP of 1: every step gives 1
  std::vector<std::uint32_t> a_bits, b_bits;
  for (int k = 0; k < 16; ++k) {
    fmaf_loop = std::fmaf(float(a[k]), float(b[k]), fmaf_loop);
    a_bits.push_back(a[k].raw()), b_bits.push_back(b[k].raw());
  }
  EXPECT_EQ(fmaf_loop, 1.0f);
  // Exact: 1 + 12·2^-26 = 1 + 1.5 ULP, a tie that goes to the even 1 + 2 ULP.
  const std::uint32_t exact = exact_dot_rounded(Format::bf16, Format::bf16, Format::fp32, a_bits, b_bits,
                                                std::bit_cast<std::uint32_t>(1.0f), Format::fp32, Rounding::nearest_even);
  EXPECT_EQ(std::bit_cast<float>(exact), 1.0f + 0x1p-22f);
}

}  // namespace
}  // namespace tcnum
