// tcnum/interop/cuda.hpp: the casts keep every bit pattern (both ways), agree with CUDA's own
// conversions, and views over arrays of CUDA types feed the GEMM like views of tcnum's types.
// Built with the host compiler where the CUDA headers are found; tests/cuda/ builds the same
// file with nvcc where a CUDA compiler is found.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "tcnum/core/gemm_views.hpp"
#include "tcnum/interop/cuda.hpp"

namespace tcnum {
namespace {

TEST(CudaInterop, EverySixteenBitPatternRoundTrips) {
  for (std::uint32_t bits = 0; bits < (1u << 16); ++bits) {
    __half_raw hr;
    hr.x = static_cast<unsigned short>(bits);
    ASSERT_EQ(to_tcnum(__half(hr)).raw(), bits);
    ASSERT_EQ(static_cast<__half_raw>(to_cuda(half_t::bitcast(bits))).x, bits);
    __nv_bfloat16_raw br;
    br.x = static_cast<unsigned short>(bits);
    ASSERT_EQ(to_tcnum(__nv_bfloat16(br)).raw(), bits);
    ASSERT_EQ(static_cast<__nv_bfloat16_raw>(to_cuda(bfloat16_t::bitcast(bits))).x, bits);
  }
}

TEST(CudaInterop, EveryFp8PatternRoundTrips) {
  for (std::uint32_t bits = 0; bits < 256; ++bits) {
    __nv_fp8_e4m3 e4;
    e4.__x = static_cast<__nv_fp8_storage_t>(bits);
    __nv_fp8_e5m2 e5;
    e5.__x = static_cast<__nv_fp8_storage_t>(bits);
    ASSERT_EQ(to_tcnum(e4).raw(), bits);
    ASSERT_EQ(to_tcnum(e5).raw(), bits);
    ASSERT_EQ(to_cuda(float_e4m3_t::bitcast(bits)).__x, bits);
    ASSERT_EQ(to_cuda(float_e5m2_t::bitcast(bits)).__x, bits);
  }
}

TEST(CudaInterop, AgreesWithCudaConversions) {
  EXPECT_EQ(to_tcnum(__float2bfloat16(1.5f)), bfloat16_t(1.5));
  EXPECT_EQ(to_tcnum(__float2half(-0.1f)), half_t(static_cast<double>(-0.1f)));
  EXPECT_EQ(to_tcnum(__nv_fp8_e4m3(1000.0f)), float_e4m3_t(1000.0));  // satfinite: 448
  EXPECT_EQ(to_tcnum(__nv_fp8_e5m2(0.3f)), float_e5m2_t(static_cast<double>(0.3f)));
  EXPECT_EQ(__bfloat162float(to_cuda(bfloat16_t(-2.25))), -2.25f);
}

TEST(CudaInterop, ViewsOverCudaArraysFeedTheGemm) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  const int m = 16, n = 8, k = 32;
  std::mt19937_64 rng(5);
  std::normal_distribution<float> normal;
  std::vector<__nv_bfloat16> a(std::size_t(m) * k), b(std::size_t(k) * n);
  std::vector<bfloat16_t> a_t(a.size()), b_t(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = __float2bfloat16(normal(rng)), a_t[i] = to_tcnum(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = __float2bfloat16(normal(rng)), b_t[i] = to_tcnum(b[i]);
  std::vector<float> d(std::size_t(m) * n), d_t(d.size());
  gemm(builtin_model(80), in, row_major(a, m, k), col_major(b, k, n), row_major(d, m, n));
  gemm(builtin_model(80), in, row_major(a_t, m, k), col_major(b_t, k, n), row_major(d_t, m, n));
  for (std::size_t i = 0; i < d.size(); ++i) ASSERT_EQ(std::bit_cast<std::uint32_t>(d[i]), std::bit_cast<std::uint32_t>(d_t[i]));
  // A bf16 D written into __nv_bfloat16 storage is an error without an epilogue (D is f32).
  std::vector<__nv_bfloat16> d_bf16(d.size());
  EXPECT_THROW(gemm(builtin_model(80), in, row_major(a, m, k), col_major(b, k, n), row_major(d_bf16, m, n)),
               std::invalid_argument);
}

}  // namespace
}  // namespace tcnum
