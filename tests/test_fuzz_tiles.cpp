// Whole-tile cases, as fuzz campaigns run them: generate_tiles draws valid, reproducible tiles
// that keep each distribution's intent in every element, and mma_tiles computes every element
// exactly as the reference datapath does for its row of A, column of B and C.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tcnum/core/format.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "fuzz_separation.hpp"

using namespace tcnum;

namespace {

struct Tiles {
  std::size_t count = 0;
  std::vector<std::uint32_t> a, b, c;
};

Tiles draw(const Instruction& in, const DatapathParams& p, const std::string& dist, std::uint64_t seed, std::size_t n) {
  const std::size_t M = in.m, N = in.n, K = in.k;
  Tiles x{n, std::vector<std::uint32_t>(n * M * K), std::vector<std::uint32_t>(n * N * K),
          std::vector<std::uint32_t>(n * M * N)};
  fuzz::generate_tiles(in, p, dist, seed, n, x.a.data(), x.b.data(), x.c.data());
  return x;
}

// M×N, K, formats: mma.sync (N = 8: half a lane group), wgmma with N not a multiple of 16, f16
// D, tf32, fp8 K = 32, and the widest tile.
const char* kInstructions[] = {"mma.m16n8k16.f32.bf16.bf16.f32", "mma.m16n8k16.f16.f16.f16.f16",
                               "mma.m16n8k8.f32.tf32.tf32.f32",  "mma.m16n8k32.f32.e4m3.e5m2.f32",
                               "wgmma.m64n24k16.f16.f16.f16",     "wgmma.m64n8k32.f16.e5m2.e4m3",
                               "wgmma.m64n256k8.f32.tf32.tf32"};

// Every element through the reference datapath, from its own row, column and C.
std::vector<std::uint32_t> reference_tiles(const DatapathParams& p, const Instruction& in, const Tiles& x) {
  const std::size_t M = in.m, N = in.n, K = in.k;
  const MmaPlan plan = compile_plan(p, in);
  std::vector<std::uint32_t> d(x.count * M * N);
  for (std::size_t t = 0; t < x.count; ++t)
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j)
        d[(t * M + i) * N + j] = mma_element(plan, {x.a.data() + (t * M + i) * K, K}, {x.b.data() + (t * N + j) * K, K},
                                             x.c[(t * M + i) * N + j], Datapath::reference);
  return d;
}

}  // namespace

TEST(FuzzTiles, SameSeedSameTilesAndValidPatterns) {
  for (const char* name : kInstructions) {
    const Instruction in = find_instruction(name, 90);
    const DatapathParams& p = builtin_model(90).params_for(in);
    for (const auto& dist : fuzz::distribution_names()) {
      const Tiles x = draw(in, p, dist, 11, 3), y = draw(in, p, dist, 11, 3), z = draw(in, p, dist, 12, 3);
      EXPECT_EQ(x.a, y.a) << name << " " << dist;
      EXPECT_EQ(x.b, y.b) << name << " " << dist;
      EXPECT_EQ(x.c, y.c) << name << " " << dist;
      EXPECT_NE(x.c, z.c) << name << " " << dist;
      std::size_t specials = 0;
      auto check = [&](Format f, const std::vector<std::uint32_t>& v) {
        for (std::uint32_t bits : v) {
          ASSERT_EQ(bits & ~storage_mask(f), 0u) << name << " " << dist;
          const Decoded d = decode(f, bits);
          specials += d.is_nan() || d.is_inf();
        }
      };
      check(in.a_type, x.a);
      check(in.b_type, x.b);
      check(in.c_type, x.c);
      if (dist == "special")
        EXPECT_GT(specials, 0u) << name;
      else
        EXPECT_EQ(specials, 0u) << name << " " << dist;
    }
  }
}

// The law of mma_tiles: element (i, j) of a tile is the datapath of row i, column j and C(i, j).
// Checked for the built-in model and for neighbours that change rounding, bits and zero signs,
// on every distribution (specials and subnormals send lanes to the reference inside mma_tiles).
TEST(FuzzTiles, MmaTilesEqualsTheReferenceElementByElement) {
  for (const char* name : kInstructions) {
    const Instruction in = find_instruction(name, 90);
    const DatapathParams base = builtin_model(90).params_for(in);
    DatapathParams fewer_bits = base, signed_zero = base;
    fewer_bits.frac_bits -= 1;
    signed_zero.negative_zero_results = !base.negative_zero_results;
    for (const DatapathParams& p : {base, fewer_bits, signed_zero}) {
      const MmaPlan plan = compile_plan(p, in);
      for (const auto& dist : fuzz::distribution_names()) {
        const std::size_t tiles = in.n >= 128 ? 1 : 3;
        const Tiles x = draw(in, base, dist, 5, tiles);
        std::vector<std::uint32_t> d(x.c.size(), 0xdeadbeefu);
        mma_tiles(plan, tiles, x.a.data(), x.b.data(), x.c.data(), d.data());
        const auto want = reference_tiles(p, in, x);
        for (std::size_t e = 0; e < d.size(); ++e)
          ASSERT_EQ(d[e], want[e]) << name << " " << dist << " F=" << p.frac_bits << " element " << e;
      }
    }
  }
}

// Every element of a cancel tile cancels: C(i, j) is about -(row i · column j).
TEST(FuzzTiles, CancelTilesCancelInEveryElement) {
  const Instruction in = find_instruction("wgmma.m64n16k16.f32.f16.f16", 90);
  const Tiles x = draw(in, builtin_model(90).params_for(in), "cancel", 9, 4);
  std::size_t small = 0;
  const std::size_t M = in.m, N = in.n, K = in.k;
  for (std::size_t t = 0; t < x.count; ++t)
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        const double c = to_double(in.c_type, x.c[(t * M + i) * N + j]);
        double sum = c, scale = std::fabs(c);
        for (std::size_t k = 0; k < K; ++k) {
          const double prod =
              to_double(in.a_type, x.a[(t * M + i) * K + k]) * to_double(in.b_type, x.b[(t * N + j) * K + k]);
          sum += prod;
          scale = std::max(scale, std::fabs(prod));
        }
        small += std::fabs(sum) <= scale * 0x1p-8;
      }
  EXPECT_GT(small, x.c.size() * 9 / 10);
}

// As with single cases: boundary tiles tell a model from its neighbours (one kept bit fewer,
// signed zero results) far more often than random bits do.
TEST(FuzzTiles, BoundaryTilesSeparateNeighbouringModels) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90);
  const DatapathParams p = builtin_model(90).params_for(in);
  test::expect_boundary_separates_neighbours(in, [&](const MmaPlan& plan, const std::string& dist) {
    const std::size_t tiles = 200;
    const Tiles x = draw(in, p, dist, 21, tiles);
    std::vector<std::uint32_t> d(x.c.size());
    mma_tiles(plan, tiles, x.a.data(), x.b.data(), x.c.data(), d.data());
    return d;
  });
}

// A wide boundary tile is not always one case in 16,384 variants: in some tiles every row of A
// is a case of its own (not a signed power-of-two multiple of another row).
TEST(FuzzTiles, BoundaryTilesOftenHoldACasePerRow) {
  const Instruction in = find_instruction("wgmma.m64n256k16.f32.bf16.bf16", 90);
  const std::size_t tiles = 40, M = in.m, K = in.k;
  const Tiles x = draw(in, builtin_model(90).params_for(in), "boundary", 8, tiles);
  std::size_t varied = 0;
  for (std::size_t t = 0; t < tiles; ++t) {
    std::vector<std::vector<double>> shapes;  // each row divided by its first nonzero element
    for (std::size_t i = 0; i < M; ++i) {
      std::vector<double> row(K);
      double first = 0;
      for (std::size_t k = 0; k < K; ++k) {
        row[k] = to_double(in.a_type, x.a[(t * M + i) * K + k]);
        if (first == 0) first = row[k];
      }
      for (double& v : row) v = first == 0 ? v : v / first;
      if (std::find(shapes.begin(), shapes.end(), row) == shapes.end()) shapes.push_back(row);
    }
    varied += shapes.size() > M / 2;
  }
  EXPECT_GE(varied, tiles / 5);
  EXPECT_LT(varied, tiles);  // the other tiles spread one case of any kind (overflow, zeros, ...)
}
