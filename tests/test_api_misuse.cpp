// API misuse gets a clear std::invalid_argument, never an out-of-bounds read or a lenient
// match (issue 14 items 11 and 12).
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcnum/core/dot.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/plan.hpp"
#include "round_pack.hpp"  // internal (emu/core): the rounding routine itself

using namespace tcnum;

namespace {

std::string error_of(auto&& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// Before: an out-of-range Format indexed past the format table.
TEST(ApiMisuse, AnOutOfRangeFormatIsRejectedWhereItEnters) {
  for (Format f : {static_cast<Format>(100), static_cast<Format>(255)}) {
    EXPECT_NE(error_of([&] { check_format(f); }).find("invalid Format value"), std::string::npos);
    EXPECT_THROW(name_of(f), std::invalid_argument);
    EXPECT_THROW(to_double(f, 0), std::invalid_argument);
    EXPECT_THROW(encode(f, 1.0), std::invalid_argument);
  }
  for (const char* name : {"f32", "f16", "bf16", "tf32", "e4m3", "e5m2"}) EXPECT_NO_THROW(check_format(*parse_format(name)));
}

// Before: sm 95 gave "not available on sm_95; valid names there:" followed by nothing.
TEST(ApiMisuse, AnUnknownArchitectureNumberIsNamed) {
  const std::string why = error_of([] { find_instruction("mma.m16n8k8.f32.f16.f16.f32", 95); });
  EXPECT_NE(why.find("unknown architecture 'sm_95'"), std::string::npos) << why;
  EXPECT_NE(why.find("sm_90"), std::string::npos) << why;
}

// Before: qualifiers were erased anywhere in the name and leading zeros were read as a number.
TEST(ApiMisuse, LenientNamesAreRejected) {
  EXPECT_THROW(find_instruction("mma.m16n8.rowk8.f32.f16.f16.f32", 90), UnknownInstruction);
  EXPECT_THROW(parse_instruction("mma.m16n8.rowk8.f32.f16.f16.f32"), UnknownInstruction);
  EXPECT_THROW(find_instruction("mma.m16n8k8.f32.f16.f16.f32.syncsync", 90), UnknownInstruction);
  for (const char* arch : {"sm_090", "sm_0", "sm_", "sm_90aa", "sm_+90", "SM_90"})
    EXPECT_NE(error_of([&] { parse_arch(arch); }).find("unknown architecture"), std::string::npos) << arch;
  // The documented spellings still work.
  EXPECT_EQ(find_instruction("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 90).name,
            "mma.m16n8k8.f32.f16.f16.f32");
  EXPECT_EQ(parse_arch("sm_90a"), 90);
  EXPECT_EQ(parse_arch("sm_100"), 100);
}

// Before: lead = exponent + bit_length - 1 wrapped near INT_MAX (the magnitude was then shifted
// left by ~2^31 bits) and quantum - exponent wrapped near INT_MIN. Every int exponent is a value:
// far above the largest finite one it overflows, far below the smallest it rounds to zero.
TEST(ApiMisuse, RoundPackTakesEveryIntExponent) {
  for (Format f : {Format::fp32, Format::fp16, Format::bf16, Format::e4m3, Format::e5m2}) {
    using u128 = unsigned __int128;
    for (u128 mag : {u128{1}, u128{3}, ~u128{0}}) {
      for (int e : {INT_MAX, INT_MAX - 1, INT_MAX - 200}) {
        EXPECT_EQ(round_pack(f, false, mag, e, false, Rounding::nearest_even), infinity_bits(f, false)) << name_of(f);
        EXPECT_EQ(round_pack(f, true, mag, e, true, Rounding::toward_zero), max_finite_bits(f, true)) << name_of(f);
        EXPECT_EQ(round_pack(f, false, mag, e, false, Rounding::nearest_even, true), max_finite_bits(f, false));
      }
      for (int e : {INT_MIN, INT_MIN + 1, INT_MIN + 200}) {
        EXPECT_EQ(round_pack(f, false, mag, e, false, Rounding::nearest_even), zero_bits(f, false)) << name_of(f);
        EXPECT_EQ(round_pack(f, true, mag, e, true, Rounding::toward_zero), zero_bits(f, true)) << name_of(f);
      }
    }
    // The 64-bit arithmetic changes nothing in range: 2^emax and the smallest subnormal.
    EXPECT_EQ(round_pack(f, false, 1, spec(f).emax(), false, Rounding::nearest_even),
              encode(f, std::ldexp(1.0, spec(f).emax())));
    const int tiny = spec(f).emin() - spec(f).frac_bits;
    EXPECT_EQ(round_pack(f, false, 1, tiny, false, Rounding::nearest_even), encode(f, std::ldexp(1.0, tiny)));
  }
}

// Before: (K + in.k - 1) / in.k wrapped for K near INT_MAX (UB; a release build then threw
// "cannot create std::vector larger than max_size()"). An empty D needs nothing sized by K.
TEST(ApiMisuse, GemmWithKNearIntMaxDoesNotWrap) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.f16.f16.f32", 90);
  const Model& model = builtin_model(90);
  std::vector<std::uint32_t> none;
  EXPECT_TRUE(gemm(model, in, 0, 0, INT_MAX, none, none, none).empty());
  EXPECT_TRUE(gemm(model, in, 0, 0, INT_MAX - 3, none, none, none).empty());
  // With rows the sizes are checked (A would need INT_MAX elements), not allocated.
  const std::string why = error_of([&] { gemm(model, in, 1, 1, INT_MAX, none, none, {0}); });
  EXPECT_NE(why.find("A has 0 elements, expected M×K"), std::string::npos) << why;
  GemmOptions opt;
  opt.k_order = {0};
  EXPECT_THROW(gemm(model, in, 0, 0, INT_MAX, none, none, none, opt), std::invalid_argument);
}

// Before: a hand-built Instruction's out-of-range Format indexed past the format table in gemm
// (storage_mask) and mma_element; now the entry points check the formats once per call.
TEST(ApiMisuse, AHandBuiltInstructionWithABadFormatIsRejectedOncePerCall) {
  Instruction in = find_instruction("mma.m16n8k16.f32.f16.f16.f32", 90);
  const Model& model = builtin_model(90);
  const std::vector<std::uint32_t> a(16, 0x3c00), b(16, 0x3c00);
  EXPECT_EQ(mma_element(model, in, a, b, 0), 0x41800000u);  // 16 × 1 × 1
  in.a_type = static_cast<Format>(77);
  std::string why = error_of([&] { mma_element(model, in, a, b, 0); });
  EXPECT_NE(why.find("a_type: invalid Format value 77"), std::string::npos) << why;
  why = error_of([&] { gemm(model, in, 1, 1, 16, a, b, {0}); });
  EXPECT_NE(why.find("a_type: invalid Format value 77"), std::string::npos) << why;
  EXPECT_THROW(compile_plan(model, in), std::invalid_argument);
  in.a_type = Format::fp16;
  in.d_type = static_cast<Format>(200);
  EXPECT_THROW(gemm(model, in, 1, 1, 16, a, b, {0}), std::invalid_argument);
}

// Before: mma_element's per-thread plan was keyed on the name and C's type only, so a
// hand-built instruction reusing a name got the previous plan's operand formats.
TEST(ApiMisuse, TheCachedPlanIsNotReusedForADifferentInstructionOfTheSameName) {
  const Instruction f16 = find_instruction("mma.m16n8k16.f32.f16.f16.f32", 90);
  Instruction bf16 = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90);
  bf16.name = f16.name;
  const DatapathParams& p = builtin_model(90).params_for(f16);
  const std::vector<std::uint32_t> one_f16(16, 0x3c00), one_bf16(16, 0x3f80);
  EXPECT_EQ(mma_element(p, f16, one_f16, one_f16, 0), 0x41800000u);
  EXPECT_EQ(mma_element(p, bf16, one_bf16, one_bf16, 0), 0x41800000u);
}
