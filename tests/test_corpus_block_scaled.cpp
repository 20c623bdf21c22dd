// Block-scaled corpus lines (two more fields: the scales of A's row and of B's column), their
// replay, and the generators' scale vectors.
#include <gtest/gtest.h>
#include <unistd.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tcnum/core/corpus.hpp"
#include "tcnum/reference/frozen_corpus_generators.hpp"

using namespace tcnum;
using namespace tcnum::reference::frozen_v1;  // the frozen corpus generators' own tests

namespace {

const char* const kNvfp4 = "tcgen05.mma.m128n16k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.ue4m3";

// D = C + Σ a_k b_k sa[k/16] sb[k/16], by hand: a0 = 6 (0x7), b0 = 2 (0x4), scales 2 (0x40) and 1
// (0x38): 24; a16 = 1 (0x2), b16 = 1.5 (0x3), scales 0.5 (0x30) and 2: 1.5; C = 1: D = 26.5.
std::string nvfp4_line(const std::string& d) {
  const std::string a = "7" + std::string(15, '0') + "2" + std::string(47, '0');
  const std::string b = "4" + std::string(15, '0') + "3" + std::string(47, '0');
  return std::string("sm_100 ") + kNvfp4 + " " + a + " " + b + " 3f800000 " + d + " 40303838 38403838";
}

std::vector<Instruction> block_scaled_instructions() {
  std::vector<Instruction> v;
  for (int sm : {100, 120})
    for (const Instruction& in : instructions_for(sm))
      if (in.block_scaled()) v.push_back(in);
  return v;
}

std::uint32_t random_pattern(Format f) {
  return static_cast<std::uint32_t>(*rc::gen::inRange<std::uint64_t>(0, std::uint64_t{storage_mask(f)} + 1));
}

}  // namespace

TEST(BlockScaledCorpusLine, ParsesTheScaleFields) {
  std::string why;
  const auto k = parse_case_line(nvfp4_line("41d40000"), why);
  ASSERT_TRUE(k) << why;
  EXPECT_EQ(k->instruction.scale_type, Format::ue4m3);
  EXPECT_EQ(k->a[0], 0x7u);
  EXPECT_EQ(k->a[16], 0x2u);
  EXPECT_EQ(k->b[16], 0x3u);
  EXPECT_EQ(k->scale_a, (std::vector<std::uint32_t>{0x40, 0x30, 0x38, 0x38}));
  EXPECT_EQ(k->scale_b, (std::vector<std::uint32_t>{0x38, 0x40, 0x38, 0x38}));
}

TEST(BlockScaledCorpusLine, FieldCountsAndScaleFieldsAreChecked) {
  const std::string good = nvfp4_line("41d40000");
  const std::string six = good.substr(0, good.rfind(' ', good.rfind(' ') - 1));
  const std::string plain =
      "sm_90 mma.m16n8k8.f32.f16.f16.f32 3c003c00000000000000000000000000 3c004000000000000000000000000000 "
      "3f800000 40800000";
  const std::pair<std::string, std::string> cases[] = {
      {six, "block-scaled instruction: expected 8 fields"},
      {plain + " 38 38", "without block scaling, got 8"},
      {good.substr(0, good.size() - 2), "SB: expected 4 x 2 hex digits for ue4m3"},
      {good.substr(0, good.size() - 17) + "4030383 38403838", "SA: expected 4 x 2 hex digits"},
      {good.substr(0, good.size() - 1) + "X", "'X' is not a lowercase hex digit"},
      {good + " 38", "got 9"},
  };
  for (const auto& [line, reason] : cases) {
    std::string why;
    EXPECT_FALSE(parse_case_line(line, why)) << line;
    EXPECT_NE(why.find(reason), std::string::npos) << "line: " << line << "\nwhy: " << why;
  }
  const Instruction in = parse_instruction(kNvfp4);
  EXPECT_THROW(format_case_line("sm_100", in, std::vector<std::uint32_t>(64), std::vector<std::uint32_t>(64), 0, 0),
               std::invalid_argument);  // a block-scaled line without its scales
}

RC_GTEST_PROP(BlockScaledCorpusLine, FormatThenParseIsTheIdentity, ()) {
  const Instruction in = *rc::gen::elementOf(block_scaled_instructions());
  RC_TAG(in.name);
  CorpusCase k;
  k.arch = in.min_sm >= 120 ? "sm_120" : "sm_100";
  for (int i = 0; i < in.k; ++i) k.a.push_back(random_pattern(in.a_type)), k.b.push_back(random_pattern(in.b_type));
  for (int i = 0; i < in.scales_per_row(); ++i)
    k.scale_a.push_back(random_pattern(in.scale_type)), k.scale_b.push_back(random_pattern(in.scale_type));
  k.c = random_pattern(in.c_type);
  k.d = random_pattern(in.d_type);
  const std::string line = format_case_line(k.arch, in, k.a, k.b, k.c, k.d, k.scale_a, k.scale_b);
  std::string why;
  const auto back = parse_case_line(line, why);
  RC_ASSERT(back.has_value());
  RC_ASSERT(back->instruction.name == in.name);
  RC_ASSERT(back->a == k.a);
  RC_ASSERT(back->b == k.b);
  RC_ASSERT(back->c == k.c);
  RC_ASSERT(back->d == k.d);
  RC_ASSERT(back->scale_a == k.scale_a);
  RC_ASSERT(back->scale_b == k.scale_b);
}

TEST(BlockScaledCorpusFile, ReplayUsesTheScales) {
  const std::string path = ::testing::TempDir() + "tcnum_block_scaled_" + std::to_string(::getpid()) + ".tcc";
  {
    CorpusWriter w(path);
    w.write(nvfp4_line("41d40000"));  // 26.5
    w.write(nvfp4_line("41c00000"));  // 24: the second group's scales ignored — a mismatch
    w.close();
  }
  std::vector<std::size_t> mismatches;
  const ReplayTally t = replay_file(path, nullptr, [&](const ReplayIssue& is) {
    EXPECT_FALSE(is.malformed) << is.reason;
    mismatches.push_back(is.line);
    if (is.kase) {
      EXPECT_EQ(is.emulated, 0x41d40000u);
    }
  });
  EXPECT_EQ(t.passed, 1u);
  EXPECT_EQ(t.failed, 1u);
  EXPECT_EQ(mismatches, std::vector<std::size_t>{2});
  std::remove(path.c_str());
}

TEST(BlockScaledGenerators, EveryCaseHasItsScalesAndOnlyBlockScaledOnes) {
  for (const Instruction& in : block_scaled_instructions()) {
    for (const std::string& dist : distribution_names())
      for (const Case& g : generate(in, dist, 20, 7)) {
        ASSERT_EQ(g.scale_a.size(), static_cast<std::size_t>(in.scales_per_row())) << in.name << " " << dist;
        ASSERT_EQ(g.scale_b.size(), g.scale_a.size());
        for (const auto* v : {&g.scale_a, &g.scale_b})
          for (std::uint32_t s : *v) {
            EXPECT_EQ(s & ~storage_mask(in.scale_type), 0u) << in.name;
            if (dist != "special") {
              EXPECT_FALSE(decode(in.scale_type, s).is_nan()) << in.name << " " << dist;
            }
            if (dist == "cancel") {
              EXPECT_EQ(s, v->front()) << "cancel keeps one scale per row: " << in.name;
            }
          }
      }
  }
  const Instruction plain = find_instruction("mma.m16n8k16.f32.f16.f16.f32", 90);
  for (const Case& g : generate(plain, "special", 20, 7)) EXPECT_TRUE(g.scale_a.empty() && g.scale_b.empty());
}

TEST(BlockScaledGenerators, SpecialReachesNanAndExtremeScales) {
  const Instruction in = parse_instruction(kNvfp4);
  bool nan = false, largest = false, zero = false;
  for (const Case& g : generate(in, "special", 400, 3))
    for (std::uint32_t s : g.scale_a) {
      nan |= decode(in.scale_type, s).is_nan();
      largest |= s == max_finite_bits(in.scale_type, false);
      zero |= decode(in.scale_type, s).is_zero();
    }
  EXPECT_TRUE(nan && largest && zero);
}
