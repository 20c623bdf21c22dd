// tcnum/interop/cutlass.hpp against CUTLASS's headers (built only where CMake finds them):
// casts keep every bit pattern both ways and agree with CUTLASS's conversions; views over
// CUTLASS arrays feed the GEMM.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "tcnum/core/gemm_views.hpp"
#include "tcnum/interop/cutlass.hpp"

namespace tcnum {
namespace {

TEST(CutlassInterop, EveryPatternRoundTrips) {
  for (std::uint32_t bits = 0; bits < (1u << 16); ++bits) {
    const auto b16 = static_cast<std::uint16_t>(bits);
    ASSERT_EQ(to_tcnum(cutlass::half_t::bitcast(b16)).raw(), bits);
    ASSERT_EQ(to_tcnum(cutlass::bfloat16_t::bitcast(b16)).raw(), bits);
    ASSERT_EQ(to_cutlass(half_t::bitcast(bits)).raw(), bits);
    ASSERT_EQ(to_cutlass(bfloat16_t::bitcast(bits)).raw(), bits);
    const std::uint32_t tf32 = bits << 13;
    ASSERT_EQ(to_tcnum(cutlass::tfloat32_t::bitcast(tf32)).raw(), tf32);
    ASSERT_EQ(to_cutlass(tfloat32_t::bitcast(tf32)).raw(), tf32);
  }
  for (std::uint32_t bits = 0; bits < 256; ++bits) {
    const auto b8 = static_cast<std::uint8_t>(bits);
    ASSERT_EQ(to_tcnum(cutlass::float_e4m3_t::bitcast(b8)).raw(), bits);
    ASSERT_EQ(to_tcnum(cutlass::float_e5m2_t::bitcast(b8)).raw(), bits);
    ASSERT_EQ(to_cutlass(float_e4m3_t::bitcast(bits)).raw(), bits);
    ASSERT_EQ(to_cutlass(float_e5m2_t::bitcast(bits)).raw(), bits);
  }
}

TEST(CutlassInterop, AgreesWithCutlassConversions) {
  EXPECT_EQ(to_tcnum(cutlass::bfloat16_t(1.5f)), bfloat16_t(1.5));
  EXPECT_EQ(to_tcnum(cutlass::half_t(-0.1f)), half_t(static_cast<double>(-0.1f)));
  EXPECT_EQ(to_tcnum(cutlass::float_e4m3_t(3.25f)), float_e4m3_t(3.25));
  EXPECT_EQ(float(to_cutlass(bfloat16_t(-2.25))), -2.25f);
}

TEST(CutlassInterop, ViewsOverCutlassArraysFeedTheGemm) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  const int m = 16, n = 8, k = 16;
  std::vector<cutlass::bfloat16_t> a(std::size_t(m) * k), b(std::size_t(k) * n);
  std::vector<bfloat16_t> a_t(a.size()), b_t(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = cutlass::bfloat16_t(float(i % 7) - 3.0f), a_t[i] = to_tcnum(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = cutlass::bfloat16_t(float(i % 5) * 0.25f), b_t[i] = to_tcnum(b[i]);
  std::vector<float> d(std::size_t(m) * n), d_t(d.size());
  gemm(builtin_model(80), in, row_major(a, m, k), row_major(b, k, n), row_major(d, m, n));
  gemm(builtin_model(80), in, row_major(a_t, m, k), row_major(b_t, k, n), row_major(d_t, m, n));
  for (std::size_t i = 0; i < d.size(); ++i) ASSERT_EQ(std::bit_cast<std::uint32_t>(d[i]), std::bit_cast<std::uint32_t>(d_t[i]));
}

}  // namespace
}  // namespace tcnum
