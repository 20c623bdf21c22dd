// Laws of the datapath, as RapidCheck properties over raw bit patterns (weighted toward
// special values; RapidCheck prints the seed and a RC_PARAMS="reproduce=..." on failure):
//  (a) the exact model is the correctly rounded c + sum a_k b_k (MPFR), every type combination;
//  (b) a single nonzero product among zeros gives the correctly rounded product;
//  (c) permuting products inside a block never changes a real model's result, while
//      permuting across blocks can (a counterexample is searched for deterministically);
//  (d) NaN in -> canonical NaN out; Inf - Inf and Inf * 0 -> NaN, on every built-in model.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "tcnum/core/plan.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "tcnum/reference/mpfr_reference.hpp"
#include "test_support.hpp"

using namespace tcnum;
using tcnum::Case;

namespace {

// The canonical NaN NVIDIA writes, by D's format (as the PTX ISA / hardware define it).
std::uint32_t expected_nan(Format d) {
  switch (d) {
    case Format::fp32: return 0x7fffffffu;
    case Format::fp16: return 0x7fffu;
    default: ADD_FAILURE() << "unexpected D format " << name_of(d); return 0;
  }
}

std::string show(const Instruction& in, const Case& pc) {
  std::ostringstream os;
  os << in.name << std::hex << " a=[";
  for (auto v : pc.a) os << " " << v;
  os << " ] b=[";
  for (auto v : pc.b) os << " " << v;
  os << " ] c=" << pc.c;
  return os.str();
}

const std::vector<Instruction>& combos() {
  static const std::vector<Instruction> v = test::distinct_type_combinations();
  return v;
}

// Instructions with their built-in models; several have K spanning 2+ blocks.
struct ModelCase {
  int sm;
  const char* name;
};
void showValue(const ModelCase& mc, std::ostream& os) { os << "sm_" << mc.sm << " " << mc.name; }

constexpr ModelCase kBlocked[] = {
    {90, "mma.m16n8k16.f32.f16.f16.f32"},   // one 16-product block
    {90, "mma.m16n8k16.f16.f16.f16.f16"},
    {80, "mma.m16n8k16.f32.f16.f16.f32"},   // two 8-product blocks
    {80, "mma.m16n8k16.f32.bf16.bf16.f32"},
    {80, "mma.m16n8k8.f32.tf32.tf32.f32"},  // two 4-product blocks
    {75, "mma.m16n8k8.f16.f16.f16.f16"},
    {70, "mma.m8n8k4.f32.f16.f16.f32"},
    {89, "mma.m16n8k32.f32.e4m3.e5m2.f32"},
    {90, "mma.m16n8k32.f32.e5m2.e4m3.f32"},  // two interleaved 16-product passes, then + C
    {90, "mma.m16n8k16.f16.e4m3.e4m3.f16"},  // two interleaved 8-product passes (f16)
    {90, "wgmma.m64n8k32.f32.e4m3.e4m3"},   // one 32-product block, 13 kept bits
    {90, "wgmma.m64n16k32.f16.e5m2.e5m2"},
    {100, "tcgen05.mma.m64n8k16.f32.bf16.bf16"},
};

// Products per block (a block never straddles two passes): the datapath's schedule.
int block_of(const DatapathParams& p, const Instruction& in) { return block_length(p, in.k); }

// Applies a permutation of positions to a and b.
void permute(Case& pc, const std::vector<int>& perm) {
  Case out = pc;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    out.a[i] = pc.a[perm[i]];
    out.b[i] = pc.b[perm[i]];
  }
  pc = out;
}

// A random permutation that keeps every position inside its block (block_of_pos[i]).
std::vector<int> pick_block_permutation(const std::vector<int>& block_of_pos) {
  const int k = static_cast<int>(block_of_pos.size());
  const auto keys = *rc::gen::container<std::vector<int>>(static_cast<std::size_t>(k), rc::gen::inRange(0, 1000));
  std::vector<int> perm(k);
  for (int i = 0; i < k; ++i) {  // position i takes the i-th member of its block in key order
    std::vector<int> members;
    for (int j = 0; j < k; ++j)
      if (block_of_pos[j] == block_of_pos[i]) members.push_back(j);
    std::vector<int> sorted = members;
    std::stable_sort(sorted.begin(), sorted.end(), [&](int x, int y) { return keys[x] < keys[y]; });
    perm[i] = sorted[std::find(members.begin(), members.end(), i) - members.begin()];
  }
  return perm;
}

std::vector<int> blocks_of(const DatapathParams& p, const Instruction& in) { return product_blocks(p, in.k); }

}  // namespace

// (a) Round to nearest even, and toward zero with saturation off (the IEEE RZ overflow
// rule: max finite), against MPFR. Specials mixed in on a quarter of the cases.
RC_GTEST_PROP(DatapathLaws, ExactModelIsCorrectlyRoundedSum, ()) {
  const Instruction in = *rc::gen::elementOf(combos());
  const int special_weight = *rc::gen::weightedElement<int>({{3, 0}, {1, 1}});
  const Case pc = test::pick_case(in, special_weight);
  const std::uint32_t want = exact_dot_rounded(in.a_type, in.b_type, in.c_type, pc.a, pc.b, pc.c, in.d_type,
                                               Rounding::nearest_even);
  const std::uint32_t got = mma_element(exact_params(), in, pc.a, pc.b, pc.c);
  RC_LOG() << show(in, pc) << std::hex << " want " << want << " got " << got << "\n";
  RC_ASSERT(got == want);

  DatapathParams rz = exact_params();
  rz.block_rounding = rz.output_rounding = Rounding::toward_zero;
  rz.overflow_to_inf = false;
  const std::uint32_t want_rz = exact_dot_rounded(in.a_type, in.b_type, in.c_type, pc.a, pc.b, pc.c, in.d_type,
                                                  Rounding::toward_zero);
  const std::uint32_t got_rz = mma_element(rz, in, pc.a, pc.b, pc.c);
  RC_LOG() << "RZ want " << want_rz << " got " << got_rz << "\n";
  RC_ASSERT(got_rz == want_rz);
}

// (a') The same law focused on finite operands of similar size: cancellation and ties.
RC_GTEST_PROP(DatapathLaws, ExactModelIsCorrectlyRoundedSumFinite, ()) {
  const Instruction in = *rc::gen::elementOf(combos());
  const Case pc = test::pick_case(in, 0);
  const std::uint32_t want = exact_dot_rounded(in.a_type, in.b_type, in.c_type, pc.a, pc.b, pc.c, in.d_type,
                                               Rounding::nearest_even);
  const std::uint32_t got = mma_element(exact_params(), in, pc.a, pc.b, pc.c);
  RC_LOG() << show(in, pc) << std::hex << " want " << want << " got " << got << "\n";
  RC_ASSERT(got == want);
}

// (a'') The law on the generators' distributions (deterministic, all combinations).
TEST(DatapathLaws, ExactModelMatchesMpfrOnEveryDistribution) {
  for (const Instruction& in : combos())
    for (const std::string& dist : fuzz::distribution_names()) {
      int failures = 0;
      for (const Case& g : fuzz::generate_cases(in, exact_params(), dist, 40, 0xabcdef)) {
        const std::uint32_t want = exact_dot_rounded(in.a_type, in.b_type, in.c_type, g.a, g.b, g.c, in.d_type,
                                                     Rounding::nearest_even);
        const std::uint32_t got = mma_element(exact_params(), in, g.a, g.b, g.c);
        if (got != want && failures++ < 3)
          ADD_FAILURE() << show(in, Case{g.a, g.b, g.c}) << " (" << dist << "): want " << std::hex << want
                        << " got " << got;
      }
    }
}

// (b) All products but one are zero (one factor ±0, the other finite), C = ±0: the
// exact model gives the nonzero product correctly rounded into D.
RC_GTEST_PROP(DatapathLaws, SingleProductIsCorrectlyRounded, ()) {
  const Instruction in = *rc::gen::elementOf(combos());
  const int j = *rc::gen::inRange(0, in.k);
  Case pc;
  for (int k = 0; k < in.k; ++k) {
    std::uint32_t x = 0, y = 0;
    if (k == j) {
      do x = test::pick_finite(in.a_type, test::pick_center(in.a_type));
      while (decode(in.a_type, x).is_zero());
      do y = test::pick_finite(in.b_type, test::pick_center(in.b_type));
      while (decode(in.b_type, y).is_zero());
    } else {
      const bool zero_in_a = *rc::gen::arbitrary<bool>();
      const Format zero_f = zero_in_a ? in.a_type : in.b_type;
      const bool zero_sign = *rc::gen::arbitrary<bool>() && !spec(zero_f).fnuz;  // FNUZ: the -0 pattern is NaN
      x = zero_in_a ? test::pattern(in.a_type, zero_sign, 0, 0) : test::pick_finite(in.a_type, 0);
      y = zero_in_a ? test::pick_finite(in.b_type, 0) : test::pattern(in.b_type, zero_sign, 0, 0);
    }
    pc.a.push_back(x);
    pc.b.push_back(y);
  }
  pc.c = test::pattern(in.c_type, *rc::gen::arbitrary<bool>(), 0, 0);
  MpfrValue p(64), y(32);
  mpfr_set_bits(p, in.a_type, pc.a[j]);
  mpfr_set_bits(y, in.b_type, pc.b[j]);
  MpfrValue product(64);  // mpfr_set_bits sets 32 bits of precision: an f32 x f32 product needs 48
  mpfr_mul(product, p, y, MPFR_RNDN);  // exact: at most 48 significant bits
  const std::uint32_t want = mpfr_round_bits(in.d_type, product, Rounding::nearest_even);
  const std::uint32_t got = mma_element(exact_params(), in, pc.a, pc.b, pc.c);
  RC_LOG() << show(in, pc) << std::hex << " want " << want << " got " << got << "\n";
  RC_ASSERT(got == want);
}

// (b') The schedule: a permutation of 0..K-1, pass by pass (pass p takes the products k with
// (k / interleave) % passes == p, ascending), cut into equal blocks that never straddle a pass.
TEST(DatapathLaws, ProductScheduleIsPassByPassAndBlocksAreEqual) {
  for (int k : {4, 8, 16, 32, 64})
    for (int passes : {1, 2, 4})
      for (int il : {1, 2, 4, 8})
        for (int bs : {0, 1, 2, 4, 8, 16, 64}) {
          if (k % (passes * il) != 0) continue;
          DatapathParams p;
          p.k_passes = passes, p.pass_interleave = il, p.block_size = bs;
          const std::vector<int> order = product_schedule(p, k);
          const std::vector<int> ids = product_blocks(p, k);
          const int len = block_length(p, k);
          if ((k / passes) % len != 0) continue;
          ASSERT_EQ(static_cast<int>(order.size()), k);
          std::vector<int> seen(k, 0);
          for (int j = 0; j < k; ++j) {
            ++seen[order[j]];
            const int pass = j / (k / passes);
            EXPECT_EQ((order[j] / il) % passes, pass) << "k " << k << " passes " << passes << " il " << il;
            if (j > 0 && j % (k / passes) != 0) EXPECT_LT(order[j - 1], order[j]);
            EXPECT_EQ(ids[order[j]], j / len);
            EXPECT_EQ(j / len * len / (k / passes), pass);  // a block's first product shares its pass
          }
          EXPECT_EQ(seen, std::vector<int>(k, 1));
          EXPECT_EQ(len, bs <= 0 ? k / passes : std::min(bs, k / passes));
        }
}

// (c) Products are fused per block: their order inside a block cannot matter.
RC_GTEST_PROP(DatapathLaws, ReorderingInsideABlockChangesNothing, ()) {
  const ModelCase mc = *rc::gen::elementOf(std::vector<ModelCase>(std::begin(kBlocked), std::end(kBlocked)));
  const Instruction in = find_instruction(mc.name, mc.sm);
  const Model& model = builtin_model(mc.sm);
  const DatapathParams& p = model.params_for(in);
  const int special_weight = *rc::gen::weightedElement<int>({{4, 0}, {1, 1}});
  Case pc = test::pick_case(in, special_weight);
  const std::uint32_t before = mma_element(p, in, pc.a, pc.b, pc.c);
  const std::vector<int> perm = pick_block_permutation(blocks_of(p, in));
  permute(pc, perm);
  const std::uint32_t after = mma_element(p, in, pc.a, pc.b, pc.c);
  RC_LOG() << "sm_" << mc.sm << " " << show(in, pc) << std::hex << " before " << before << " after " << after << "\n";
  RC_ASSERT(before == after);
}

// (c') The exact model has one block: any order gives the same result.
RC_GTEST_PROP(DatapathLaws, ExactModelIgnoresOrder, ()) {
  const Instruction in = *rc::gen::elementOf(combos());
  Case pc = test::pick_case(in, *rc::gen::weightedElement<int>({{3, 0}, {1, 1}}));
  const std::uint32_t before = mma_element(exact_params(), in, pc.a, pc.b, pc.c);
  permute(pc, pick_block_permutation(std::vector<int>(in.k, 0)));
  RC_ASSERT(mma_element(exact_params(), in, pc.a, pc.b, pc.c) == before);
}

// (c'') Across blocks order does matter: search the generators' cases for one whose
// result changes when products move between blocks, deterministically.
TEST(DatapathLaws, ReorderingAcrossBlocksCanChangeTheResult) {
  int found = 0;
  for (const ModelCase& mc : kBlocked) {
    const Instruction in = find_instruction(mc.name, mc.sm);
    const DatapathParams& p = builtin_model(mc.sm).params_for(in);
    const int block = block_of(p, in);
    if (block >= in.k) continue;  // one block: nothing to move across
    bool this_one = false;
    for (const char* dist : {"cancel", "spread", "normal"}) {
      for (const Case& g : fuzz::generate_cases(in, p, dist, 400, 2024)) {
        Case pc{g.a, g.b, g.c};
        const std::uint32_t before = mma_element(p, in, pc.a, pc.b, pc.c);
        // Shift every product by half a block (by one interleave step between passes):
        // crosses blocks.
        const int shift = p.k_passes > 1 ? p.pass_interleave : block / 2;
        std::vector<int> rotate(in.k);
        for (int i = 0; i < in.k; ++i) rotate[i] = (i + shift) % in.k;
        permute(pc, rotate);
        const std::uint32_t after = mma_element(p, in, pc.a, pc.b, pc.c);
        if (before != after) {
          this_one = true;
          // The exact model is indifferent to the same move.
          EXPECT_EQ(mma_element(exact_params(), in, pc.a, pc.b, pc.c),
                    mma_element(exact_params(), in, g.a, g.b, g.c))
              << show(in, pc);
          break;
        }
      }
      if (this_one) break;
    }
    EXPECT_TRUE(this_one) << "no order-dependent case found for sm_" << mc.sm << " " << mc.name;
    found += this_one;
  }
  EXPECT_GT(found, 0);
}

// (d) A NaN anywhere gives the canonical NaN, whatever else the inputs hold.
RC_GTEST_PROP(DatapathLaws, NaNInCanonicalNaNOut, ()) {
  const int sm = *rc::gen::elementOf(known_archs());
  const Model& model = builtin_model(sm);
  const Instruction in = *rc::gen::elementOf(test::unscaled_instructions_for(sm));
  Case pc = test::pick_case(in, *rc::gen::weightedElement<int>({{3, 0}, {1, 2}}));
  const int where = *rc::gen::inRange(0, 2 * in.k + 1);  // a[0..k), b[0..k), c
  const Format f = where < in.k ? in.a_type : where < 2 * in.k ? in.b_type : in.c_type;
  std::vector<std::uint32_t> nans;
  for (std::uint32_t v : test::special_patterns(f))
    if (decode(f, v).is_nan()) nans.push_back(v);
  const std::uint32_t nan = *rc::gen::elementOf(nans);
  if (where < in.k) pc.a[where] = nan;
  else if (where < 2 * in.k) pc.b[where - in.k] = nan;
  else pc.c = nan;
  RC_LOG() << "sm_" << sm << " " << show(in, pc) << "\n";
  RC_ASSERT(mma_element(model, in, pc.a, pc.b, pc.c) == expected_nan(in.d_type));
  RC_ASSERT(mma_element(exact_params(), in, pc.a, pc.b, pc.c) == expected_nan(in.d_type));
}

// (d') +Inf and -Inf among the addends, or Inf * 0, give the canonical NaN; NaN-free,
// finite otherwise.
RC_GTEST_PROP(DatapathLaws, InfMinusInfAndInfTimesZeroAreNaN, ()) {
  const int sm = *rc::gen::elementOf(known_archs());
  const Model& model = builtin_model(sm);
  std::vector<Instruction> with_inf;
  for (const Instruction& in : test::unscaled_instructions_for(sm))
    if (spec(in.a_type).has_inf || spec(in.b_type).has_inf) with_inf.push_back(in);
  RC_PRE(!with_inf.empty());
  const Instruction in = *rc::gen::elementOf(with_inf);
  Case pc = test::pick_case(in, 0);
  // An infinite factor in A or B (whichever has Inf), times a finite nonzero of the other.
  const bool inf_in_a = spec(in.a_type).has_inf && (!spec(in.b_type).has_inf || *rc::gen::arbitrary<bool>());
  const Format inf_f = inf_in_a ? in.a_type : in.b_type;
  const Format other_f = inf_in_a ? in.b_type : in.a_type;
  const bool inf_sign = *rc::gen::arbitrary<bool>();
  const int i = *rc::gen::inRange(0, in.k);
  const std::uint32_t inf = test::pattern(inf_f, inf_sign, test::ones(spec(inf_f).exp_bits), 0);
  const int how = *rc::gen::inRange(0, 3);  // 0: Inf * 0; 1: opposite Inf in C; 2: opposite Inf product
  std::uint32_t other = test::pattern(other_f, *rc::gen::arbitrary<bool>(), 0, 0);  // ±0
  if (how != 0) other = test::pattern(other_f, false, static_cast<std::uint32_t>(spec(other_f).bias), 0);  // +1
  (inf_in_a ? pc.a : pc.b)[i] = inf;
  (inf_in_a ? pc.b : pc.a)[i] = other;
  if (how == 1) {
    pc.c = test::pattern(in.c_type, !inf_sign, test::ones(spec(in.c_type).exp_bits), 0);
  } else if (how == 2) {
    RC_PRE(in.k >= 2);
    const int j = (i + 1 + *rc::gen::inRange(0, in.k - 1)) % in.k;
    (inf_in_a ? pc.a : pc.b)[j] = inf;
    (inf_in_a ? pc.b : pc.a)[j] = test::pattern(other_f, true, static_cast<std::uint32_t>(spec(other_f).bias), 0);
  }
  RC_LOG() << "sm_" << sm << " how=" << how << " " << show(in, pc) << "\n";
  RC_ASSERT(mma_element(model, in, pc.a, pc.b, pc.c) == expected_nan(in.d_type));
  RC_ASSERT(mma_element(exact_params(), in, pc.a, pc.b, pc.c) == expected_nan(in.d_type));
}

// (e) C after the products (addend after_products) and its companions, the features AMD's CDNA3
// models use (docs/models.md §10). Each law pins a parameter to the value where it must vanish.
namespace {

// CDNA3's group datapath (builtin gfx942 f16 rule) on an f16 instruction of K = 16.
DatapathParams after_products_params() {
  return builtin_model(parse_arch("gfx942")).params_for(find_instruction("v_mfma_f32_16x16x16_f16", parse_arch("gfx942")));
}

// An f16 case of finite values within 2^-2..2^2 and C in f32 within 2^-3..2^3 (or ±0): with
// 100 kept fraction bits and 64-bit round-down widths no term loses a bit.
Case narrow_f16_case(int k) {
  Case pc;
  const auto value = [](Format f, int bias, int spread) {
    if (*rc::gen::inRange(0, 8) == 0) return test::pattern(f, *rc::gen::arbitrary<bool>(), 0, 0);
    const auto field = static_cast<std::uint32_t>(bias + *rc::gen::inRange(-spread, spread + 1));
    return test::pattern(f, *rc::gen::arbitrary<bool>(), field, *rc::gen::inRange<std::uint32_t>(0, 1u << spec(f).frac_bits));
  };
  for (int i = 0; i < k; ++i) {
    pc.a.push_back(value(Format::fp16, 15, 2));
    pc.b.push_back(value(Format::fp16, 15, 2));
  }
  pc.c = value(Format::fp32, 127, 3);
  return pc;
}

}  // namespace

// (e1) Widths beyond every term's span: C after the products is the exact sum, correctly rounded.
RC_GTEST_PROP(DatapathLaws, AfterProductsWithWideWidthsIsTheExactSum, ()) {
  const Instruction in = find_instruction("v_mfma_f32_16x16x16_f16", parse_arch("gfx942"));
  DatapathParams p = after_products_params();
  p.frac_bits = 100, p.block_size = 0, p.sum_round_down_bits = 64, p.addend_round_down_bits = 64;
  p.product_split = *rc::gen::elementOf(std::vector<int>{1, 2, 4});
  const Case pc = narrow_f16_case(in.k);
  const std::uint32_t want = exact_dot_rounded(in.a_type, in.b_type, in.c_type, pc.a, pc.b, pc.c, in.d_type,
                                               Rounding::nearest_even);
  const std::uint32_t got = mma_element(p, in, pc.a, pc.b, pc.c);
  RC_LOG() << show(in, pc) << std::hex << " want " << want << " got " << got << "\n";
  RC_ASSERT(got == want);
}

// (e2) A drop threshold beyond every exponent distance drops nothing: it equals no threshold.
RC_GTEST_PROP(DatapathLaws, AddendDropBeyondTheRangeEqualsNoDrop, ()) {
  const Instruction in = find_instruction("v_mfma_f32_16x16x16_bf16", parse_arch("gfx942"));
  DatapathParams p = after_products_params();
  p.product_split = *rc::gen::elementOf(std::vector<int>{1, 2});
  DatapathParams never = p, far = p;
  far.addend_drop_binades = 1000;  // bf16 products and f32 C lie within 2^-300..2^300
  const Case pc = test::pick_case(in, *rc::gen::weightedElement<int>({{3, 0}, {1, 1}}));
  RC_LOG() << show(in, pc) << "\n";
  RC_ASSERT(mma_element(never, in, pc.a, pc.b, pc.c) == mma_element(far, in, pc.a, pc.b, pc.c));
}

// (e3) The split of one product is no split; a split with every bit kept is no split either.
RC_GTEST_PROP(DatapathLaws, SplitOfSingleProductsOrExactSumsIsNoSplit, ()) {
  const Instruction in = find_instruction("v_mfma_f32_16x16x16_f16", parse_arch("gfx942"));
  DatapathParams whole = after_products_params();
  if (*rc::gen::arbitrary<bool>()) whole.block_size = 1;  // groups of one product
  else whole.frac_bits = 100;  // f16 products span < 100 bits: each part's sum is exact
  DatapathParams split = whole;
  split.product_split = *rc::gen::elementOf(std::vector<int>{2, 4});
  const Case pc = test::pick_case(in, *rc::gen::weightedElement<int>({{3, 0}, {1, 1}}));
  RC_LOG() << show(in, pc) << " F=" << whole.frac_bits << " block " << whole.block_size << "\n";
  RC_ASSERT(mma_element(whole, in, pc.a, pc.b, pc.c) == mma_element(split, in, pc.a, pc.b, pc.c));
}

// (e4) Zeros aligned below every nonzero term, and product overflow where no f16 product can
// overflow f32, change nothing (zero results are +0 in both).
RC_GTEST_PROP(DatapathLaws, ZeroExponentBelowAllTermsAndUnreachableOverflowChangeNothing, ()) {
  const Instruction in = find_instruction("v_mfma_f32_16x16x16_f16", parse_arch("gfx942"));
  DatapathParams base = *rc::gen::arbitrary<bool>() ? after_products_params() : builtin_model(80).params_for(
                                                                                  find_instruction("mma.m16n8k16.f32.f16.f16.f32", 80));
  base.negative_zero_results = false;
  base.zero_operand_exponent.reset();
  base.products_overflow_to_inf = false;
  DatapathParams with = base;
  with.zero_operand_exponent = -500;  // f16 products >= 2^-48, f32 C >= 2^-149; zero times any: < -400
  with.products_overflow_to_inf = true;  // f16 products < 2^32
  const Case pc = test::pick_case(in, *rc::gen::weightedElement<int>({{3, 0}, {1, 1}}));
  RC_LOG() << show(in, pc) << "\n";
  RC_ASSERT(mma_element(base, in, pc.a, pc.b, pc.c) == mma_element(with, in, pc.a, pc.b, pc.c));
}

// (e5) An f32 MFMA is a chain of IEEE fused multiply-adds in k order (std::fmaf, RNE).
RC_GTEST_PROP(DatapathLaws, F32MfmaIsAnFmaChain, ()) {
  const int arch = *rc::gen::elementOf(std::vector<int>{parse_arch("gfx908"), parse_arch("gfx90a"), parse_arch("gfx942")});
  std::vector<Instruction> f32;
  for (const Instruction& in : instructions_for(arch))
    if (in.a_type == Format::fp32) f32.push_back(in);
  const Instruction in = *rc::gen::elementOf(f32);
  const Case pc = test::pick_case(in, *rc::gen::weightedElement<int>({{3, 0}, {1, 1}}));
  float acc = std::bit_cast<float>(pc.c);
  for (int k = 0; k < in.k; ++k) acc = std::fmaf(std::bit_cast<float>(pc.a[k]), std::bit_cast<float>(pc.b[k]), acc);
  const std::uint32_t got = mma_element(builtin_model(arch), in, pc.a, pc.b, pc.c);
  RC_LOG() << arch_name(arch) << " " << show(in, pc) << std::hex << " fmaf " << std::bit_cast<std::uint32_t>(acc)
           << " got " << got << "\n";
  if (std::isnan(acc)) RC_ASSERT(got == expected_nan(Format::fp32));
  else RC_ASSERT(got == std::bit_cast<std::uint32_t>(acc));
}
