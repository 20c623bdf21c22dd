// Blackwell's FP6/FP4 and block-scaled instructions: the catalog (PTX spelling, sm_100 tcgen05 vs
// sm_120 mma.sync), the plan's refusal of the fast kernel, the exact model against MPFR with
// random scale vectors (a law: every term kept and one RNE rounding is the correctly rounded
// c + Σ a·b·sa·sb), and MMA-Sim's scale laws as the built-in models state them.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tcnum/core/detail/fast_program.hpp"  // white-box: the fast kernel alone (fast_element_only)
#include "tcnum/core/dot.hpp"
#include "tcnum/core/gemm.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/reference/mpfr_reference.hpp"
#include "test_support.hpp"

using namespace tcnum;
using tcnum::test::hex;

namespace {

const char* kMxf4nvf4Sm120 = "mma.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3";
const char* kMxf8Sm120 = "mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0";
const char* kMxf4Sm100 = "tcgen05.mma.m128n64k64.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.ue8m0";

std::uint32_t f32_bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

}  // namespace

TEST(BlockScaledCatalog, PtxNamesScalesAndArchitectures) {
  const Instruction nv = find_instruction(std::string("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale."
                                                      "scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"),
                                          120);
  EXPECT_EQ(nv.name, kMxf4nvf4Sm120);
  EXPECT_EQ(nv.scale_block, 16);
  EXPECT_EQ(nv.scale_type, Format::ue4m3);
  EXPECT_EQ(nv.scales_per_row(), 4);
  const Instruction mx = find_instruction(kMxf8Sm120, 120);
  EXPECT_EQ(mx.scale_block, 32);
  EXPECT_EQ(mx.scales_per_row(), 1);
  EXPECT_EQ(mx.a_type, Format::e4m3);
  EXPECT_EQ(mx.b_type, Format::e2m1);
  const Instruction tc = find_instruction(kMxf4Sm100, 100);
  EXPECT_EQ(tc.kind, "mxf4");
  EXPECT_EQ(tc.scales_per_row(), 2);
  EXPECT_FALSE(find_instruction("tcgen05.mma.m64n8k32.kind::f8f6f4.f16.e2m1.e3m2", 100).block_scaled());
  // tcgen05 is not on sm_120, mma.sync's kinds are not on sm_100; the error lists valid names.
  try {
    find_instruction(kMxf4Sm100, 120);
    FAIL() << "tcgen05 accepted on sm_120";
  } catch (const UnknownInstruction& e) {
    EXPECT_NE(std::string(e.what()).find(kMxf4nvf4Sm120), std::string::npos);
  }
  EXPECT_THROW(find_instruction(kMxf4nvf4Sm120, 100), UnknownInstruction);
  EXPECT_THROW(find_instruction("mma.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0", 120),
               UnknownInstruction);  // 4X takes ue4m3
}

// Every kind-spelled instruction compiles to the fast kernel: the dense kind::f8f6f4, mxf8f6f4
// (one term per product, ue8m0 scales folded into the exponent planes) and mxf4/mxf4nvf4
// (scaled 16-product groups of fixed-point FP4 operands); a rule the planes cannot hold keeps
// the reference and says why.
TEST(BlockScaledCatalog, EveryNewInstructionHasARuleAndAFastPlan) {
  for (int sm : {100, 120}) {
    int seen = 0;
    for (const Instruction& in : instructions_for(sm)) {
      if (in.kind.empty() || in.integer()) continue;  // kind::i8: exact, no datapath (test_integer_catalog)
      ++seen;
      const MmaPlan plan = compile_plan(builtin_model(sm), in);
      EXPECT_TRUE(plan.fast) << in.name << ": " << plan.reference_only;
      EXPECT_EQ(plan.scales_in_exponents, in.kind == "mxf8f6f4") << in.name;
      EXPECT_EQ(plan.scaled_groups, in.kind == "mxf4" || in.kind == "mxf4nvf4") << in.name;
    }
    EXPECT_GT(seen, 50) << "sm_" << sm;
  }
  // Scaled groups of fp8 operands (a model's choice, not a built-in rule): beyond float's exact
  // integers, so the reference.
  const Instruction mx = find_instruction(kMxf8Sm120, 120);
  DatapathParams grouped = builtin_model(120).params_for(mx);
  grouped.scale_group = 16;
  EXPECT_EQ(compile_plan(grouped, mx).reference_only, "scaled groups of operands with NaN/Inf");
  // A scaled plan's kernel needs the scales: the entry points without them still refuse it.
  const MmaPlan plan = compile_plan(builtin_model(120), mx);
  const std::vector<std::uint32_t> a(32, 0x38), b(32, 0x2);
  std::uint32_t d = 0;
  EXPECT_FALSE(detail::fast_element_only(plan, a, b, 0, d));
  EXPECT_THROW(mma_element(plan, a, b, 0), std::invalid_argument);
  EXPECT_THROW(mma_batch(plan, 1, a.data(), b.data(), &d, &d), std::invalid_argument);
}

TEST(BlockScaledElement, ScalesAreCheckedAndNaNScalesGiveNaN) {
  const Instruction in = find_instruction(kMxf4nvf4Sm120, 120);
  const std::vector<std::uint32_t> a(64, 0x2), b(64, 0x2);  // 1.0 each
  const std::vector<std::uint32_t> one(4, 0x38);           // ue4m3 1.0
  EXPECT_EQ(mma_element(builtin_model(120), in, a, b, 0, one, one), f32_bits(64.0f));
  EXPECT_THROW(mma_element(builtin_model(120), in, a, b, 0), std::invalid_argument);  // no scales
  const std::vector<std::uint32_t> three(3, 0x38);
  EXPECT_THROW(mma_element(builtin_model(120), in, a, b, 0, three, one), std::invalid_argument);
  std::vector<std::uint32_t> nan = one;
  nan[2] = 0x7f;
  EXPECT_EQ(mma_element(builtin_model(120), in, a, b, 0, nan, one), canonical_nan(Format::fp32));
}

// MMA-Sim's mxf4 law: a group's alignment exponent is its scales' alone, so a group of zeros
// with a large scale still truncates C (F = 35 below 2^20 drops C's 2^-20); as one term per
// product (scale_group 1) zero products do not align, and C survives.
TEST(BlockScaledElement, ZeroGroupWithLargeScaleTruncatesC) {
  const Instruction in = find_instruction("mma.m16n8k64.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0", 120);
  const std::vector<std::uint32_t> zeros(64, 0);
  const std::vector<std::uint32_t> sa = {0x7fu + 20, 0x7f}, sb = {0x7f, 0x7f};
  const std::uint32_t c = f32_bits(1.0f + 0x1p-20f);
  DatapathParams p = builtin_model(120).params_for(in);
  ASSERT_EQ(p.scale_group, 16);
  ASSERT_EQ(p.frac_bits, 35);
  EXPECT_EQ(mma_element(p, in, zeros, zeros, c, sa, sb), f32_bits(1.0f));
  p.scale_group = 1;  // the alternative model, one line
  EXPECT_EQ(mma_element(p, in, zeros, zeros, c, sa, sb), c);
}

// Power-of-two (ue8m0) scales commute with the datapath of mxf8f6f4 (scale_group 1): scaling
// both scale vectors by 2^s and C = 0 scales D by 2^(2s) exactly while nothing leaves f32's
// normal range.
RC_GTEST_PROP(BlockScaledLaws, Ue8m0ScalesShiftTheMxf8ResultExactly, ()) {
  const Instruction in = find_instruction(kMxf8Sm120, 120);
  const DatapathParams& p = builtin_model(120).params_for(in);
  std::vector<std::uint32_t> a(32), b(32);
  for (auto& x : a) x = *rc::gen::inRange<std::uint32_t>(0, 0x7f) | *rc::gen::element<std::uint32_t>(0u, 0x80u);  // e4m3, no NaN
  for (auto& x : b) x = *rc::gen::inRange<std::uint32_t>(0, 16);  // every e2m1
  const int s = *rc::gen::inRange(-20, 20);
  const std::vector<std::uint32_t> unit = {0x7f}, scaled = {static_cast<std::uint32_t>(0x7f + s)};
  const std::uint32_t d1 = mma_element(p, in, a, b, 0, unit, unit);
  const std::uint32_t d2 = mma_element(p, in, a, b, 0, scaled, scaled);
  float f1, f2;
  std::memcpy(&f1, &d1, 4);
  std::memcpy(&f2, &d2, 4);
  RC_PRE(f1 == 0.0f || std::fabs(f1) >= 0x1p-80f);
  RC_ASSERT(f2 == std::ldexp(f1, 2 * s));
}

// The exact model (every term kept, one block, RNE) on block-scaled instructions is the correctly
// rounded c + Σ a_k·b_k·sa·sb, for both ways scales enter (per product, per 16-product group).
// Zero results compare by value: a scaled group carries no sign of zero (MMA-Sim writes +0).
RC_GTEST_PROP(BlockScaledLaws, ExactModelMatchesMpfr, ()) {
  const std::vector<std::string> names = {
      kMxf4nvf4Sm120, kMxf8Sm120, "mma.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0",
      "mma.m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m3.f32.ue8m0", kMxf4Sm100,
      "tcgen05.mma.m128n16k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e3m2.ue8m0"};
  const std::string name = *rc::gen::elementOf(names);
  const Instruction in = find_instruction(name, name.rfind("tcgen05", 0) == 0 ? 100 : 120);
  auto operand = [&](Format f) {
    return *rc::gen::container<std::vector<std::uint32_t>>(static_cast<std::size_t>(in.k),
                                                            rc::gen::inRange<std::uint32_t>(0, storage_mask(f) + 1));
  };
  const auto a = operand(in.a_type), b = operand(in.b_type);
  auto scales = [&] {
    const auto n = static_cast<std::size_t>(in.scales_per_row());
    if (in.scale_type == Format::ue4m3)
      return *rc::gen::container<std::vector<std::uint32_t>>(n, rc::gen::inRange<std::uint32_t>(0, 0x80));
    return *rc::gen::container<std::vector<std::uint32_t>>(
        n, rc::gen::weightedOneOf<std::uint32_t>({{4, rc::gen::inRange<std::uint32_t>(0x7f - 30, 0x7f + 30)},
                                                  {1, rc::gen::inRange<std::uint32_t>(0, 0x100)}}));
  };
  const auto sa = scales(), sb = scales();
  const auto c = *rc::gen::weightedOneOf<std::uint32_t>(
      {{3, rc::gen::map(rc::gen::inRange(-20000, 20000), [](int x) { return f32_bits(static_cast<float>(x) / 1024.0f); })},
       {1, rc::gen::arbitrary<std::uint32_t>()}});
  const int group = *rc::gen::elementOf(std::vector<int>{1, 16});
  DatapathParams p = exact_params();
  p.scale_group = group;
  const std::uint32_t got = mma_element(p, in, a, b, c, sa, sb);
  RC_ASSERT(mma_element(compile_plan(p, in), a, b, c, sa, sb, Datapath::reference) == got);  // the plan's schedule: same datapath
  const std::uint32_t want = exact_dot_rounded(in.a_type, in.b_type, Format::fp32, a, b, c,
                                               ScaleVectors{in.scale_type, in.scale_block, sa, sb}, Format::fp32,
                                               Rounding::nearest_even);
  const bool both_zero = ((got | want) & 0x7fffffffu) == 0;
  RC_ASSERT(got == want || both_zero);
}

// Dense kind::f8f6f4 with FP6/FP4 operands: the exact model is the correctly rounded sum.
RC_GTEST_PROP(BlockScaledLaws, DenseFp6Fp4ExactModelMatchesMpfr, ()) {
  std::vector<Instruction> dense;
  for (const Instruction& in : instructions_for(120))
    if (in.kind == "f8f6f4") dense.push_back(in);
  const Instruction in = *rc::gen::elementOf(dense);
  auto operand = [&](Format f) {
    return *rc::gen::container<std::vector<std::uint32_t>>(static_cast<std::size_t>(in.k),
                                                            rc::gen::inRange<std::uint32_t>(0, storage_mask(f) + 1));
  };
  const auto a = operand(in.a_type), b = operand(in.b_type);
  const std::uint32_t c = *rc::gen::inRange<std::uint32_t>(0, storage_mask(in.c_type)) ;
  const std::uint32_t want = exact_dot_rounded(in.a_type, in.b_type, in.c_type, a, b, c, in.d_type, Rounding::nearest_even);
  RC_ASSERT(mma_element(exact_params(), in, a, b, c) == want);
}

// The block-scaled GEMM with exact-model parameters: every element is the chain over its k-steps
// of MPFR's correctly rounded c + Σ a·b·sa·sb (one rounding per instruction), with the scale
// tensors laid out as the PTX ISA's SA[i][k/V] (M × K/V) and SB[k/V][j] (K/V × N).
RC_GTEST_PROP(BlockScaledGemm, ExactModelIsTheChainOfCorrectlyRoundedSteps, ()) {
  const std::vector<std::string> names = {kMxf4nvf4Sm120, kMxf8Sm120,
                                          "mma.m16n8k64.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0"};
  const Instruction in = find_instruction(*rc::gen::elementOf(names), 120);
  Model model{"exact", 120, "exact", {}};
  DatapathParams p = exact_params();
  p.scale_group = *rc::gen::elementOf(std::vector<int>{1, 16});
  model.rules.push_back(ModelRule{std::nullopt, std::nullopt, std::nullopt, p, "test", false, {}, std::nullopt});
  const int m = *rc::gen::inRange(1, 4), n = *rc::gen::inRange(1, 4), steps = *rc::gen::inRange(1, 4);
  const int k = steps * in.k, ks = k / in.scale_block;
  auto raw = [](std::size_t count, Format f) {
    return *rc::gen::container<std::vector<std::uint32_t>>(count, rc::gen::inRange<std::uint32_t>(0, storage_mask(f) + 1));
  };
  auto scales = [&](std::size_t count) {
    if (in.scale_type == Format::ue4m3)
      return *rc::gen::container<std::vector<std::uint32_t>>(count, rc::gen::inRange<std::uint32_t>(0x20, 0x60));
    return *rc::gen::container<std::vector<std::uint32_t>>(count, rc::gen::inRange<std::uint32_t>(0x7f - 10, 0x7f + 10));
  };
  const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
  const auto a = raw(M * K, in.a_type), b = raw(K * N, in.b_type);
  std::vector<std::uint32_t> c(M * N);
  for (auto& x : c) x = f32_bits(static_cast<float>(*rc::gen::inRange(-100, 100)) / 8.0f);
  const BlockScales sc{scales(M * static_cast<std::size_t>(ks)), scales(static_cast<std::size_t>(ks) * N)};
  const auto d = gemm(model, in, m, n, k, a, b, c, sc);
  const auto per = static_cast<std::size_t>(in.scales_per_row()), ik = static_cast<std::size_t>(in.k);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      std::uint32_t acc = c[i * N + j];
      for (std::size_t s = 0; s < static_cast<std::size_t>(steps); ++s) {
        std::vector<std::uint32_t> as(a.begin() + static_cast<std::ptrdiff_t>(i * K + s * ik),
                                      a.begin() + static_cast<std::ptrdiff_t>(i * K + (s + 1) * ik));
        std::vector<std::uint32_t> bs, sas, sbs;
        for (std::size_t kk = s * ik; kk < (s + 1) * ik; ++kk) bs.push_back(b[kk * N + j]);
        for (std::size_t q = s * per; q < (s + 1) * per; ++q) {
          sas.push_back(sc.a[i * static_cast<std::size_t>(ks) + q]);
          sbs.push_back(sc.b[q * N + j]);
        }
        acc = exact_dot_rounded(in.a_type, in.b_type, Format::fp32, as, bs, acc,
                                ScaleVectors{in.scale_type, in.scale_block, sas, sbs}, Format::fp32,
                                Rounding::nearest_even);
      }
      const bool both_zero = ((acc | d[i * N + j]) & 0x7fffffffu) == 0;
      RC_ASSERT(d[i * N + j] == acc || both_zero);
    }
}

TEST(BlockScaledGemm, ScaleTensorsAreRequiredAndChecked) {
  const Instruction in = find_instruction(kMxf4nvf4Sm120, 120);
  const std::vector<std::uint32_t> a(64, 0x2), b(64, 0x2), c(1, 0);
  EXPECT_THROW(gemm(builtin_model(120), in, 1, 1, 64, a, b, c), std::invalid_argument);
  EXPECT_THROW(gemm(builtin_model(120), in, 1, 1, 64, a, b, c, BlockScales{{0x38, 0x38, 0x38}, {0x38, 0x38, 0x38, 0x38}}),
               std::invalid_argument);
  EXPECT_THROW(gemm(builtin_model(120), in, 1, 1, 64, a, b, c, BlockScales{{0x38, 0x38, 0x38, 0x138}, {0x38, 0x38, 0x38, 0x38}}),
               std::invalid_argument);  // 0x138 does not fit ue4m3's byte
  const auto d = gemm(builtin_model(120), in, 1, 1, 64, a, b, c, BlockScales{{0x38, 0x38, 0x38, 0x40}, {0x38, 0x38, 0x38, 0x38}});
  EXPECT_EQ(d[0], f32_bits(48.0f + 32.0f));  // 16·1·1 three times, 16·2 once
  EXPECT_THROW(gemm(builtin_model(90), find_instruction("mma.m16n8k16.f32.f16.f16.f32", 90), 1, 1, 16,
                    std::vector<std::uint32_t>(16, 0), std::vector<std::uint32_t>(16, 0), c, BlockScales{}),
               std::invalid_argument);
}

TEST(BlockScaledModels, ScaleGroupInJsonIsRangeCheckedAndRoundTrips) {
  const Model& m = builtin_model(120);
  const Model back = model_from_json(model_to_json(m));
  ASSERT_EQ(back.rules.size(), m.rules.size());
  for (std::size_t i = 0; i < m.rules.size(); ++i) EXPECT_EQ(back.rules[i].params, m.rules[i].params) << i;
  for (const char* bad : {"0", "65", "1.5", "\"16\""}) {
    const std::string text = std::string(R"({"name": "x", "rules": [{"inputs": "mxf4", "scale_group": )") + bad + "}]}";
    try {
      model_from_json(text);
      ADD_FAILURE() << "accepted scale_group " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("rules[0].scale_group"), std::string::npos) << e.what();
    }
  }
  // A scale_group that does not divide the scale block is refused when the plan is compiled.
  DatapathParams p = m.params_for(find_instruction(kMxf4nvf4Sm120, 120));
  p.scale_group = 32;
  EXPECT_THROW(compile_plan(p, find_instruction(kMxf4nvf4Sm120, 120)), std::invalid_argument);
}

// Scaled groups of e5m2 x e5m2 products span 2^-32 .. 2^32 (68 bits with 16 of them): the plan
// and the reference datapath refuse such a scale_group with a message, before any data is seen;
// e4m3 x e4m3 groups (41 bits at 32 products) are accepted.
TEST(BlockScaledModels, ScaleGroupsTheReferenceCannotSumExactlyAreRefused) {
  const Instruction wide = find_instruction("tcgen05.mma.m128n16k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e5m2.ue8m0", 100);
  DatapathParams p = builtin_model(100).params_for(wide);
  p.block_size = 32;
  p.scale_group = 2;
  try {
    compile_plan(p, wide);
    ADD_FAILURE() << "accepted scale_group 2 on e5m2 x e5m2";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("e5m2 x e5m2: a group's exact sum could exceed 63 bits"), std::string::npos)
        << e.what();
  }
  const std::vector<std::uint32_t> ones(32, 0x3c), unit_scales(1, 127);
  EXPECT_THROW(mma_element(p, wide, ones, ones, 0, unit_scales, unit_scales), std::invalid_argument);
  const Instruction narrow = find_instruction("tcgen05.mma.m128n16k32.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.ue8m0", 100);
  p.scale_group = 32;
  const std::vector<std::uint32_t> e4m3_ones(32, 0x38);
  EXPECT_EQ(mma_element(compile_plan(p, narrow), e4m3_ones, e4m3_ones, 0, unit_scales, unit_scales, Datapath::reference),
            f32_bits(32.0f));
}

// tcgen05 kind::mxf4nvf4 with scale_vec::4X and ue8m0 scales (the PTX ISA's tcgen05 block-scaling
// table allows ue8m0 at 4X; sm_120's mma.sync does not): four scales per row, each over 16
// elements, decoded as ue8m0. With power-of-two scales that both scale formats hold, it gives the
// bits of the ue4m3 form; a scale moves only its own 16 products.
TEST(BlockScaledCatalog, Tcgen05Mxf4nvf4FourXWithUe8m0Scales) {
  const char* ue8 = "tcgen05.mma.m128n64k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.ue8m0";
  const Instruction in = find_instruction(ue8, 100);
  EXPECT_EQ(in.scale_block, 16);
  EXPECT_EQ(in.scale_type, Format::ue8m0);
  EXPECT_EQ(in.scales_per_row(), 4);
  const Instruction nv = find_instruction("tcgen05.mma.m128n64k64.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.ue4m3", 100);
  const Model& m = builtin_model(100);
  std::mt19937 rng(4);
  const std::uint32_t ue8_of[] = {0x7d, 0x7e, 0x7f, 0x80, 0x81}, ue4_of[] = {0x28, 0x30, 0x38, 0x40, 0x48};  // 1/4 .. 4
  long differ = 0;
  for (int t = 0; t < 2000; ++t) {
    std::vector<std::uint32_t> a(64), b(64), sa8(4), sb8(4), sa4(4), sb4(4);
    for (auto& v : a) v = rng() & 0xf;
    for (auto& v : b) v = rng() & 0xf;
    for (int s = 0; s < 4; ++s) {
      const unsigned i = rng() % 5, j = rng() % 5;
      sa8[s] = ue8_of[i], sa4[s] = ue4_of[i], sb8[s] = ue8_of[j], sb4[s] = ue4_of[j];
    }
    const std::uint32_t c = f32_bits(static_cast<float>(static_cast<int>(rng() % 64) - 32));
    differ += mma_element(m, in, a, b, c, sa8, sb8) != mma_element(m, nv, a, b, c, sa4, sb4);
  }
  EXPECT_EQ(differ, 0);
  // 6·2 in group 0 (scale 2 · 1), 1·1.5 in group 2 (scale 1 · 4), C = 1: D = 1 + 24 + 6 = 31.
  std::vector<std::uint32_t> a(64, 0), b(64, 0);
  a[0] = 0x7, b[0] = 0x4, a[32] = 0x2, b[32] = 0x3;
  const std::vector<std::uint32_t> sa{0x80, 0x7f, 0x7f, 0x7f}, sb{0x7f, 0x7f, 0x81, 0x7f};
  EXPECT_EQ(mma_element(m, in, a, b, f32_bits(1.0f), sa, sb), f32_bits(31.0f));
  EXPECT_THROW(find_instruction(ue8, 120), UnknownInstruction);
}
