// GEMM schedules (tcnum/core/schedule.hpp): resolution, JSON, and the laws that tie a schedule
// to what it generalises — each side computed independently:
//   * a one-slice ascending schedule is today's gemm; GemmOptions{k_order, split_k} is its schedule;
//   * a sequential slice reduction is gemm per slice (on the sub-matrices) plus fp32 additions;
//   * a reduction tree is the same partials added in the tree's order;
//   * promotion every n k-steps is one slice per n k-steps;
//   * the partial k-tile first is gemm on operands with zeros inserted after the partial tile;
//   * K padded (k_padded) is gemm on operands padded with zeros;
//   * a region of D is the sub-GEMM of its rows and columns under the region's schedule;
//   * C after the reduction is gemm from +0 plus one fp32 addition of C;
//   * tf32 operands rounded to nearest even are gemm on operands rounded by encode();
//   * tile_k_order is gemm on operands whose k are permuted by hand within each tile;
//   * the fast engine equals the reference datapath under random schedules.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <random>

#include "tcnum/core/format.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/schedule.hpp"

// The compiler's own IEEE f16 (round-to-nearest-even conversions), independent of tcnum's encoder:
// aarch64's __fp16 there (GCC 12 has no _Float16 in C++ on aarch64), _Float16 elsewhere.
#ifdef __aarch64__
using host_f16 = __fp16;
#else
using host_f16 = _Float16;
#endif

namespace tcnum {
namespace {

struct Operands {
  int m, n, k;
  std::vector<std::uint32_t> a, b, c;
};

// Finite values N(0,1)·2^U(-spread, spread) rounded into each operand's format.
Operands random_operands(const Instruction& in, int m, int n, int k, std::uint32_t seed, int spread = 4) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> exponent(-spread, spread);
  auto draw = [&](Format f, std::size_t count) {
    std::vector<std::uint32_t> v(count);
    for (auto& x : v) {
      const bool fp8 = f == Format::e4m3 || f == Format::e5m2;
      x = encode(f, std::ldexp(normal(rng), exponent(rng)), Rounding::nearest_even, fp8);
    }
    return v;
  };
  const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
  return {m, n, k, draw(in.a_type, M * K), draw(in.b_type, K * N), draw(in.c_type, M * N)};
}

std::vector<std::uint32_t> run(const Instruction& in, const Operands& x, const GemmOptions& opt = {}) {
  return gemm(builtin_model(90), in, x.m, x.n, x.k, x.a, x.b, x.c, opt);
}

GemmOptions with(const Schedule& s) {
  GemmOptions opt;
  opt.schedule = s;
  return opt;
}

// Columns [k0, k1) of A and rows [k0, k1) of B: the operands of one slice.
Operands k_range(const Operands& x, int k0, int k1, bool keep_c) {
  Operands s{x.m, x.n, k1 - k0, {}, {}, keep_c ? x.c : std::vector<std::uint32_t>(x.c.size(), 0)};
  for (int i = 0; i < x.m; ++i)
    for (int k = k0; k < k1; ++k) s.a.push_back(x.a[static_cast<std::size_t>(i * x.k + k)]);
  for (int k = k0; k < k1; ++k)
    for (int j = 0; j < x.n; ++j) s.b.push_back(x.b[static_cast<std::size_t>(k * x.n + j)]);
  return s;
}

float f32(std::uint32_t bits) { return std::bit_cast<float>(bits); }

const Instruction& bf16_mma() {
  static const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90);
  return in;
}

TEST(Schedule, OneAscendingSliceIsTodaysGemm) {
  const Instruction& in = bf16_mma();
  const Operands x = random_operands(in, 7, 19, 77, 1);
  Schedule s;
  s.slice_bounds = {0, 77};
  s.tile_k = in.k;
  EXPECT_EQ(run(in, x, with(s)), run(in, x));
  EXPECT_EQ(run(in, x, with(Schedule{})), run(in, x));
  GemmOptions legacy;
  legacy.split_k = 3;
  legacy.k_order = {4, 3, 2, 1, 0};
  EXPECT_EQ(run(in, x, with(schedule_from_options(legacy))), run(in, x, legacy));
}

TEST(Schedule, SequentialSlicesArePerSliceGemmsPlusFp32Additions) {
  const Instruction& in = bf16_mma();
  const Operands x = random_operands(in, 5, 9, 100, 2, 12);
  Schedule s;
  s.slice_bounds = {0, 37, 64, 65, 100};  // unaligned: every slice zero-pads its own last step
  const auto d = run(in, x, with(s));
  std::vector<std::vector<std::uint32_t>> parts;
  for (std::size_t i = 0; i + 1 < s.slice_bounds.size(); ++i)
    parts.push_back(run(in, k_range(x, s.slice_bounds[i], s.slice_bounds[i + 1], i == 0)));
  for (std::size_t e = 0; e < d.size(); ++e) {
    float sum = f32(parts[0][e]);
    for (std::size_t p = 1; p < parts.size(); ++p) sum += f32(parts[p][e]);
    ASSERT_EQ(d[e], std::bit_cast<std::uint32_t>(sum)) << "element " << e;
  }
}

// cuBLASLt's algo 63 (sm80_xmma split-K): k-tiles dealt round robin over the slices; each slice
// is gemm on its tiles' columns, the partials added in slice order.
TEST(Schedule, InterleavedTilesAreRoundRobinSlices) {
  const Instruction& in = bf16_mma();
  const int k = 300, tile = 64, split = 3;  // tiles [0,64) [64,128) [128,192) [192,256) [256,300)
  const Operands x = random_operands(in, 4, 8, k, 11, 12);
  Schedule s;
  s.split_k = split;
  s.slice_rule = SliceRule::interleaved_tiles;
  s.tile_k = tile;
  const auto d = run(in, x, with(s));
  auto columns = [&](std::vector<int> ks, bool keep_c) {
    Operands g{x.m, x.n, static_cast<int>(ks.size()), {}, {}, keep_c ? x.c : std::vector<std::uint32_t>(x.c.size(), 0)};
    for (int i = 0; i < x.m; ++i)
      for (const int kk : ks) g.a.push_back(x.a[static_cast<std::size_t>(i * x.k + kk)]);
    for (const int kk : ks)
      for (int j = 0; j < x.n; ++j) g.b.push_back(x.b[static_cast<std::size_t>(kk * x.n + j)]);
    return run(in, g);
  };
  std::vector<std::vector<std::uint32_t>> p;
  for (int sl = 0; sl < split; ++sl) {
    std::vector<int> ks;
    for (int t = sl; t * tile < k; t += split)
      for (int kk = t * tile; kk < std::min(k, (t + 1) * tile); ++kk) ks.push_back(kk);
    p.push_back(columns(ks, sl == 0));
  }
  for (std::size_t e = 0; e < d.size(); ++e)
    ASSERT_EQ(d[e], std::bit_cast<std::uint32_t>((f32(p[0][e]) + f32(p[1][e])) + f32(p[2][e]))) << "element " << e;
  EXPECT_EQ(resolve_schedule(s, in, 100).slices.size(), 2u) << "2 tiles: 2 slices, never an empty one";
}

TEST(Schedule, ReductionTreeAddsInItsOrder) {
  const Instruction& in = bf16_mma();
  const Operands x = random_operands(in, 4, 8, 128, 3, 12);
  Schedule s;
  s.split_k = 4;
  s.reduction_tree = {0, 1, -1, 2, 3, -1, -1};  // (p0 + p1) + (p2 + p3), XLA's at 512³
  const auto d = run(in, x, with(s));
  std::vector<std::vector<std::uint32_t>> p;
  for (int i = 0; i < 4; ++i) p.push_back(run(in, k_range(x, 32 * i, 32 * (i + 1), i == 0)));
  for (std::size_t e = 0; e < d.size(); ++e) {
    const float want = (f32(p[0][e]) + f32(p[1][e])) + (f32(p[2][e]) + f32(p[3][e]));
    ASSERT_EQ(d[e], std::bit_cast<std::uint32_t>(want)) << "element " << e;
  }
}

// cuBLAS's serial split-K with an f16 output: every slice's partial is written as f16 and the
// next slice adds its fp32 accumulator to it, rounding to f16 again (the compiler's f16 arithmetic here).
TEST(Schedule, PartialsAndReductionInANarrowFormat) {
  const Instruction& in = bf16_mma();
  const Operands x = random_operands(in, 4, 8, 96, 10, 6);
  Schedule s;
  s.slice_bounds = {0, 40, 72, 96};
  s.partial_format = ReductionFormat::fp16;
  s.reduction_format = ReductionFormat::fp16;
  auto d = run(in, x, with(s));
  std::vector<std::vector<std::uint32_t>> p;
  for (std::size_t i = 0; i + 1 < s.slice_bounds.size(); ++i)
    p.push_back(run(in, k_range(x, s.slice_bounds[i], s.slice_bounds[i + 1], i == 0)));
  for (std::size_t e = 0; e < d.size(); ++e) {
    auto h = [&](std::size_t slice) { return static_cast<host_f16>(f32(p[slice][e])); };
    const auto sum = static_cast<host_f16>(static_cast<float>(static_cast<host_f16>(static_cast<float>(h(0)) + static_cast<float>(h(1)))) +
                                           static_cast<float>(h(2)));
    ASSERT_EQ(d[e], std::bit_cast<std::uint32_t>(static_cast<float>(sum))) << "element " << e;
  }
  // Serial: only what is written is f16; every slice's own partial enters in fp32.
  s.partial_format = ReductionFormat::fp32;
  s.serial = true;
  d = run(in, x, with(s));
  for (std::size_t e = 0; e < d.size(); ++e) {
    const auto d0 = static_cast<host_f16>(f32(p[0][e]));
    const auto d1 = static_cast<host_f16>(static_cast<float>(d0) + f32(p[1][e]));
    const auto d2 = static_cast<host_f16>(static_cast<float>(d1) + f32(p[2][e]));
    ASSERT_EQ(d[e], std::bit_cast<std::uint32_t>(static_cast<float>(d2))) << "serial, element " << e;
  }
}

TEST(Schedule, PromotionIsOneSlicePerInterval) {
  const Instruction in = find_instruction("wgmma.m64n8k32.f32.e4m3.e4m3", 90);
  const Operands x = random_operands(in, 6, 8, 32 * 13, 4, 3);
  for (const int every : {1, 4}) {
    Schedule promoted;
    promoted.promotion = every;
    Schedule sliced;
    for (int k = 0; k < x.k; k += 32 * every) sliced.slice_bounds.push_back(k);
    sliced.slice_bounds.push_back(x.k);
    EXPECT_EQ(run(in, x, with(promoted)), run(in, x, with(sliced))) << "promotion " << every;
  }
  // Nested: CTA split-K over promoted slices equals the flat slices only when reduced likewise.
  Schedule nested;
  nested.split_k = 2;
  nested.promotion = 4;
  EXPECT_NE(run(in, x, with(nested)), run(in, x)) << "promotion changes the result on wide data";
}

TEST(Schedule, PartialTileFirstIsZerosInsertedAfterIt) {
  const Instruction in = find_instruction("mma.m16n8k8.f32.bf16.bf16.f32", 90);
  const int k = 75, tile = 32, r = k % tile;  // CUTLASS 2.x: [0, 11) first, then [11, 43), [43, 75)
  const Operands x = random_operands(in, 3, 10, k, 5, 12);
  Schedule s;
  s.tile_k = tile;
  s.partial = PartialTile::first;
  // The same products with the partial tile padded to whole instruction steps at its end.
  const int padded_r = (r + in.k - 1) / in.k * in.k, kp = padded_r + (k - r);
  Operands z{x.m, x.n, kp, {}, {}, x.c};
  for (int i = 0; i < x.m; ++i)
    for (int kk = 0; kk < kp; ++kk) {
      const int src = kk < r ? kk : kk < padded_r ? -1 : kk - padded_r + r;
      z.a.push_back(src < 0 ? 0u : x.a[static_cast<std::size_t>(i * k + src)]);
    }
  for (int kk = 0; kk < kp; ++kk)
    for (int j = 0; j < x.n; ++j) {
      const int src = kk < r ? kk : kk < padded_r ? -1 : kk - padded_r + r;
      z.b.push_back(src < 0 ? 0u : x.b[static_cast<std::size_t>(src * x.n + j)]);
    }
  EXPECT_EQ(run(in, x, with(s)), run(in, z));
  EXPECT_NE(run(in, x, with(s)), run(in, x)) << "the partial tile's place must be visible on wide data";
}

// XLA's split-K rewrite: K padded with zeros to S·k_per_split, the slices cut from the padded K.
TEST(Schedule, KPaddedIsGemmOnZeroPaddedOperands) {
  const Instruction in = find_instruction("mma.m16n8k8.f32.bf16.bf16.f32", 90);
  const int k = 90, kp = 96;  // 3 slices of 32; the last holds 26 real k and 6 zeros
  const Operands x = random_operands(in, 3, 10, k, 7, 12);
  Operands z{x.m, x.n, kp, {}, {}, x.c};
  for (int i = 0; i < x.m; ++i)
    for (int kk = 0; kk < kp; ++kk) z.a.push_back(kk < k ? x.a[static_cast<std::size_t>(i * k + kk)] : 0u);
  for (int kk = 0; kk < kp; ++kk)
    for (int j = 0; j < x.n; ++j) z.b.push_back(kk < k ? x.b[static_cast<std::size_t>(kk * x.n + j)] : 0u);
  Schedule padded;
  padded.tile_k = 24;  // partial tile first: 8 of each 32-slice, then one tile of 24
  padded.partial = PartialTile::first;
  padded.slice_bounds = {0, 32, 64, 96};
  Schedule plain = padded;
  padded.k_padded = kp;
  EXPECT_EQ(run(in, x, with(padded)), run(in, z, with(plain)));
  // Without the padding the last slice [64, 90) would start with a partial tile of 26 % 24 = 2.
  Schedule unpadded = plain;
  unpadded.slice_bounds = {0, 32, 64, 90};
  EXPECT_NE(run(in, x, with(padded)), run(in, x, with(unpadded))) << "the padding must be visible on wide data";
  padded.k_padded = k - 1;
  EXPECT_THROW(run(in, x, with(padded)), std::invalid_argument);
}

// Segment-K: some output tiles split. Inside a region D is the sub-GEMM of its rows and columns
// under its schedule, outside it the schedule's own; bad regions are refused.
TEST(Schedule, RegionsAreSubGemmsWithTheirOwnSchedule) {
  const Instruction& in = bf16_mma();
  const Operands x = random_operands(in, 9, 13, 96, 11, 12);
  Schedule split;
  split.slice_bounds = {0, 32, 64, 96};
  split.reduction_tree = {2, 1, -1, 0, -1};
  Schedule s;
  s.regions = {{2, 5, 3, 11, split}, {6, 9, 0, 2, split}};
  const auto got = run(in, x, with(s)), plain = run(in, x), sliced = run(in, x, with(split));
  const auto inside = [](int i, int j) { return (i >= 2 && i < 5 && j >= 3 && j < 11) || (i >= 6 && j < 2); };
  int differ = 0;
  for (int i = 0; i < x.m; ++i)
    for (int j = 0; j < x.n; ++j) {
      const auto e = static_cast<std::size_t>(i * x.n + j);
      EXPECT_EQ(got[e], inside(i, j) ? sliced[e] : plain[e]) << i << "," << j;
      differ += plain[e] != sliced[e];
    }
  EXPECT_GT(differ, 0) << "the two schedules must differ somewhere on wide data";
  for (const auto& bad : std::vector<std::vector<ScheduleRegion>>{
           {{0, 10, 0, 2, split}}, {{0, 3, 0, 3, split}, {2, 4, 2, 4, split}}, {{3, 3, 0, 1, split}}}) {
    s.regions = bad;
    EXPECT_THROW(run(in, x, with(s)), std::invalid_argument);
  }
  Schedule nested = split;
  nested.regions = {{0, 1, 0, 1, split}};
  s.regions = {{0, 1, 0, 1, nested}};
  EXPECT_THROW(run(in, x, with(s)), std::invalid_argument);
  s.regions = {{2, 5, 3, 11, split}};
  EXPECT_EQ(parse_schedule(schedule_to_json(s)), s);
  EXPECT_THROW(parse_schedule(R"({"regions": [{"rows": [0, 1], "cols": [0, 1]}]})"), std::invalid_argument);
  EXPECT_THROW(parse_schedule(R"({"regions": [{"rows": [1, 1], "cols": [0, 1], "schedule": {}}]})"), std::invalid_argument);
  EXPECT_THROW(parse_schedule(R"({"regions": [{"rows": [0, 1], "cols": [0, 1], "schedule": {"regions": []}}]})"),
               std::invalid_argument);
}

TEST(Schedule, CAfterReductionIsOneFp32Addition) {
  const Instruction& in = bf16_mma();
  const Operands x = random_operands(in, 5, 8, 64, 6, 12);
  Schedule s;
  s.c_entry = CEntry::after_reduction;
  const auto d = run(in, x, with(s));
  const auto zero_c = run(in, k_range(x, 0, x.k, false));
  for (std::size_t e = 0; e < d.size(); ++e)
    ASSERT_EQ(d[e], std::bit_cast<std::uint32_t>(f32(zero_c[e]) + f32(x.c[e]))) << "element " << e;
  // sum_format: the reduced sum is rounded (to f16 here) before C is added.
  s.sum_format = ReductionFormat::fp16;
  const auto d3 = run(in, x, with(s));
  for (std::size_t e = 0; e < d3.size(); ++e) {
    const float rounded = static_cast<float>(static_cast<host_f16>(f32(zero_c[e])));
    ASSERT_EQ(d3[e], std::bit_cast<std::uint32_t>(rounded + f32(x.c[e]))) << "element " << e;
  }
  s.sum_format = ReductionFormat::fp32;
  // first_partial: C joins slice 0's partial, before slice 1's is added.
  s.c_entry = CEntry::first_partial;
  s.slice_bounds = {0, 24, 64};
  const auto d2 = run(in, x, with(s));
  const auto p0 = run(in, k_range(x, 0, 24, false)), p1 = run(in, k_range(x, 24, 64, false));
  for (std::size_t e = 0; e < d2.size(); ++e)
    ASSERT_EQ(d2[e], std::bit_cast<std::uint32_t>((f32(p0[e]) + f32(x.c[e])) + f32(p1[e]))) << "element " << e;
}

TEST(Schedule, Tf32NearestEvenIsGemmOnRoundedOperands) {
  const Instruction in = find_instruction("mma.m16n8k8.f32.tf32.tf32.f32", 90);
  Operands x = random_operands(in, 4, 8, 40, 7);
  std::mt19937 rng(7);
  for (auto* v : {&x.a, &x.b})
    for (auto& bits : *v) bits |= rng() & 0x1fffu;  // f32 data: the low 13 bits matter to RNE
  Operands rounded = x;
  for (auto* v : {&rounded.a, &rounded.b})
    for (auto& bits : *v) bits = encode(Format::tf32, static_cast<double>(f32(bits)), Rounding::nearest_even);
  Schedule s;
  s.tf32_operands = Tf32Operands::nearest_even;
  EXPECT_EQ(run(in, x, with(s)), run(in, rounded));
  EXPECT_NE(run(in, x), run(in, rounded)) << "truncation and RNE must differ on such data";
}

TEST(Schedule, Tf32NearestAwayIsGemmOnRoundedOperands) {
  const Instruction in = find_instruction("mma.m16n8k8.f32.tf32.tf32.f32", 90);
  Operands x = random_operands(in, 4, 8, 40, 9);
  std::mt19937 rng(9);
  for (auto* v : {&x.a, &x.b})
    for (auto& bits : *v) bits = (bits & ~0x1fffu) | ((rng() & 1u) ? 0x1000u : (rng() & 0x1fffu));  // many exact ties
  Operands away = x, even = x;
  for (auto* v : {&away.a, &away.b})
    for (auto& bits : *v) {  // by hand: a tie (low 13 bits 0x1000) goes up in magnitude, else to nearest
      const std::uint32_t low = bits & 0x1fffu;
      bits = (bits & ~0x1fffu) + (low >= 0x1000u ? 0x2000u : 0u);
    }
  for (auto* v : {&even.a, &even.b})
    for (auto& bits : *v) bits = round_tf32(bits);
  Schedule s;
  s.tf32_operands = Tf32Operands::nearest_away;
  EXPECT_EQ(run(in, x, with(s)), run(in, away));
  EXPECT_NE(run(in, away), run(in, even)) << "ties away and ties to even must differ on such data";
}

TEST(Schedule, TileKOrderIsGemmOnOperandsPermutedWithinEachTile) {
  // Triton's MMAv2 fp8-upcast layout (kWidth 4): the pairs of a 32-wide tile dealt over its two
  // k16 instructions. By hand: slot t of tile j holds logical k 32j + order[t].
  const Instruction in = find_instruction("mma.m16n8k16.f32.f16.f16.f32", 90);
  const Operands x = random_operands(in, 5, 9, 96, 13, 12);
  std::vector<int> order;
  for (int half : {0, 2})
    for (int p = 0; p < 8; ++p) order.insert(order.end(), {4 * p + half, 4 * p + half + 1});
  Operands permuted = x;
  for (int t = 0; t < x.k; ++t) {
    const int from = t - t % 32 + order[static_cast<std::size_t>(t % 32)];
    for (int i = 0; i < x.m; ++i) permuted.a[static_cast<std::size_t>(i * x.k + t)] = x.a[static_cast<std::size_t>(i * x.k + from)];
    for (int j = 0; j < x.n; ++j) permuted.b[static_cast<std::size_t>(t * x.n + j)] = x.b[static_cast<std::size_t>(from * x.n + j)];
  }
  Schedule s, same;
  s.tile_k = same.tile_k = 32;
  s.tile_k_order = order;
  EXPECT_EQ(run(in, x, with(s)), run(in, permuted, with(same)));
  EXPECT_NE(run(in, x, with(s)), run(in, x, with(same))) << "the order must matter on wide data (alignment per k16 step)";
  for (int t = 0; t < 32; ++t) same.tile_k_order.push_back(t);  // the identity is no order at all
  Schedule plain;
  plain.tile_k = 32;
  EXPECT_EQ(run(in, x, with(same)), run(in, x, with(plain)));
}

TEST(Schedule, RoundTf32AwayDiffersFromEvenOnlyAtTies) {
  std::mt19937 rng(10);
  for (int i = 0; i < 200000; ++i) {
    const std::uint32_t bits = rng();
    if ((bits & 0x7f800000u) == 0x7f800000u) continue;
    const std::uint32_t away = round_tf32_away(bits), even = round_tf32(bits);
    if ((bits & 0x1fffu) == 0x1000u) {
      ASSERT_EQ(away, (bits & ~0x1fffu) + 0x2000u) << std::hex << bits;  // larger magnitude
    } else {
      ASSERT_EQ(away, even) << std::hex << bits;
    }
  }
}

TEST(Schedule, RoundTf32MatchesEncodeOnRandomPatterns) {
  std::mt19937 rng(8);
  for (int i = 0; i < 200000; ++i) {
    const std::uint32_t bits = rng();
    if (std::isnan(f32(bits))) continue;
    ASSERT_EQ(round_tf32(bits), encode(Format::tf32, static_cast<double>(f32(bits)), Rounding::nearest_even))
        << std::hex << bits;
  }
}

TEST(Schedule, WholeTileSlicesAreCublasSplitK) {
  const Instruction& in = bf16_mma();
  auto bounds = [&](int k, int split) {
    Schedule s;
    s.split_k = split;
    s.slice_rule = SliceRule::whole_tiles;
    s.tile_k = 64;
    std::vector<int> out{0};
    for (const auto& slice : resolve_schedule(s, in, k).slices) out.push_back(slice.back().begin + slice.back().length);
    return out;
  };
  EXPECT_EQ(bounds(8192, 6), (std::vector<int>{0, 1408, 2816, 4224, 5632, 7040, 8192}));  // 5 × 1408 + 1152
  const auto long_k = bounds(65536, 47);  // 46 × 1408 + 768
  ASSERT_EQ(long_k.size(), 48u);
  EXPECT_EQ(long_k[46], 46 * 1408);
  EXPECT_EQ(long_k[47], 65536);
  EXPECT_EQ(bounds(9 * 64, 4), (std::vector<int>{0, 192, 384, 576}));  // 3 slices: ceil(9/4) = 3 tiles each
  // CUTLASS 2.x: round_up(ceil(K / S), 8) of K per slice (128 bits of a 16-bit A), any tile_k.
  Schedule cutlass;
  cutlass.split_k = 5;
  cutlass.slice_rule = SliceRule::whole_tiles;
  cutlass.slice_align = 8;
  cutlass.tile_k = 32;
  const auto slices = resolve_schedule(cutlass, in, 6023).slices;
  ASSERT_EQ(slices.size(), 5u);
  EXPECT_EQ(slices[1].front().begin, 1208);
  EXPECT_EQ(slices[4].back().begin + slices[4].back().length, 6023);
}

TEST(Schedule, ResolveRejectsInconsistentSchedules) {
  const Instruction& in = bf16_mma();
  auto rejects = [&](Schedule s, int k, const std::string& says) {
    try {
      resolve_schedule(s, in, k);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  Schedule s;
  s.slice_bounds = {0, 50, 40, 100};
  rejects(s, 100, "increase strictly");
  s.slice_bounds = {0, 50, 99};
  rejects(s, 100, "end at K = 100");
  s = {};
  s.tile_k = 24;
  rejects(s, 100, "multiple of the instruction's k");
  s = {};
  s.split_k = 3;
  s.reduction_tree = {0, 1, -1};
  rejects(s, 100, "leaves out a slice");
  s.reduction_tree = {0, 1, 2, -1};
  rejects(s, 100, "leaves 2 values");
  s.reduction_tree = {0, -1, 1, 2, -1};
  rejects(s, 100, "fewer than two");
  s = {};
  s.split_k = 9;
  rejects(s, 100, "split_k = 9 must be in 1..steps");
  s = {};
  s.k_order = {0, 0, 1, 2, 3, 4, 5};
  rejects(s, 100, "appears twice");
  s = {};
  s.tile_k = 32;
  s.tile_k_order = {1, 0};
  rejects(s, 128, "expected one per k of a tile: tile_k = 32");
  s.tile_k_order.resize(32);
  std::iota(s.tile_k_order.begin(), s.tile_k_order.end(), 0);
  s.tile_k_order[5] = 4;
  rejects(s, 128, "4 appears twice");
  s.tile_k_order[5] = 32;
  rejects(s, 128, "not a k offset 0..31");
  s.tile_k_order[5] = 5;
  rejects(s, 100, "K to be a multiple of tile_k = 32");
  EXPECT_EQ(resolve_schedule(s, in, 128).slices.size(), 1u);
  // Block scales are indexed by whole k-steps: slices must begin on them.
  const Instruction scaled = find_instruction("tcgen05.mma.m128n16k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.ue8m0", 100);
  s = {};
  s.split_k = 2;
  s.slice_rule = SliceRule::whole_tiles;
  s.slice_align = 8;
  try {
    resolve_schedule(s, scaled, 128);
    ADD_FAILURE() << "accepted slices on 8 of K for a block-scaled instruction";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("whole k-steps"), std::string::npos) << e.what();
  }
  s.slice_align = 32;
  EXPECT_EQ(resolve_schedule(s, scaled, 128).slices.size(), 2u);
  GemmOptions both;
  both.schedule = Schedule{};
  both.split_k = 2;
  const Operands x = random_operands(in, 1, 1, 32, 9);
  EXPECT_THROW(run(in, x, both), std::invalid_argument);
}

TEST(ScheduleJson, RoundTripsAndRejectsHostileInput) {
  Schedule s;
  s.split_k = 4;
  s.slice_rule = SliceRule::whole_tiles;
  s.tile_k = 64;
  s.slice_align = 8;
  s.partial = PartialTile::first;
  s.promotion = 4;
  s.reduction_tree = {0, 1, -1, 2, 3, -1, -1};
  s.reduction_format = ReductionFormat::d;
  s.partial_format = ReductionFormat::bf16;
  s.serial = false;
  s.sum_format = ReductionFormat::fp16;
  s.c_entry = CEntry::after_reduction;
  s.tf32_operands = Tf32Operands::nearest_even;
  s.note = "a test";
  for (int t = 63; t >= 0; --t) s.tile_k_order.push_back(t);
  EXPECT_EQ(parse_schedule(schedule_to_json(s)), s);
  const Schedule p = parse_schedule(R"({"reduction_tree": [[0, 1], [2, 3]], "split_k": 4})");
  EXPECT_EQ(p.reduction_tree, (std::vector<int>{0, 1, -1, 2, 3, -1, -1}));
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {R"({"split_k": 2, "split_k": 3})", "duplicate key \"split_k\""},
           {R"({"splitk": 2})", "unknown key \"splitk\""},
           {R"({"split_k": 0})", "outside 1.."},
           {R"({"split_k": 2.5})", "must be an integer"},
           {R"({"partial_tile": "middle"})", "not one of \"last\", \"first\""},
           {R"({"reduction_tree": [[0, 1, 2]]})", "pair [left, right]"},
           {R"({"slice_bounds": "0,64"})", "list of integers"},
           {R"({"tile_k_order": [1, 0.5]})", "\"tile_k_order[]\" must be an integer, got 0.5"},
           {R"([1, 2])", "a JSON object"},
           {R"({"split_k": )", "not valid JSON"},
       }) {
    try {
      parse_schedule(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << text << ": " << e.what();
    }
  }
  std::string deep = "0";
  for (int i = 0; i < 100; ++i) deep = "[" + deep + ", 1]";
  EXPECT_THROW(parse_schedule("{\"reduction_tree\": " + deep + "}"), std::invalid_argument);
}

// Random instruction class, shape and schedule: the fast engine equals the reference datapath.
RC_GTEST_PROP(Schedule, FastEqualsReferenceUnderEverySchedule, ()) {
  static const std::vector<std::string> names = {"mma.m16n8k16.f32.bf16.bf16.f32", "mma.m16n8k16.f16.f16.f16.f16",
                                                 "mma.m16n8k8.f32.tf32.tf32.f32", "wgmma.m64n8k32.f32.e4m3.e4m3",
                                                 "mma.m16n8k8.f32.bf16.bf16.f32"};
  const Instruction in = find_instruction(*rc::gen::elementOf(names), 90);
  const int m = *rc::gen::inRange(1, 20), n = *rc::gen::inRange(1, 35), k = *rc::gen::inRange(1, 6 * in.k);
  const Operands x = random_operands(in, m, n, k, *rc::gen::arbitrary<std::uint32_t>(), *rc::gen::inRange(0, 20));
  Schedule s;
  s.tile_k = in.k * *rc::gen::inRange(1, 4);
  s.partial = *rc::gen::element(PartialTile::first, PartialTile::last);
  const int kp = k + (*rc::gen::arbitrary<bool>() ? *rc::gen::inRange(0, 2 * in.k) : 0);  // zero padding
  if (kp != k) s.k_padded = kp;
  const int slices = *rc::gen::inRange(1, std::min(kp, 5) + 1);
  if (*rc::gen::arbitrary<bool>()) {
    s.split_k = slices;
    s.slice_rule = *rc::gen::element(SliceRule::whole_tiles, SliceRule::interleaved_tiles);
  } else {
    s.slice_bounds = {0};
    for (int i = 1; i < slices; ++i) s.slice_bounds.push_back(s.slice_bounds.back() + *rc::gen::inRange(1, kp - s.slice_bounds.back() - (slices - i) + 1));
    s.slice_bounds.push_back(kp);
    if (slices == 4 && *rc::gen::arbitrary<bool>()) s.reduction_tree = {0, 1, -1, 2, 3, -1, -1};
  }
  s.promotion = *rc::gen::inRange(0, 3);
  s.reduction_format = *rc::gen::element(ReductionFormat::fp32, ReductionFormat::d, ReductionFormat::bf16);
  s.partial_format = *rc::gen::element(ReductionFormat::fp32, ReductionFormat::fp16);
  s.serial = s.reduction_tree.empty() && *rc::gen::arbitrary<bool>();
  s.sum_format = *rc::gen::element(ReductionFormat::fp32, ReductionFormat::bf16);
  s.c_entry = *rc::gen::element(CEntry::first_slice, CEntry::first_partial, CEntry::after_reduction);
  s.tf32_operands = *rc::gen::element(Tf32Operands::truncate, Tf32Operands::nearest_even, Tf32Operands::nearest_away);
  if (k % s.tile_k == 0 && *rc::gen::arbitrary<bool>()) {  // a k-slot order within each tile
    s.tile_k_order.resize(static_cast<std::size_t>(s.tile_k));
    std::iota(s.tile_k_order.begin(), s.tile_k_order.end(), 0);
    std::shuffle(s.tile_k_order.begin(), s.tile_k_order.end(), std::mt19937(*rc::gen::arbitrary<std::uint32_t>()));
  }
  GemmOptions opt = with(s);
  opt.threads = *rc::gen::inRange(1, 3);
  const auto fast = run(in, x, opt);
  opt.path = GemmOptions::Path::reference;
  RC_ASSERT(fast == run(in, x, opt));
}

}  // namespace
}  // namespace tcnum
