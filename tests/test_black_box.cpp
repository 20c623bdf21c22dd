// The one black-box interface (tcnum/core/black_box.hpp): the emulator box answers as
// mma_element does, and a GEMM composed over a box's cases (one case per element and k-step)
// equals the box's own fast GEMM (tcnum::gemm), k-steps and f16 accumulators included.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tcnum/core/black_box.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/gemm.hpp"

namespace {

using namespace tcnum;

std::vector<std::uint32_t> normal_bits(Format f, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = encode(f, normal(rng), Rounding::nearest_even, f == Format::e4m3 || f == Format::e5m2);
  return v;
}

TEST(BlackBox, EmulatorBoxIsMmaElement) {
  const Model& model = builtin_model(90);
  for (const char* name : {"mma.m16n8k16.f32.bf16.bf16.f32", "wgmma.m64n8k32.f16.e4m3.e5m2", "mma.m16n8k8.f32.tf32.tf32.f32"}) {
    const Instruction in = find_instruction(name, 90);
    std::vector<Case> cs(3000);  // more than one chunk of the box's batches
    for (std::size_t t = 0; t < cs.size(); ++t) {
      cs[t].a = normal_bits(in.a_type, in.k, 2 * t);
      cs[t].b = normal_bits(in.b_type, in.k, 2 * t + 1);
      cs[t].c = normal_bits(in.c_type, 1, t + 99)[0];
    }
    const std::vector<std::uint32_t> d = emulator_box(model).cases(in, cs);
    ASSERT_EQ(d.size(), cs.size());
    for (std::size_t t = 0; t < cs.size(); ++t)
      ASSERT_EQ(d[t], mma_element(model, in, cs[t].a, cs[t].b, cs[t].c)) << name << " case " << t;
    EXPECT_EQ(evaluate(emulator_box(model), in, cs[5]), d[5]);
  }
}

TEST(BlackBox, GemmOverCasesEqualsTheBoxsOwnGemm) {
  const Model& model = builtin_model(90);
  for (const char* name : {"mma.m16n8k16.f32.bf16.bf16.f32", "mma.m16n8k16.f16.f16.f16.f16", "mma.m16n8k32.f32.e5m2.e4m3.f32"}) {
    const Instruction in = find_instruction(name, 90);
    const int batch = 3, m = 5, n = 11, k = 3 * in.k;  // partial tiles, three k-steps
    const auto a = normal_bits(in.a_type, std::size_t(batch) * m * k, 1);
    const auto b = normal_bits(in.b_type, std::size_t(batch) * k * n, 2);
    const BlackBox fast = emulator_box(model);
    BlackBox cases_only = fast;
    cases_only.gemm = nullptr;
    const auto d = batched_gemm(fast, in, batch, m, n, k, a, b);
    EXPECT_EQ(batched_gemm(cases_only, in, batch, m, n, k, a, b), d) << name;
    // and each product is tcnum::gemm's
    for (int t = 0; t < batch; ++t) {
      const std::vector<std::uint32_t> at(a.begin() + t * m * k, a.begin() + (t + 1) * m * k);
      const std::vector<std::uint32_t> bt(b.begin() + t * k * n, b.begin() + (t + 1) * k * n);
      const std::vector<std::uint32_t> c(std::size_t(m) * n, zero_bits(in.c_type, false));
      const auto dt = gemm(model, in, m, n, k, at, bt, c);
      EXPECT_TRUE(std::equal(dt.begin(), dt.end(), d.begin() + t * m * n)) << name << " product " << t;
    }
  }
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90);
  EXPECT_THROW(batched_gemm(emulator_box(model), in, 1, 2, 2, 12, std::vector<std::uint32_t>(24), std::vector<std::uint32_t>(24)),
               std::invalid_argument);  // K not a multiple of 16
}

}  // namespace
