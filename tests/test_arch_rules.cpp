// The per-architecture rules that the imported device corpora (Khattak & Mikaitis' results)
// and the published models fixed: each test evaluates the built-in rule and the rule with the
// one parameter set back to its old value, and needs the device's (or the documented) result
// from the first and a different one from the second. Evidence: docs/models.md §7.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tcnum/core/corpus.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/model.hpp"
#include "test_support.hpp"

namespace tcnum {
namespace {

using test::hex;

CorpusCase device_case(const std::string& line) {
  std::string why;
  const auto c = parse_case_line(line, why);
  if (!c) throw std::invalid_argument(why);
  return *c;
}

std::uint32_t run(const DatapathParams& p, const CorpusCase& c) { return mma_element(p, c.instruction, c.a, c.b, c.c); }

const DatapathParams& builtin_params(const CorpusCase& c) {
  return builtin_model(parse_arch(c.arch)).params_for(c.instruction);
}

// The device's D from the built-in rule, and not from `old`.
void expect_only_new_rule_matches(const std::string& line, const DatapathParams& old) {
  const CorpusCase c = device_case(line);
  EXPECT_EQ(hex(run(builtin_params(c), c)), hex(c.d)) << line;
  EXPECT_NE(hex(run(old, c)), hex(c.d)) << "the old rule reproduces this line too, so it proves nothing: " << line;
}

// Each line needs the built-in value of one parameter: `restore_old` sets it back.
template <class Restore>
void expect_parameter_needed(const std::vector<std::string>& lines, Restore restore_old) {
  for (const std::string& line : lines) {
    DatapathParams old = builtin_params(device_case(line));
    restore_old(old);
    expect_only_new_rule_matches(line, old);
  }
}

// corpora/rtx1000ada/mma.m16n8k32.f32.e4m3.e4m3.f32.tcc.gz lines 6 and 13 (RTX 1000 Ada).
TEST(AdaFp8, F32BlockResultsKeep13FractionBits) {
  expect_parameter_needed(
      {"sm_89 mma.m16n8k32.f32.e4m3.e4m3.f32 31b22d29bf2fbcb91bb3b540874121aab73fb231ad9db83a3d3b9b86bcac1283 "
       "3738aa3bb32a383e3635b82b0f293835b83703baaea63a3d9226b0afb333422d 3e93ca5a 40827800",
       "sm_89 mma.m16n8k32.f32.e4m3.e4m3.f32 39b284b9173688baaeb4962d31312fa9aa20b0a6b83631b7b1b6ba37bd3b35b4 "
       "c3311442b534b13cb2391a30b1a728a5a03640bc21b32a9239ab2e343736b52c 3ef0f8ad c122e400"},
      [](DatapathParams& p) {
        EXPECT_EQ(p.block_result_frac_bits, 13);
        p.block_result_frac_bits = 0;  // before: block results kept as full fp32
      });
}

// corpora/rtx1000ada/mma.m16n8k32.f16.e5m2.e5m2.f16.tcc.gz lines 7 and 8.
TEST(AdaFp8, F16OutputRoundsEachKHalfToF16) {
  expect_parameter_needed(
      {"sm_89 mma.m16n8k32.f16.e5m2.e5m2.f16 3c393bab34bbb23cb8bd3726403cb9c0b8b73fb93bbaa8bb2ebb3ec03cb739b7 "
       "b432b9a431b93ab5342d35ba3eb5be3734b9b8bc35bd2e3cb540b53bbdb8b539 261a c248",
       "sm_89 mma.m16n8k32.f16.e5m2.e5m2.f16 b7bd3b39b6adb5a03db8bdb4b9ba3eb23f37bc3d33303e39bababa333d3cb2b3 "
       "b8bc373fbcadb72f2e3b24ad38313a3eaeb53abdac3e3c403c323c2ebb153937 2e3b 3c26"},
      [](DatapathParams& p) {
        EXPECT_EQ(p.block_format, Format::fp16);
        EXPECT_EQ(p.block_rounding, Rounding::nearest_even);
        p.block_format = Format::fp32;  // before: k-halves chained in fp32 (RZ), one RNE into f16
        p.block_rounding = Rounding::toward_zero;
      });
}

// The old sm_100 fp8 rule: F = 25, one 32-product block, C inside, fp8 nominal exponents.
DatapathParams old_blackwell_fp8() {
  DatapathParams p;
  p.frac_bits = 25;
  p.block_size = 32;
  return p;
}

// corpora/b200/mma.m16n8k32.f32.e4m3.e4m3.f32.tcc.gz lines 6, 8; ...f16.e5m2.e5m2.f16 lines 6, 10.
TEST(BlackwellFp8Mma, IsSm90sHmmaEmulation) {
  for (const char* line :
       {"sm_100 mma.m16n8k32.f32.e4m3.e4m3.f32 31b22d29bf2fbcb91bb3b540874121aab73fb231ad9db83a3d3b9b86bcac1283 "
        "3738aa3bb32a383e3635b82b0f293835b83703baaea63a3d9226b0afb333422d 3f66b81c 4096153c",
        "sm_100 mma.m16n8k32.f32.e4m3.e4m3.f32 aeba3732ac9aaa843bb0baa8b2b53da53f2fb83b26213c32b4b5b4263a39a5a7 "
        "b0b92e3fb99bae1f1c37089b3123343c9caa34bb983c38403925391cb600332f 3ed8b71b 3f8b5bc7",
        "sm_100 mma.m16n8k32.f16.e5m2.e5m2.f16 38b93634bf37bebc2db9ba40a34030b5bb3fb938b6aebc3d3e3dada2beb6299e "
        "3b3cb53db9353c3f3b3abc3527343c3abc3b1ebdb7b33d3ea933b8b7b9394136 39fd 437f",
        "sm_100 mma.m16n8k32.f16.e5m2.e5m2.f16 b03e40b83740bcbdbd3c3c3d3cb730b0bc37ad30be39b73c3926b0bb34bdb83e "
        "bdbdb0b53b3db8b8bebdb43dbcb93f2d3e32b1ba38bcad3e37b626b53b33bd3a 3b4b 456a"})
    expect_only_new_rule_matches(line, old_blackwell_fp8());
  // The same rule as sm_90's fp8 mma (ptxas emits the same SASS for both).
  for (const char* name : {"mma.m16n8k32.f32.e4m3.e5m2.f32", "mma.m16n8k16.f16.e5m2.e5m2.f16"}) {
    const Instruction in = find_instruction(name, 100);
    EXPECT_EQ(builtin_model(100).params_for(in), builtin_model(90).params_for(in)) << name;
  }
}

// Alignment-exponent floor f with F kept bits: one product 2^-140 (nominal exponent below f)
// and a negative product -2^(f-F-1) (below the floor's quantum 2^(f-F): truncated away, D is
// exactly 2^-140 = 0x200) or -2^(f-F) (kept: D = 2^-140 - 2^-149 = 0x1ff after RZ). The two
// cases pin the floor to exactly f. bf16 and tf32 reach such exponents; f16 cannot.
struct FloorCase {
  int sm;
  const char* instruction;
  int frac_bits, floor;
};

std::uint32_t tiny_sum(const FloorCase& fc, int tiny_exp) {
  const Instruction in = find_instruction(fc.instruction, fc.sm);
  std::vector<std::uint32_t> a(in.k, 0), b(in.k, 0);
  a[0] = encode(in.a_type, std::ldexp(1.0, -70));
  b[0] = encode(in.b_type, std::ldexp(1.0, -70));
  a[1] = encode(in.a_type, -std::ldexp(1.0, tiny_exp / 2));
  b[1] = encode(in.b_type, std::ldexp(1.0, tiny_exp - tiny_exp / 2));
  return mma_element(builtin_model(fc.sm), in, a, b, 0);
}

TEST(AlignmentFloor, Fp32OutputFloorsPerArchitecture) {
  // Khattak & Mikaitis' min_exp_limit: A100TC/AdaTC/L40STC.m -132, H100TC/B200TC.m -133.
  const FloorCase cases[] = {
      {80, "mma.m16n8k8.f32.bf16.bf16.f32", 24, -132}, {80, "mma.m16n8k4.f32.tf32.tf32.f32", 24, -132},
      {86, "mma.m16n8k8.f32.bf16.bf16.f32", 24, -132}, {89, "mma.m16n8k8.f32.bf16.bf16.f32", 24, -132},
      {89, "mma.m16n8k4.f32.tf32.tf32.f32", 24, -132}, {90, "mma.m16n8k8.f32.bf16.bf16.f32", 25, -133},
      {100, "mma.m16n8k8.f32.bf16.bf16.f32", 25, -133}, {100, "mma.m16n8k8.f32.tf32.tf32.f32", 25, -133}};
  for (const FloorCase& fc : cases) {
    const Instruction in = find_instruction(fc.instruction, fc.sm);
    const DatapathParams& p = builtin_model(fc.sm).params_for(in);
    EXPECT_EQ(p.frac_bits, fc.frac_bits) << fc.instruction;
    EXPECT_EQ(hex(tiny_sum(fc, fc.floor - fc.frac_bits - 1)), "0x200") << "sm_" << fc.sm << " " << fc.instruction;
    EXPECT_EQ(hex(tiny_sum(fc, fc.floor - fc.frac_bits)), "0x1ff") << "sm_" << fc.sm << " " << fc.instruction;
  }
}

// f16 D (one block): 2^-23 + 2^-25 is a tie between f16 subnormals 2^-23 (even, 0x0002) and
// 2^-23 + 2^-24 (0x0003); a third product 2^(f-F) survives the floor and breaks the tie upward,
// 2^(f-F-1) is truncated away and RNE keeps 0x0002.
std::uint32_t f16_tie(int sm, const char* name, int third_exp) {
  const Instruction in = find_instruction(name, sm);
  std::vector<std::uint32_t> a(in.k, 0), b(in.k, 0);
  auto put = [&](int i, int e) {
    a[i] = encode(Format::fp16, std::ldexp(1.0, e / 2));
    b[i] = encode(Format::fp16, std::ldexp(1.0, e - e / 2));
  };
  put(0, -23);
  put(1, -25);
  put(2, third_exp);
  return mma_element(builtin_model(sm), in, a, b, 0);
}

TEST(AlignmentFloor, F16OutputFloorsPerArchitecture) {
  // min_exp_limit for f16 D: V100TC.m -19, A100TC/AdaTC/L40STC.m -20, H100TC/B200TC.m -21.
  const FloorCase cases[] = {{70, "mma.m8n8k4.f16.f16.f16.f16", 23, -19},  {80, "mma.m16n8k8.f16.f16.f16.f16", 24, -20},
                             {86, "mma.m16n8k8.f16.f16.f16.f16", 24, -20},  {89, "mma.m16n8k8.f16.f16.f16.f16", 24, -20},
                             {90, "mma.m16n8k8.f16.f16.f16.f16", 25, -21}, {100, "mma.m16n8k8.f16.f16.f16.f16", 25, -21}};
  for (const FloorCase& fc : cases) {
    EXPECT_EQ(hex(f16_tie(fc.sm, fc.instruction, fc.floor - fc.frac_bits - 1)), "0x2") << "sm_" << fc.sm;
    EXPECT_EQ(hex(f16_tie(fc.sm, fc.instruction, fc.floor - fc.frac_bits)), "0x3") << "sm_" << fc.sm;
  }
}

// Every zero result is +0 on every architecture (IEEE gives -0 for a sum of -0 terms only).
TEST(ZeroResults, ArePositiveOnEveryArchitecture) {
  for (int sm : known_archs()) {
    for (const Instruction& in : test::unscaled_instructions_for(sm)) {
      if (in.family != Family::mma) continue;
      // Every product is -0 (-0 * +0) and C is -0.
      const std::vector<std::uint32_t> a(in.k, zero_bits(in.a_type, true)), b(in.k, zero_bits(in.b_type, false));
      EXPECT_EQ(hex(mma_element(builtin_model(sm), in, a, b, zero_bits(in.c_type, true))), hex(zero_bits(in.d_type, false)))
          << "sm_" << sm << " " << in.name;
    }
  }
}

TEST(M8n8k4, IsATensorCoreInstructionOnlyOnVoltaAndTuring) {
  for (int sm : {70, 75}) EXPECT_NO_THROW(find_instruction("mma.m8n8k4.f32.f16.f16.f32", sm));
  for (int sm : {80, 86, 89, 90, 100}) {
    try {
      find_instruction("mma.m8n8k4.f32.f16.f16.f32", sm);
      ADD_FAILURE() << "sm_" << sm << " accepts mma.m8n8k4";
    } catch (const UnknownInstruction& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA-core"), std::string::npos) << e.what();
    }
    for (const Instruction& in : instructions_for(sm))  // integer m8n8k16/m8n8k32 are tensor-core forms there
      if (!in.integer()) {
        EXPECT_NE(in.m, 8) << in.name << " on sm_" << sm;
      }
  }
}

}  // namespace
}  // namespace tcnum
