// A kernel's unit test with tcnum as the oracle (no GPU needed to build or run it).
//
// The kernel under test: a bf16 GEMM D = A·B (fp32 accumulators, C = 0) on sm_90 whose SASS
// (cuobjdump -sass) shows HGMMA.64x128x16.F32.BF16, A row-major M×K, B column-major K×N.
// run_my_kernel() stands in for it: it returns the oracle's result with one bit flipped in
// element (17, 42), so the test FAILS ON PURPOSE and prints tcnum's report. Replace it with
// your kernel launch (copy D back to the host) and the test passes when the kernel is right.
#include <tcnum/tcnum.hpp>
#include <tcnum/testing/gtest.hpp>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

namespace {

constexpr int M = 128, N = 128, K = 64;

std::vector<float> run_my_kernel(const std::vector<tcnum::bfloat16_t>& a, const std::vector<tcnum::bfloat16_t>& b) {
  std::vector<float> d(M * N);
  tcnum::gemm(tcnum::builtin_model(90), tcnum::find_instruction("wgmma.m64n128k16.f32.bf16.bf16", 90),
              tcnum::row_major(a, M, K), tcnum::col_major(b, K, N), tcnum::row_major(d, M, N));
  d[17 * N + 42] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(d[17 * N + 42]) ^ 1u);  // the planted bug
  return d;
}

TEST(MyKernel, MatchesTheTensorCoreOracle) {
  // Data set-up: bf16 inputs, B column-major as the kernel stores it.
  std::vector<tcnum::bfloat16_t> a(M * K), b(K * N);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  for (auto& x : a) x = tcnum::bfloat16_t(normal(rng));
  for (auto& x : b) x = tcnum::bfloat16_t(normal(rng));
  const std::vector<float> kernel_d = run_my_kernel(a, b);

  // The test: the instruction from the kernel's SASS, the oracle, the comparison.
  using tcnum::Format;
  const tcnum::KernelMatch km = tcnum::match_kernel(90, Format::bf16, Format::bf16, Format::fp32,
                                                    "HGMMA.64x128x16.F32.BF16");
  std::vector<float> oracle_d(M * N);
  tcnum::gemm(km, tcnum::row_major(a, M, K), tcnum::col_major(b, K, N), tcnum::row_major(oracle_d, M, N));
  EXPECT_TCNUM_EQ(tcnum::row_major(kernel_d, M, N), tcnum::row_major(oracle_d, M, N));
}

}  // namespace
