// The fuzz layer's integer draws (emu/fuzz/integer_cases.cpp), for cases and whole tiles: valid
// patterns only, each distribution's promise checked from the operands themselves (C + Σ on the
// ends of s32 under boundary, C near them under spread, Σ = 0 under cancel where an operand is
// signed, the extremes under special, |values| <= 2 under subnorm), and the same bits for the same
// seed. What tcnum_int_record and `numprobe fuzz --instr integer` draw (docs/probes.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "tcnum/core/instruction.hpp"
#include "tcnum/fuzz/generators.hpp"

namespace {

using namespace tcnum;

constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min(), kMax = std::numeric_limits<std::int32_t>::max();

std::int64_t s32(std::uint32_t bits) { return static_cast<std::int32_t>(bits); }

struct Drawn {
  std::vector<std::uint32_t> a, b, c;
};

Drawn cases(const Instruction& in, const std::string& dist, std::size_t n, std::uint64_t seed) {
  Drawn d{std::vector<std::uint32_t>(n * in.k), std::vector<std::uint32_t>(n * in.k), std::vector<std::uint32_t>(n)};
  fuzz::generate(in, DatapathParams{}, dist, seed, n, d.a.data(), d.b.data(), d.c.data());
  return d;
}

std::int64_t dot(const Instruction& in, const std::uint32_t* a, const std::uint32_t* b) {
  std::int64_t s = 0;
  for (int k = 0; k < in.k; ++k) s += integer_value(in.a_type, a[k]) * integer_value(in.b_type, b[k]);
  return s;
}

// What each distribution promises for one element (a, b: its K operands; c: its addend).
void expect_promise(const Instruction& in, const std::string& dist, const std::uint32_t* a, const std::uint32_t* b,
                    std::uint32_t c, int& hits) {
  const std::int64_t sum = dot(in, a, b), d = s32(c) + sum;
  for (int k = 0; k < in.k; ++k) {
    ASSERT_EQ(a[k] & ~storage_mask(in.a_type), 0u) << in.name << " " << dist;
    ASSERT_EQ(b[k] & ~storage_mask(in.b_type), 0u) << in.name << " " << dist;
    if (dist == "subnorm") {
      EXPECT_LE(std::abs(integer_value(in.a_type, a[k])), 2);
      EXPECT_LE(std::abs(integer_value(in.b_type, b[k])), 2);
    }
  }
  if (dist == "boundary") {
    EXPECT_TRUE(std::abs(d - kMax) <= 1 || std::abs(d - kMin) <= 1) << in.name << ": C + sum = " << d;
    hits += d > kMax || d < kMin;  // past an end: wrap and .satfinite differ
  } else if (dist == "spread") {
    EXPECT_TRUE(s32(c) >= kMax - (1 << 20) || s32(c) <= kMin + (1 << 20)) << in.name << ": C = " << s32(c);
  } else if (dist == "cancel") {
    const bool signed_operand = spec(in.a_type).is_signed || spec(in.b_type).is_signed;
    if (signed_operand) {
      EXPECT_EQ(sum, 0) << in.name;
    }
    EXPECT_LE(std::abs(d), 1) << in.name;
  } else if (dist == "special") {
    hits += s32(c) == kMin || s32(c) == kMax;
  }
}

TEST(FuzzInteger, EveryDistributionKeepsItsPromiseInCases) {
  for (const char* name : {"wgmma.m64n8k32.s32.s8.u8", "wgmma.m64n64k32.satfinite.s32.u8.u8", "mma.m16n8k64.s32.s4.u4.s32",
                           "mma.m8n8k32.satfinite.s32.u4.u4.s32"}) {
    const Instruction in = find_instruction(name, 90);
    for (const std::string& dist : fuzz::distribution_names()) {
      const Drawn d = cases(in, dist, 500, 11);
      int hits = 0;
      for (std::size_t t = 0; t < 500; ++t) expect_promise(in, dist, &d.a[t * in.k], &d.b[t * in.k], d.c[t], hits);
      if (dist == "boundary") {
        EXPECT_GT(hits, 100) << name;
      } else if (dist == "special") {
        EXPECT_GT(hits, 20) << name;
      }
      const Drawn again = cases(in, dist, 500, 11), other = cases(in, dist, 500, 12);
      EXPECT_EQ(again.a, d.a);
      EXPECT_EQ(again.c, d.c);
      EXPECT_NE(other.c, d.c) << name << " " << dist;
    }
  }
}

TEST(FuzzInteger, TilesKeepThePromiseInEveryElement) {
  for (const char* name : {"wgmma.m64n24k32.s32.s8.s8", "wgmma.m64n16k32.s32.u8.s8", "mma.m16n8k32.s32.u8.u8.s32"}) {
    const Instruction in = find_instruction(name, 90);
    const std::size_t M = in.m, N = in.n, K = in.k, tiles = 3;
    for (const std::string& dist : fuzz::distribution_names()) {
      std::vector<std::uint32_t> a(tiles * M * K), b(tiles * N * K), c(tiles * M * N);
      fuzz::generate_tiles(in, DatapathParams{}, dist, 7, tiles, a.data(), b.data(), c.data());
      int hits = 0;
      for (std::size_t t = 0; t < tiles; ++t)
        for (std::size_t i = 0; i < M; ++i)
          for (std::size_t j = 0; j < N; ++j)
            expect_promise(in, dist, &a[(t * M + i) * K], &b[(t * N + j) * K], c[(t * M + i) * N + j], hits);
    }
  }
}

TEST(FuzzInteger, OperandsReachTheirExtremes) {
  const Instruction in = find_instruction("wgmma.m64n8k32.s32.s8.u8", 90);
  std::set<std::uint32_t> a_seen, b_seen;
  for (const char* dist : {"randbits", "special"}) {
    const Drawn d = cases(in, dist, 2000, 3);
    a_seen.insert(d.a.begin(), d.a.end());
    b_seen.insert(d.b.begin(), d.b.end());
  }
  for (std::uint32_t v : {0x80u, 0x7fu, 0xffu, 0x00u}) EXPECT_TRUE(a_seen.contains(v)) << v;
  for (std::uint32_t v : {0xffu, 0x00u, 0x01u}) EXPECT_TRUE(b_seen.contains(v)) << v;
  EXPECT_EQ(a_seen.size(), 256u);
}

}  // namespace
