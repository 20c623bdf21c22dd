// The fuzz generators: reproducible, valid patterns, the intended shapes, and a boundary
// distribution that separates neighbouring models far more often than uniform sampling does.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tcnum/core/format.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "fuzz_separation.hpp"

using namespace tcnum;

namespace {

struct Batch {
  std::vector<std::uint32_t> a, b, c;
};

Batch draw(const Instruction& in, const DatapathParams& p, const std::string& dist, std::uint64_t seed, std::size_t n) {
  Batch x{std::vector<std::uint32_t>(n * in.k), std::vector<std::uint32_t>(n * in.k), std::vector<std::uint32_t>(n)};
  fuzz::generate(in, p, dist, seed, n, x.a.data(), x.b.data(), x.c.data());
  return x;
}

const char* kInstructions[] = {"mma.m16n8k16.f32.f16.f16.f32",   "mma.m16n8k16.f16.f16.f16.f16",
                               "mma.m16n8k16.f32.bf16.bf16.f32", "mma.m16n8k8.f32.tf32.tf32.f32",
                               "mma.m16n8k32.f32.e4m3.e5m2.f32", "wgmma.m64n8k32.f16.e5m2.e4m3"};

bool special(Format f, std::uint32_t bits) {
  const Decoded d = decode(f, bits);
  return d.is_nan() || d.is_inf();
}

}  // namespace

TEST(FuzzGenerators, SameSeedSameCasesOtherSeedOtherCases) {
  for (const char* name : kInstructions) {
    const Instruction in = find_instruction(name, 90);
    const DatapathParams& p = builtin_model(90).params_for(in);
    for (const auto& dist : fuzz::distribution_names()) {
      const Batch x = draw(in, p, dist, 11, 300), y = draw(in, p, dist, 11, 300), z = draw(in, p, dist, 12, 300);
      EXPECT_EQ(x.a, y.a) << name << " " << dist;
      EXPECT_EQ(x.c, y.c) << name << " " << dist;
      EXPECT_NE(x.a, z.a) << name << " " << dist;
    }
  }
}

TEST(FuzzGenerators, PatternsAreValidAndSpecialsOnlyWhereAsked) {
  for (const char* name : kInstructions) {
    const Instruction in = find_instruction(name, 90);
    const DatapathParams& p = builtin_model(90).params_for(in);
    for (const auto& dist : fuzz::distribution_names()) {
      const Batch x = draw(in, p, dist, 5, 2000);
      std::size_t specials = 0;
      for (std::size_t i = 0; i < x.a.size(); ++i) {
        ASSERT_EQ(x.a[i] & ~storage_mask(in.a_type), 0u) << name << " " << dist;
        ASSERT_EQ(x.b[i] & ~storage_mask(in.b_type), 0u) << name << " " << dist;
        if (in.a_type == Format::tf32 && dist != "randbits") {
          ASSERT_EQ(x.a[i] & 0x1fffu, 0u) << dist;
        }
        specials += special(in.a_type, x.a[i]) + special(in.b_type, x.b[i]);
      }
      for (std::uint32_t c : x.c) {
        ASSERT_EQ(c & ~storage_mask(in.c_type), 0u) << name << " " << dist;
        specials += special(in.c_type, c);
      }
      if (dist == "special")
        EXPECT_GT(specials, 0u) << name;
      else
        EXPECT_EQ(specials, 0u) << name << " " << dist;
    }
  }
}

TEST(FuzzGenerators, NormalHasUnitVarianceAndZeroMean) {
  const Instruction in = find_instruction("mma.m16n8k8.f32.tf32.tf32.f32", 90);
  const Batch x = draw(in, builtin_model(90).params_for(in), "normal", 3, 20000);
  double sum = 0, sq = 0;
  for (std::uint32_t c : x.c) {
    const double v = to_double(Format::fp32, c);
    sum += v;
    sq += v * v;
  }
  const double n = static_cast<double>(x.c.size()), mean = sum / n;
  EXPECT_LT(std::fabs(mean), 0.03);
  EXPECT_NEAR(sq / n - mean * mean, 1.0, 0.05);
}

TEST(FuzzGenerators, CancelledSumsAreSmall) {  // C ≈ -(sum of products): the result is far below the terms
  const Instruction in = find_instruction("mma.m16n8k16.f32.f16.f16.f32", 90);
  const Batch x = draw(in, builtin_model(90).params_for(in), "cancel", 9, 2000);
  std::size_t small = 0;
  for (std::size_t t = 0; t < x.c.size(); ++t) {
    double sum = to_double(in.c_type, x.c[t]), scale = std::fabs(to_double(in.c_type, x.c[t]));
    for (int k = 0; k < in.k; ++k) {
      const double prod = to_double(in.a_type, x.a[t * in.k + k]) * to_double(in.b_type, x.b[t * in.k + k]);
      sum += prod;
      scale = std::max(scale, std::fabs(prod));
    }
    small += std::fabs(sum) <= scale * 0x1p-8;
  }
  EXPECT_GT(small, x.c.size() * 9 / 10);
}

// Neighbouring models (one kept bit fewer; signed zero results): boundary cases tell them apart
// far more often than uniformly random bits do, which is why campaigns include them.
TEST(FuzzGenerators, BoundaryCasesSeparateNeighbouringModels) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90);
  const DatapathParams p = builtin_model(90).params_for(in);
  test::expect_boundary_separates_neighbours(in, [&](const MmaPlan& plan, const std::string& dist) {
    const std::size_t n = 20000;
    const Batch x = draw(in, p, dist, 21, n);
    std::vector<std::uint32_t> d(n);
    mma_batch(plan, n, x.a.data(), x.b.data(), x.c.data(), d.data());
    return d;
  });
}

TEST(FuzzGenerators, UnknownDistributionListsTheValidOnes) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.f16.f16.f32", 90);
  std::uint32_t a[16], b[16], c[1];
  try {
    fuzz::generate(in, builtin_model(90).params_for(in), "gauss", 1, 1, a, b, c);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("boundary"), std::string::npos) << e.what();
  }
}

TEST(FuzzGenerators, BatchSeedsDependOnEveryPart) {
  const auto s = fuzz::batch_seed(1, "mma.m16n8k16.f32.f16.f16.f32", "normal", 0);
  EXPECT_NE(s, fuzz::batch_seed(2, "mma.m16n8k16.f32.f16.f16.f32", "normal", 0));
  EXPECT_NE(s, fuzz::batch_seed(1, "mma.m16n8k8.f32.f16.f16.f32", "normal", 0));
  EXPECT_NE(s, fuzz::batch_seed(1, "mma.m16n8k16.f32.f16.f16.f32", "cancel", 0));
  EXPECT_NE(s, fuzz::batch_seed(1, "mma.m16n8k16.f32.f16.f16.f32", "normal", 1));
}
