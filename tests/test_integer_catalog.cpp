// Integer MMA as catalog instructions (docs/models.md §8.5): the catalog's forms per
// architecture, the integer formats, exhaustive products through mma_element (every s8/u8 pair,
// every s4/u4 pair), wrap and .satfinite at the ends of the s32 range, tiles and GEMMs, corpus
// lines (hex widths) and replay.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tcnum/core/corpus.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/integer_mma.hpp"
#include "tcnum/core/plan.hpp"

namespace {

using namespace tcnum;

constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min(), kMax = std::numeric_limits<std::int32_t>::max();

std::uint32_t bits32(std::int64_t v) { return static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)); }

std::vector<std::string> integer_names(int sm) {
  std::vector<std::string> out;
  for (const Instruction& in : instructions_for(sm))
    if (in.integer()) out.push_back(in.name);
  return out;
}

TEST(IntegerCatalog, FormsPerArchitecture) {
  EXPECT_TRUE(integer_names(70).empty());
  EXPECT_EQ(integer_names(75).size(), 16u);  // m8n8k16 s8/u8, m8n8k32 s4/u4: 4 pairs × wrap/satfinite
  for (int sm : {80, 86, 89, 120}) EXPECT_EQ(integer_names(sm).size(), 48u) << sm;
  // sm_100a adds tcgen05 kind::i8: M = 64 at the 18 integer N, M = 128 at 16 N; 8 forms each.
  EXPECT_EQ(integer_names(100).size(), 48u + 8u * (18u + 16u));
  // sm_90a adds wgmma m64nNk32 s8/u8: 4 pairs × wrap/satfinite × 18 N.
  EXPECT_EQ(integer_names(90).size(), 48u + 8u * 18u);
  const Instruction in = find_instruction("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32", 90);
  EXPECT_EQ(in.name, "mma.m16n8k32.satfinite.s32.s8.u8.s32");
  EXPECT_TRUE(in.saturate && in.integer());
  EXPECT_EQ(in.a_type, Format::s8);
  EXPECT_EQ(in.b_type, Format::u8);
  EXPECT_EQ(in.c_type, Format::s32);
  const Instruction nib = find_instruction("mma.m16n8k64.s32.u4.s4.s32", 80);
  EXPECT_FALSE(nib.saturate);
  EXPECT_EQ(nib.k, 64);
  EXPECT_THROW(find_instruction("mma.m16n8k32.s32.s8.s8.s32", 75), UnknownInstruction);
  // Integer inputs are only reached by name or by asking for s32 accumulation; sm_90's own
  // family is wgmma (the smallest N: M and N change no bit), the others' mma.
  EXPECT_EQ(default_instruction(OperandFormats{Format::s8, Format::s8, Format::s32, Format::s32}, 90).name,
            "wgmma.m64n8k32.s32.s8.s8");
  EXPECT_EQ(default_instruction(OperandFormats{Format::s8, Format::u8, Format::s32, Format::s32}, 89).name,
            "mma.m16n8k32.s32.s8.u8.s32");
  EXPECT_EQ(builtin_model(90).rule_for(in).inputs, InputClass::integer);
  EXPECT_TRUE(builtin_model(90).rule_for(in).validated);
  EXPECT_FALSE(builtin_model(80).rule_for(in).validated);
}

// wgmma.mma_async integer forms (PTX ISA: .shape{.satfinite}.s32.atype.btype, K = 32), sm_90a only,
// at exactly the N of the ISA's integer shape list; C has D's type (s32).
TEST(IntegerCatalog, WgmmaForms) {
  std::set<int> want_n{8, 16, 24};
  for (int n = 32; n <= 256; n += 16) want_n.insert(n);
  std::set<int> seen_n;
  int count = 0;
  for (const Instruction& in : instructions_for(90)) {
    if (!in.integer() || in.family != Family::wgmma) continue;
    ++count;
    seen_n.insert(in.n);
    EXPECT_EQ(in.m, 64);
    EXPECT_EQ(in.k, 32);
    EXPECT_EQ(in.c_type, Format::s32);
    EXPECT_EQ(in.d_type, Format::s32);
    EXPECT_EQ(in.saturate, in.name.find(".satfinite.s32.") != std::string::npos) << in.name;
  }
  EXPECT_EQ(count, 8 * 18);
  EXPECT_EQ(seen_n, want_n);
  const Instruction sat = find_instruction("wgmma.m64n8k32.satfinite.s32.u8.s8", 90);
  EXPECT_EQ(sat.name, "wgmma.m64n8k32.satfinite.s32.u8.s8");
  EXPECT_TRUE(sat.saturate);
  EXPECT_EQ(sat.a_type, Format::u8);
  EXPECT_EQ(sat.b_type, Format::s8);
  EXPECT_THROW(find_instruction("wgmma.m64n40k32.s32.s8.s8", 90), UnknownInstruction);  // not an integer N
  EXPECT_THROW(find_instruction("wgmma.m64n8k32.s32.s8.s8", 100), UnknownInstruction);   // sm_90a only
  try {
    find_instruction("wgmma.m64n40k32.s32.s8.s8", 90);
  } catch (const UnknownInstruction& e) {
    EXPECT_NE(std::string(e.what()).find("wgmma.m64n{N}k32.satfinite.s32.s8.u8"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("integer wgmma N = 8, 16, 24, 32, 48"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(builtin_model(90).rule_for(sat).inputs == InputClass::integer);
}

// Every byte pair through a wgmma form, wrap and .satfinite at both ends of s32.
TEST(IntegerMmaExhaustive, WgmmaEveryByteProductAndTheEnds) {
  const Model& m = builtin_model(90);
  std::mt19937 rng(90);
  for (const char* name : {"wgmma.m64n256k32.s32.s8.s8", "wgmma.m64n8k32.s32.u8.s8", "wgmma.m64n48k32.s32.s8.u8",
                           "wgmma.m64n24k32.s32.u8.u8"}) {
    const Instruction in = find_instruction(name, 90);
    long bad = 0;
    std::vector<std::uint32_t> a(32), b(32);
    for (std::uint32_t x = 0; x < 256; ++x)
      for (std::uint32_t y = 0; y < 256; ++y) {
        const int k = static_cast<int>(rng() % 32);
        a.assign(32, 0), b.assign(32, 0);
        a[k] = x, b[k] = y;
        bad += mma_element(m, in, a, b, 0) != bits32(integer_value(in.a_type, x) * integer_value(in.b_type, y));
      }
    EXPECT_EQ(bad, 0) << name;
  }
  const Instruction wrap = find_instruction("wgmma.m64n16k32.s32.u8.u8", 90);
  const Instruction sat = find_instruction("wgmma.m64n16k32.satfinite.s32.u8.u8", 90);
  const std::vector<std::uint32_t> ones(32, 0xff);  // 32 · 255 · 255 = 2,080,800
  EXPECT_EQ(mma_element(m, wrap, ones, ones, bits32(kMax - 2080800 + 1)), bits32(kMin));
  EXPECT_EQ(mma_element(m, sat, ones, ones, bits32(kMax - 2080800 + 1)), bits32(kMax));
  EXPECT_EQ(mma_element(m, sat, ones, ones, bits32(kMax - 2080800)), bits32(kMax));
  EXPECT_EQ(mma_element(m, sat, ones, ones, bits32(kMax - 2080801)), bits32(kMax - 1));
}

// tcgen05.mma .kind::i8 (sm_100a): modelled as the other integer forms, not validated (no B200).
TEST(IntegerCatalog, Tcgen05KindI8) {
  const Instruction in = find_instruction("tcgen05.mma.m128n256k32.kind::i8.satfinite.s32.u8.s8", 100);
  EXPECT_TRUE(in.integer() && in.saturate);
  EXPECT_EQ(in.family, Family::tcgen05);
  EXPECT_EQ(in.kind, "i8");
  EXPECT_EQ(in.c_type, Format::s32);
  EXPECT_THROW(find_instruction("tcgen05.mma.m128n8k32.kind::i8.s32.s8.s8", 100), UnknownInstruction);  // M = 128: N step 16
  EXPECT_THROW(find_instruction("tcgen05.mma.m64n40k32.kind::i8.s32.s8.s8", 100), UnknownInstruction);
  EXPECT_NO_THROW(find_instruction("tcgen05.mma.m64n24k32.kind::i8.s32.s8.s8", 100));
  EXPECT_THROW(find_instruction("tcgen05.mma.m64n24k32.kind::i8.s32.s8.s8", 120), UnknownInstruction);  // not on sm_120
  const ModelRule& r = builtin_model(100).rule_for(in);
  EXPECT_EQ(r.inputs, InputClass::integer);
  EXPECT_FALSE(r.validated);
  std::vector<std::uint32_t> a(32, 0xff), b(32, 0x80);  // u8 255 × s8 −128, 32 times: −1,044,480
  EXPECT_EQ(mma_element(builtin_model(100), in, a, b, bits32(kMin + 1000)), bits32(kMin));
  const Instruction wrap = find_instruction("tcgen05.mma.m128n256k32.kind::i8.s32.u8.s8", 100);
  EXPECT_EQ(mma_element(builtin_model(100), wrap, a, b, bits32(kMin + 1000)), bits32(kMin + 1000 - 1044480 + (std::int64_t{1} << 32)));
}

TEST(IntegerFormats, DecodeAndLimits) {
  EXPECT_EQ(integer_value(Format::s8, 0x80), -128);
  EXPECT_EQ(integer_value(Format::u8, 0x80), 128);
  EXPECT_EQ(integer_value(Format::s4, 0xf), -1);
  EXPECT_EQ(integer_value(Format::s4, 0x1f), -1);  // bits above the storage are not read
  EXPECT_EQ(integer_value(Format::u4, 0xf), 15);
  EXPECT_EQ(integer_value(Format::s32, 0x80000000u), kMin);
  EXPECT_EQ(to_double(Format::s8, 0xfe), -2.0);
  EXPECT_EQ(to_double(Format::s32, 0xffffffffu), -1.0);
  EXPECT_EQ(max_finite_bits(Format::s8, false), 0x7fu);
  EXPECT_EQ(max_finite_bits(Format::s8, true), 0x80u);
  EXPECT_EQ(max_finite_bits(Format::u4, false), 0xfu);
  EXPECT_EQ(parse_format("s4"), Format::s4);
  EXPECT_THROW(encode(Format::s8, 1.0), std::invalid_argument);
  EXPECT_THROW(integer_value(Format::fp16, 0), std::invalid_argument);
  EXPECT_EQ(hex_field(Format::s4, 0xf), "f");
  EXPECT_EQ(hex_field(Format::u8, 0xff), "ff");
  EXPECT_EQ(hex_field(Format::s32, 0x80000000u), "80000000");
}

// Every pair of 8-bit operands, in every signedness, at a random position of K = 32, through
// the catalog's instruction and the model (mma_element): d = a·b exactly.
TEST(IntegerMmaExhaustive, EveryByteProduct) {
  std::mt19937 rng(26);
  for (const char* name : {"mma.m16n8k32.s32.s8.s8.s32", "mma.m16n8k32.s32.s8.u8.s32", "mma.m16n8k32.s32.u8.s8.s32",
                           "mma.m16n8k32.s32.u8.u8.s32"}) {
    const Instruction in = find_instruction(name, 90);
    const Model& m = builtin_model(90);
    std::vector<std::uint32_t> a(32, 0), b(32, 0);
    long bad = 0;
    for (std::uint32_t x = 0; x < 256; ++x)
      for (std::uint32_t y = 0; y < 256; ++y) {
        const int k = static_cast<int>(rng() % 32);
        a.assign(32, 0), b.assign(32, 0);
        a[k] = x, b[k] = y;
        const std::int64_t want = integer_value(in.a_type, x) * integer_value(in.b_type, y);
        bad += mma_element(m, in, a, b, 0) != bits32(want);
      }
    EXPECT_EQ(bad, 0) << name;
  }
}

TEST(IntegerMmaExhaustive, EveryNibbleProductWithAnAddend) {
  for (const Instruction& in : instructions_for(90)) {
    if (!in.integer() || (in.a_type != Format::s4 && in.a_type != Format::u4)) continue;
    long bad = 0;
    for (std::uint32_t x = 0; x < 16; ++x)
      for (std::uint32_t y = 0; y < 16; ++y)
        for (std::int64_t c : {std::int64_t{0}, std::int64_t{-7}, kMax, kMin}) {
          std::vector<std::uint32_t> a(in.k, x), b(in.k, y);  // K equal products
          std::int64_t want = c + in.k * integer_value(in.a_type, x) * integer_value(in.b_type, y);
          if (in.saturate) want = std::clamp(want, kMin, kMax);
          bad += mma_element(builtin_model(90), in, a, b, bits32(c)) != bits32(want);
        }
    EXPECT_EQ(bad, 0) << in.name;
  }
}

TEST(IntegerMma, WrapAndSaturateAtTheEnds) {
  const Instruction wrap = find_instruction("mma.m16n8k16.s32.s8.s8.s32", 90);
  const Instruction sat = find_instruction("mma.m16n8k16.satfinite.s32.s8.s8.s32", 90);
  std::vector<std::uint32_t> a(16, 0), b(16, 0);
  a[3] = 1, b[3] = 1;
  const Model& m = builtin_model(90);
  EXPECT_EQ(mma_element(m, wrap, a, b, bits32(kMax)), bits32(kMin));
  EXPECT_EQ(mma_element(m, sat, a, b, bits32(kMax)), bits32(kMax));
  b[3] = 0xff;  // -1
  EXPECT_EQ(mma_element(m, wrap, a, b, bits32(kMin)), bits32(kMax));
  EXPECT_EQ(mma_element(m, sat, a, b, bits32(kMin)), bits32(kMin));
  // All products -128·-128 from C = INT32_MAX: far past the top, clamped once.
  a.assign(16, 0x80), b.assign(16, 0x80);
  EXPECT_EQ(mma_element(m, sat, a, b, bits32(kMax)), bits32(kMax));
  EXPECT_EQ(mma_element(m, wrap, a, b, bits32(kMax)), bits32(kMax + 16 * 16384));
}

TEST(IntegerMma, PlansAndBadInstructions) {
  const Instruction in = find_instruction("mma.m8n8k16.s32.u8.u8.s32", 80);
  const MmaPlan plan = compile_plan(builtin_model(80), in);
  EXPECT_FALSE(plan.fast);
  EXPECT_NE(plan.reference_only.find("integer"), std::string::npos);
  Instruction bad = in;
  bad.d_type = Format::fp32;
  EXPECT_THROW(compile_plan(builtin_model(80), bad), std::invalid_argument);
  bad = in;
  bad.b_type = Format::fp16;  // integer A with a float B
  EXPECT_THROW(compile_plan(builtin_model(80), bad), std::invalid_argument);
  std::vector<std::uint32_t> short_a(15, 0), b(16, 0);
  EXPECT_THROW(mma_element(builtin_model(80), in, short_a, b, 0), std::invalid_argument);
}

// A tile and a GEMM of two k-steps: each step is the instruction, C of the second the D of the
// first, so .satfinite clamps after each step and wrap is the exact sum modulo 2^32.
TEST(IntegerMma, TileAndGemmChainSteps) {
  std::mt19937 rng(7);
  for (const char* name : {"mma.m16n8k32.s32.s8.u8.s32", "mma.m16n8k32.satfinite.s32.s8.u8.s32"}) {
    const Instruction in = find_instruction(name, 90);
    const int M = 16, N = 8, K = 64;
    std::vector<std::int8_t> a(M * K);
    std::vector<std::uint8_t> b(K * N);  // row-major K×N
    std::vector<std::int32_t> c(M * N), d(M * N);
    for (auto& v : a) v = static_cast<std::int8_t>(rng());
    for (auto& v : b) v = static_cast<std::uint8_t>(rng());
    for (auto& v : c) v = static_cast<std::int32_t>(kMax - static_cast<std::int64_t>(rng() % 4000000));
    std::vector<std::uint32_t> ra(a.size()), rb(b.size()), rc(c.size()), rd(d.size());
    for (std::size_t i = 0; i < a.size(); ++i) ra[i] = static_cast<std::uint8_t>(a[i]);
    for (std::size_t i = 0; i < b.size(); ++i) rb[i] = b[i];
    for (std::size_t i = 0; i < c.size(); ++i) rc[i] = static_cast<std::uint32_t>(c[i]);
    rd = gemm(builtin_model(90), in, M, N, K, ra, rb, rc);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        std::int64_t acc = c[i * N + j];
        for (int step = 0; step < 2; ++step) {
          for (int k = step * 32; k < step * 32 + 32; ++k) acc += std::int64_t{a[i * K + k]} * b[k * N + j];
          acc = in.saturate ? std::clamp(acc, kMin, kMax) : static_cast<std::int32_t>(bits32(acc));
        }
        ASSERT_EQ(rd[i * N + j], bits32(acc)) << name << " (" << i << ", " << j << ")";
      }
    GemmOptions split;  // split-K would sum the slices in a float reduction: refused
    split.split_k = 2;
    EXPECT_THROW(gemm(builtin_model(90), in, M, N, K, ra, rb, rc, split), std::invalid_argument);
  }
}

TEST(IntegerCorpus, LinesRoundTripAndReplay) {
  const Instruction in = find_instruction("mma.m16n8k64.satfinite.s32.s4.u4.s32", 90);
  std::vector<std::uint32_t> a(64), b(64);
  for (int k = 0; k < 64; ++k) a[k] = static_cast<std::uint32_t>(k % 8), b[k] = static_cast<std::uint32_t>((k * 7) % 16);
  const std::uint32_t c = bits32(kMax - 5);
  const std::uint32_t d = integer_mma_element(in, a, b, c);
  EXPECT_EQ(d, bits32(kMax));  // s4 0..7 times u4: a positive sum, clamped
  const std::string line = format_case_line("sm_90", in, a, b, c, d);
  std::string why;
  const auto parsed = parse_case_line(line, why);
  ASSERT_TRUE(parsed) << why;
  EXPECT_EQ(parsed->a, a);
  EXPECT_EQ(parsed->b, b);
  EXPECT_EQ(parsed->d, d);
  // 64 one-digit elements per operand field.
  EXPECT_NE(line.find(" 0123456701234567012345670123456701234567012345670123456701234567 "), std::string::npos) << line;
  const std::string path = (std::filesystem::temp_directory_path() / "tcnum_integer_corpus.tcc").string();
  {
    std::ofstream f(path);
    f << line << "\n";
    std::string wrong = format_case_line("sm_90", in, a, b, c, d - 1);
    f << wrong << "\n";
    f << "sm_90 mma.m16n8k64.s32.s4.u4.s32 012 012 00000000 00000000\n";  // short A
  }
  std::size_t mismatches = 0, malformed = 0;
  const ReplayTally t = replay_file(path, nullptr, [&](const ReplayIssue& i) { (i.malformed ? malformed : mismatches) += 1; });
  EXPECT_EQ(t.passed, 1u);
  EXPECT_EQ(t.failed, 2u);
  EXPECT_EQ(mismatches, 1u);
  EXPECT_EQ(malformed, 1u);
  std::filesystem::remove(path);
}

}  // namespace
