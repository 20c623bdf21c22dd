// The sensitivity table of docs/kernel-testing.md: a 128×128×64 bf16 GEMM as a sm_90 kernel
// with wgmma.m64n128k16 computes it, against the same GEMM under plausible wrong choices of
// instruction, model, split-K, k-order, or a plain fmaf loop. Each wrong choice must change
// a substantial number of elements (here: at least 5% of them), which is why the kernel has
// to be matched (docs/kernel-testing.md records the counts printed here).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "tcnum/core/gemm_views.hpp"
#include "tcnum/core/kernel_match.hpp"
#include "tcnum/testing/compare.hpp"

namespace tcnum {
namespace {

constexpr int M = 128, N = 128, K = 64;

struct Operands {
  std::vector<bfloat16_t> a, b;  // A row-major M×K, B row-major K×N
};

// N(0,1) values rounded to bf16 (RNE), fixed seed.
Operands operands() {
  std::mt19937_64 rng(2024);
  std::normal_distribution<double> normal;
  Operands o{std::vector<bfloat16_t>(std::size_t(M) * K), std::vector<bfloat16_t>(std::size_t(K) * N)};
  for (auto& x : o.a) x = bfloat16_t(normal(rng));
  for (auto& x : o.b) x = bfloat16_t(normal(rng));
  return o;
}

std::vector<float> oracle(const Operands& o, const Model& model, const Instruction& in, const GemmOptions& opt = {}) {
  std::vector<float> d(std::size_t(M) * N);
  gemm(model, in, row_major(o.a, M, K), row_major(o.b, K, N), row_major(d, M, N), opt);
  return d;
}

// What a CUDA-core kernel computes: acc = fmaf(a_k, b_k, acc), k ascending, from +0.
std::vector<float> fmaf_loop(const Operands& o) {
  std::vector<float> d(std::size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k)
        acc = std::fmaf(static_cast<float>(o.a[std::size_t(i) * K + k]), static_cast<float>(o.b[std::size_t(k) * N + j]),
                        acc);
      d[std::size_t(i) * N + j] = acc;
    }
  return d;
}

TEST(KernelSensitivity, EveryWrongChoiceChangesManyElements) {
  const Operands o = operands();
  const KernelMatch right = match_kernel(90, Format::bf16, Format::bf16, Format::fp32, "HGMMA.64x128x16.F32.BF16");
  ASSERT_EQ(right.instruction.name, "wgmma.m64n128k16.f32.bf16.bf16");
  const std::vector<float> truth = oracle(o, right.model(), right.instruction, right.options);

  GemmOptions split2;
  split2.split_k = 2;
  GemmOptions descending;
  descending.k_order = {3, 2, 1, 0};
  const Instruction mma_k8 = find_instruction("mma.m16n8k8.f32.bf16.bf16.f32", 90);
  const Instruction mma_k16 = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 80);
  const struct {
    const char* name;
    std::vector<float> d;
  } variants[] = {
      {"mma.m16n8k8 (sm_90 model)", oracle(o, builtin_model(90), mma_k8)},
      {"sm_80 model (mma.m16n8k16)", oracle(o, builtin_model(80), mma_k16)},
      {"split_k = 2", oracle(o, right.model(), right.instruction, split2)},
      {"descending k-steps", oracle(o, right.model(), right.instruction, descending)},
      {"naive fmaf loop", fmaf_loop(o)},
  };
  const std::size_t substantial = std::size_t(M) * N / 20;
  for (const auto& v : variants) {
    const CompareReport r = compare(row_major(truth, M, N), row_major(v.d, M, N));
    std::printf("| %-28s | %6zu | %4llu |\n", v.name, r.differing, static_cast<unsigned long long>(r.max_ulps));
    EXPECT_GE(r.differing, substantial) << v.name << "\n" << r.to_string();
  }
}

}  // namespace
}  // namespace tcnum
