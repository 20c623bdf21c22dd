// The reference generators on integer instructions (tcnum/reference/frozen_corpus_generators.hpp): valid
// patterns only, each distribution's promise (C near the ends of s32 under spread, the extremes
// under special, cancelling pairs and C = -sum ± 1 under cancel, small values under subnorm),
// and the same cases for the same seed (a prefix for fewer cases).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <set>

#include "tcnum/core/instruction.hpp"
#include "tcnum/reference/frozen_corpus_generators.hpp"

namespace {

using namespace tcnum;
using namespace tcnum::reference::frozen_v1;  // the frozen corpus generators' own tests

TEST(IntegerGenerators, EveryDistributionKeepsItsPromise) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min(), kMax = std::numeric_limits<std::int32_t>::max();
  for (const char* name : {"mma.m16n8k32.s32.s8.u8.s32", "mma.m16n8k64.satfinite.s32.s4.s4.s32", "mma.m8n8k16.s32.u8.u8.s32"}) {
    const Instruction in = find_instruction(name, 90);
    for (const std::string& dist : distribution_names()) {
      const auto cases = generate(in, dist, 400, 5);
      const auto fewer = generate(in, dist, 7, 5);
      for (std::size_t i = 0; i < fewer.size(); ++i) EXPECT_EQ(fewer[i].a, cases[i].a) << name << " " << dist;
      std::set<std::uint32_t> a_seen;
      int near_end = 0, cancelled = 0;
      for (const Case& c : cases) {
        ASSERT_EQ(c.a.size(), static_cast<std::size_t>(in.k));
        std::int64_t sum = 0;
        for (int k = 0; k < in.k; ++k) {
          EXPECT_EQ(c.a[k] & ~storage_mask(in.a_type), 0u) << name << " " << dist;
          EXPECT_EQ(c.b[k] & ~storage_mask(in.b_type), 0u) << name << " " << dist;
          a_seen.insert(c.a[k]);
          sum += integer_value(in.a_type, c.a[k]) * integer_value(in.b_type, c.b[k]);
          if (dist == "subnorm") {
            EXPECT_LE(std::abs(integer_value(in.a_type, c.a[k])), 2) << name;
          }
        }
        const std::int64_t cv = integer_value(Format::s32, c.c);
        near_end += cv > kMax - (1 << 20) || cv < kMin + (1 << 20);
        cancelled += std::abs(cv + sum) <= 1;
      }
      if (dist == "spread") {
        EXPECT_EQ(near_end, 400) << name;
      }
      if (dist == "cancel") {
        EXPECT_EQ(cancelled, 400) << name;
      }
      if (dist == "special") {
        EXPECT_TRUE(a_seen.count(max_finite_bits(in.a_type, false))) << name;
        EXPECT_TRUE(a_seen.count(max_finite_bits(in.a_type, true))) << name;  // the most negative (0 for unsigned)
      }
      if (dist == "randbits") {
        EXPECT_EQ(a_seen.size(), storage_mask(in.a_type) + 1u) << name;  // every pattern
      }
    }
  }
}

}  // namespace
