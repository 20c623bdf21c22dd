// The fast path on Blackwell's block-scaled instructions equals the reference, bit for bit.
// gemm is the entry point that carries scales to the fast kernel (folded into the exponent
// planes), so the laws are stated on GEMMs: the fast GEMM equals the reference GEMM
// (GemmOptions::Path::reference) for every scaled instruction of sm_100 and sm_120, every input
// distribution, random, extreme and NaN scales (ue8m0 and ue4m3), random k_order, split_k and
// thread counts; and each element of a GEMM built from hard cases equals the reference datapath
// on that element's row, column and scale vectors.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <numeric>
#include <tuple>
#include <utility>

#include "tcnum/core/gemm.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "test_support.hpp"

namespace tcnum {
namespace {

// One block-scaled instruction per (family, kind, K, A, B, scale block and type): M and N only
// repeat the same elements.
std::vector<Instruction> scaled_instructions(int sm) {
  std::map<std::tuple<Family, std::string, int, Format, Format, int, Format>, Instruction> seen;
  for (const Instruction& in : instructions_for(sm))
    if (in.block_scaled())
      seen.emplace(std::make_tuple(in.family, in.kind, in.k, in.a_type, in.b_type, in.scale_block, in.scale_type), in);
  std::vector<Instruction> out;
  for (auto& [key, in] : seen) out.push_back(in);
  return out;
}

// A block-scaled instruction of sm_100 or sm_120, and its architecture.
std::pair<int, Instruction> pick_scaled_instruction() {
  const int sm = *rc::gen::element(100, 120);
  const auto all = scaled_instructions(sm);
  return {sm, *rc::gen::elementOf(all)};
}

// A scale 2^e·(1 + f) with e in [-4, 4] and a random fraction f (none for ue8m0).
std::uint32_t near_unit_scale(Format f) {
  const FormatSpec& s = spec(f);
  const auto biased = static_cast<std::uint32_t>(s.bias + *rc::gen::inRange(-4, 5));
  return (biased << s.frac_bits) | *rc::gen::inRange<std::uint32_t>(0, 1u << s.frac_bits);
}

// A scale: the generator's draw, or any pattern (NaN included), an extreme one (the smallest,
// ue8m0's 2^-127, or zero; the largest) or NaN.
std::uint32_t pick_scale(Format f, std::uint32_t drawn) {
  const std::uint32_t largest = max_finite_bits(f, false);
  switch (*rc::gen::weightedElement<int>({{6, 0}, {2, 1}, {2, 2}, {1, 3}})) {
    case 0: return drawn;
    case 1: return *rc::gen::inRange<std::uint32_t>(0, 1u << spec(f).value_bits());
    case 2: return *rc::gen::element<std::uint32_t>(0u, 1u, largest - 1, largest);
    default: return canonical_nan(f);
  }
}

struct ScaledGemm {
  int m = 0, n = 0, k = 0;
  std::vector<std::uint32_t> a, b, c;
  BlockScales scales;
};

// Operands of an m×n×k GEMM drawn from `dist`'s cases (the MPFR-free generators every build has,
// tcnum/fuzz/generators.hpp; `model` is the model under test, which `boundary` reads): element
// (i, kk) of A from case i's row, (kk, j) of B from case j's column; each scale near 1 or, through
// pick_scale, any pattern, an extreme or NaN.
ScaledGemm draw_gemm(const Instruction& in, const DatapathParams& model, const std::string& dist, int m, int n, int steps,
                     std::uint64_t seed) {
  ScaledGemm g;
  g.m = m, g.n = n, g.k = steps * in.k;
  const auto rows = static_cast<std::size_t>(m), cols = static_cast<std::size_t>(n), K = static_cast<std::size_t>(g.k);
  const std::size_t ik = static_cast<std::size_t>(in.k), count = (rows + cols) * static_cast<std::size_t>(steps);
  std::vector<std::uint32_t> ca(count * ik), cb(count * ik), cc(count);
  Instruction unscaled = in;  // the generators draw elements; the scales come below
  unscaled.scale_block = 0;
  fuzz::generate(unscaled, model, dist, seed, count, ca.data(), cb.data(), cc.data());
  // Case t's row of A starts at ca[t·ik]; case of (who, kk): who's cases are steps in a row.
  auto at = [&](const std::vector<std::uint32_t>& v, std::size_t who, std::size_t kk) {
    return v[(who * static_cast<std::size_t>(steps) + kk / ik) * ik + kk % ik];
  };
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t kk = 0; kk < K; ++kk) g.a.push_back(at(ca, i, kk));
  for (std::size_t kk = 0; kk < K; ++kk)
    for (std::size_t j = 0; j < cols; ++j) g.b.push_back(at(cb, rows + j, kk));
  for (std::size_t t = 0; t < rows * cols; ++t) g.c.push_back(cc[(t % rows) * static_cast<std::size_t>(steps)]);
  const std::size_t KS = K / static_cast<std::size_t>(in.scale_block);
  for (std::size_t t = 0; t < (rows + cols) * KS; ++t) {
    const std::uint32_t scale = pick_scale(in.scale_type, near_unit_scale(in.scale_type));
    (t < rows * KS ? g.scales.a : g.scales.b).push_back(scale);
  }
  return g;
}

// k_order (identity or reversed), split_k and threads drawn for `steps` k-steps.
GemmOptions pick_options(int steps) {
  GemmOptions opt;
  opt.k_order.resize(static_cast<std::size_t>(steps));
  std::iota(opt.k_order.begin(), opt.k_order.end(), 0);
  if (*rc::gen::arbitrary<bool>()) std::reverse(opt.k_order.begin(), opt.k_order.end());
  opt.split_k = *rc::gen::inRange(1, steps + 1);
  opt.threads = *rc::gen::inRange(1, 3);
  return opt;
}

RC_GTEST_PROP(FastPathScaled, GemmEqualsReferenceGemm, ()) {
  const auto [sm, in] = pick_scaled_instruction();
  const auto dists = fuzz::distribution_names();
  const std::string dist = *rc::gen::elementOf(dists);
  const int steps = *rc::gen::inRange(1, 5);
  const ScaledGemm g = draw_gemm(in, builtin_model(sm).params_for(in), dist, *rc::gen::inRange(1, 20), *rc::gen::inRange(1, 40), steps,
                                 *rc::gen::arbitrary<std::uint32_t>());
  GemmOptions opt = pick_options(steps);
  const Model& model = builtin_model(sm);
  const auto fast = gemm(model, in, g.m, g.n, g.k, g.a, g.b, g.c, g.scales, opt);
  opt.path = GemmOptions::Path::reference;
  RC_ASSERT(fast == gemm(model, in, g.m, g.n, g.k, g.a, g.b, g.c, g.scales, opt));
  RC_TAG(compile_plan(model, in).fast ? "fast plan" : "reference-only plan");
}

// Scale rules near the built-in ones (kept bits, block length, scale_group, floor, zero signs
// changed): whatever the plan compiles to (fast, or the reference where the planes cannot hold
// it), the fast GEMM equals the reference GEMM.
RC_GTEST_PROP(FastPathScaled, PerturbedScaleRulesEqualReferenceGemm, ()) {
  const auto [sm, in] = pick_scaled_instruction();
  DatapathParams p = builtin_model(sm).params_for(in);
  p.frac_bits = *rc::gen::inRange(8, 40);
  p.block_size = *rc::gen::element(0, 16, 32, 64);
  p.scale_group = *rc::gen::element(1, 2, 4, 8, 16);
  if (*rc::gen::arbitrary<bool>()) p.align_exponent_floor = *rc::gen::inRange(-160, 20);
  if (*rc::gen::arbitrary<bool>()) p.negative_zero_results = !p.negative_zero_results;
  const Model model{"perturbed", sm, "", {ModelRule{std::nullopt, std::nullopt, std::nullopt, p, "test", false, {}, std::nullopt}}};
  MmaPlan plan;
  try {
    plan = compile_plan(p, in);
  } catch (const std::invalid_argument&) {
    RC_DISCARD("no plan: the scale group does not divide the block");
  }
  const auto dists = fuzz::distribution_names();
  const int steps = *rc::gen::inRange(1, 4);
  const ScaledGemm g = draw_gemm(in, p, *rc::gen::elementOf(dists), *rc::gen::inRange(1, 12), *rc::gen::inRange(1, 24),
                                 steps, *rc::gen::arbitrary<std::uint32_t>());
  GemmOptions opt = pick_options(steps);
  const auto fast = gemm(model, in, g.m, g.n, g.k, g.a, g.b, g.c, g.scales, opt);
  opt.path = GemmOptions::Path::reference;
  RC_ASSERT(fast == gemm(model, in, g.m, g.n, g.k, g.a, g.b, g.c, g.scales, opt));
  RC_TAG(plan.fast ? (plan.scaled_groups ? "fast, scaled groups" : "fast, scales in exponents") : "reference-only plan");
}

// Hard cases (specials, cancelling pairs, sparse products; test::pick_case) on the diagonal of
// a one-step GEMM: element (i, i) is case i's row, column, C and scale vectors, and equals
// the reference datapath on them.
RC_GTEST_PROP(FastPathScaled, HardCasesEqualReferenceElements, ()) {
  const auto [sm, in] = pick_scaled_instruction();
  const int count = *rc::gen::inRange(1, 9);
  const auto n = static_cast<std::size_t>(count), K = static_cast<std::size_t>(in.k);
  const auto KS = static_cast<std::size_t>(in.scales_per_row());
  std::vector<Case> cases;
  ScaledGemm g;
  g.m = g.n = count, g.k = in.k;
  g.a.resize(n * K), g.b.resize(K * n), g.c.resize(n * n), g.scales.a.resize(n * KS), g.scales.b.resize(KS * n);
  for (std::size_t i = 0; i < n; ++i) {
    Case pc = test::pick_case(in, *rc::gen::inRange(0, 3));
    for (std::size_t s = 0; s < KS; ++s) {
      pc.scale_a.push_back(pick_scale(in.scale_type, near_unit_scale(in.scale_type)));
      pc.scale_b.push_back(pick_scale(in.scale_type, near_unit_scale(in.scale_type)));
    }
    for (std::size_t kk = 0; kk < K; ++kk) g.a[i * K + kk] = pc.a[kk], g.b[kk * n + i] = pc.b[kk];
    for (std::size_t s = 0; s < KS; ++s) g.scales.a[i * KS + s] = pc.scale_a[s], g.scales.b[s * n + i] = pc.scale_b[s];
    for (std::size_t j = 0; j < n; ++j) g.c[i * n + j] = pc.c;
    cases.push_back(pc);
  }
  const Model& model = builtin_model(sm);
  const auto d = gemm(model, in, g.m, g.n, g.k, g.a, g.b, g.c, g.scales);
  const MmaPlan plan = compile_plan(model, in);
  for (std::size_t i = 0; i < n; ++i) {
    const Case& pc = cases[i];
    const std::uint32_t want = mma_element(plan, pc.a, pc.b, pc.c, pc.scale_a, pc.scale_b, Datapath::reference);
    RC_LOG() << in.name << " case " << i << ": fast " << test::hex(d[i * n + i]) << " reference " << test::hex(want) << "\n";
    RC_ASSERT(d[i * n + i] == want);
  }
}

// Every block-scaled instruction of sm_100 and sm_120 compiles to the fast kernel.
TEST(FastPathScaled, EveryScaledInstructionHasAFastPlan) {
  for (int sm : {100, 120})
    for (const Instruction& in : scaled_instructions(sm))
      EXPECT_TRUE(compile_plan(builtin_model(sm), in).fast) << in.name;
}

}  // namespace
}  // namespace tcnum
