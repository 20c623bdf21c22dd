// Feature test "align".
// docs/numprobe.md describes the recipe, its verdict rule and its sources.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "features_internal.hpp"

namespace tcnum::features::detail {
namespace {

// align: 2^e - 2^e + 2^(e-j) in one block: the last term survives iff j <= F.

// Narrow formats (FP4/FP6), where the survivor recipe of `blocksize` has no room: a large C joins the
// first block (the C probe above proved it); two equal products at feed positions 0 and q whose sum
// is the last bit an f32 block result keeps survive when one block holds both, and are each cut by
// their block's rounding (RZ, or RNE's tie to even) otherwise. The first q that is cut is Kb. Needs
// F >= 24 (the products must survive the alignment next to C) and f32 C and D.
std::string block_size_by_rounding(Ctx& ctx, FeatureReport& r, int F) {
  const Planner& P = ctx.P;
  const int K = ctx.in.k;
  if (ctx.m.block_size || F < 24 || P.fc != Format::fp32 || P.fd != Format::fp32) return "";
  // Products 2^ep (the smallest power of two with normal factors), C = 2^(ep + 24): a block result
  // keeps 2^(ep + 1) as its last bit, so two products together are kept and one alone is cut.
  const int ep = P.lo;
  const double c_value = std::ldexp(1.0, ep + 24), pair = std::ldexp(1.0, ep + 1);
  const auto c = P.c_bits(c_value);
  const Pair one = P.product_sig(1, 1, ep);
  if (!c || !one) return "";
  std::vector<Case> cs;
  for (int q = 1; q < K; ++q) {
    Case g = P.blank();
    g.c = *c;
    put(g, 0, one);
    put(g, q, one);
    cs.push_back(g);
  }
  const auto out = ctx.eval(cs);
  int kb = K;  // no pair cut: one block of all K
  bool step = true;
  for (int q = 1; q < K; ++q) {
    const u32 d = out[static_cast<std::size_t>(q - 1)];
    const bool together = P.d_is(d, c_value + pair), apart = P.d_is(d, c_value);
    if (!together && !apart) step = false;
    if (apart && kb == K) kb = q;
    if (together && kb != K) step = false;  // contiguous blocks: once apart, always apart
  }
  for (int q : {kb - 1, kb}) {
    if (q < 1 || q >= K) continue;
    ctx.row(r, "C = 2^" + std::to_string(ep + 24) + ", 2^" + std::to_string(ep) + " at products 0 and " + std::to_string(q),
            cs[static_cast<std::size_t>(q - 1)], out[static_cast<std::size_t>(q - 1)],
            q < kb ? "their sum kept: one block" : "both cut: two blocks");
  }
  if (!step) return "";  // not contiguous blocks of one pass: leave Kb unmeasured
  ctx.m.block_size = kb;
  ctx.m.block_size_at_least = kb == K;
  ctx.m.k_passes = 1;
  ctx.m.pass_interleave = 1;
  r.facts.push_back({"block_size_by_rounding", static_cast<std::int64_t>(kb)});
  return " The products span too few binades for the blocksize recipe; rounding at the block ends places Kb = " +
         std::to_string(kb) + (kb == K ? " (all K in one block)." : ".");
}

FeatureReport recipe_align(Ctx& ctx) {
  FeatureReport r = start(ctx, "align");
  const Planner& P = ctx.P;
  const int kb = effective_kb(ctx);
  // The small term is a third product of the block, or C when blocks hold only two products, or
  // when the products span too few binades (FP4/FP6) and C may join their block (not measured
  // otherwise: then only a dropped C, which proves it, gives F).
  const int eS = std::min({P.hi, 100, P.d_emax() + 1});
  auto lowest_small = [&](bool in_c) { return std::max(in_c ? std::max(P.d_emin(), spec(P.fc).emin()) : P.lo, P.d_emin()); };
  bool small_in_c = kb < 3;
  bool c_unproven = false;  // C as the small term without a measurement that it joins block 0
  if (!small_in_c && std::min(80, eS - lowest_small(false)) < 8 && !ctx.m.addend && std::min(80, eS - lowest_small(true)) >= 8)
    small_in_c = c_unproven = true;
  if (small_in_c && !c_unproven && ctx.m.addend != AddendEntry::first_block)
    return not_applicable(ctx, "align", "needs 3 terms in one block (block size " + std::to_string(kb) + ", C not in it)");
  const int tlo = lowest_small(small_in_c);
  const int jmax = std::min(80, eS - tlo);
  const Pair big = P.product_sig(1, 1, eS), bign = P.product_sig(1, 1, eS, true);
  if (!big || !bign || jmax < 8) return not_applicable(ctx, "align", "the input formats span too few binades");
  const auto B0 = ctx.block(0);
  std::vector<Case> cs;
  for (int j = 1; j <= jmax; ++j) {
    Case g = P.blank();
    put(g, B0[0], big);
    put(g, B0[1], bign);
    if (small_in_c) {
      if (auto c = P.c_bits(std::ldexp(1.0, eS - j))) g.c = *c;
    } else {
      put(g, B0[2], P.product_sig(1, 1, eS - j));
    }
    cs.push_back(g);
  }
  const auto out = ctx.eval(cs);
  std::vector<int> kept(jmax + 1, -1);  // 1 kept, 0 dropped, -1 other
  for (int j = 1; j <= jmax; ++j) {
    const u32 d = out[j - 1];
    kept[j] = P.d_is(d, std::ldexp(1.0, eS - j)) ? 1 : P.d_is(d, 0) ? 0 : -1;
  }
  int F = 0;
  while (F < jmax && kept[F + 1] == 1) ++F;
  bool step = true;
  for (int j = F + 1; j <= jmax; ++j)
    if (kept[j] != 0) step = false;
  for (int j = 1; j <= jmax; ++j) {
    if (j < F - 2 && j != 1) continue;  // rows around the step only
    if (j > F + 3 && j != jmax) continue;
    ctx.row(r, "2^" + std::to_string(eS) + " - 2^" + std::to_string(eS) + " + 2^" + std::to_string(eS - j) + " (j = " +
                   std::to_string(j) + ")",
            cs[j - 1], out[j - 1], kept[j] == 1 ? "kept" : kept[j] == 0 ? "dropped" : "unexpected");
  }
  if (!step) r.anomalies.push_back("the kept/dropped pattern is not a single step at F");
  if (c_unproven && F == jmax)
    return not_applicable(ctx, "align",
                          "the products span too few binades; with C as the small term nothing was dropped down to 2^-" +
                              std::to_string(jmax) + ": either F >= " + std::to_string(jmax) +
                              " or C is added after the products (the blocksize recipe could not tell)");
  if (c_unproven) {
    // C was cut next to the products' own alignment: it joins their (first) block.
    ctx.m.addend = AddendEntry::first_block;
    r.facts.push_back({"c_joins_first_block", true});
  }
  // Grouped scaling (the scale recipe found scale_group > 1; unit scales here): a group of products
  // aligns at its scales' exponent, 0, not at the products' own eS, so the last kept bit
  // 2^(eS - j) read above is 2^(0 - F).
  const int shift = ctx.m.scale_group.value_or(1) > 1 ? eS : 0;
  if (F == jmax) {
    ctx.m.frac_bits = F - shift;
    ctx.m.frac_bits_at_least = true;
    r.facts.push_back({"frac_bits", static_cast<std::int64_t>(F - shift)});
    r.facts.push_back({"frac_bits_at_least", true});
    r.verdict = "Every term down to 2^-" + std::to_string(jmax) +
                " below the largest survived: the aligner keeps at least " + std::to_string(jmax - shift) + " bits.";
    return r;
  }
  F -= shift;
  ctx.m.frac_bits = F;
  ctx.m.frac_bits_at_least = false;
  r.facts.push_back({"frac_bits", static_cast<std::int64_t>(F)});
  r.facts.push_back({"extra_bits_over_fp32", static_cast<std::int64_t>(F - 23)});
  if (shift) r.facts.push_back({"aligned_at_scale_exponent", true});
  const std::string kb_note = c_unproven ? block_size_by_rounding(ctx, r, F) : "";

  // Second batch: how the shifted-out part goes (negative term, 0.75 quantum), and C's alignment.
  std::vector<Case> c2;
  std::vector<std::string> what;
  if (!small_in_c && !shift && eS - F - 2 >= tlo) {
    Case g = P.blank();
    put(g, B0[0], big);
    put(g, B0[1], bign);
    put(g, B0[2], P.product_sig(1, 1, eS - F - 1, true));
    c2.push_back(g), what.push_back("neg");
    g = P.blank();
    put(g, B0[0], big);
    put(g, B0[1], bign);
    put(g, B0[2], P.product_sig(1.5, 1, eS - F - 1));
    c2.push_back(g), what.push_back("three_quarters");
  }
  const int eC = std::min(eS, spec(P.fc).emax());
  const auto Cbig = P.c_bits(std::ldexp(1.0, eC));
  const Pair Cneg = P.product_sig(1, 1, eC, true);
  if (Cbig && Cneg && !shift && eC - F - 1 >= tlo && ctx.m.addend == AddendEntry::first_block) {
    for (int j : {F, F + 1}) {
      Case g = P.blank();
      g.c = *Cbig;
      put(g, B0[0], Cneg);
      put(g, B0[1], P.product_sig(1, 1, eC - j));
      c2.push_back(g), what.push_back(j == F ? "c_at_F" : "c_beyond_F");
    }
  }
  const auto o2 = ctx.eval(c2);
  std::string trunc_dir = "unknown", shifted = "unknown";
  for (std::size_t t = 0; t < c2.size(); ++t) {
    const u32 d = o2[t];
    if (what[t] == "neg") {
      const bool zero = P.d_is(d, 0), floor = P.d_is(d, -std::ldexp(1.0, eS - F));
      trunc_dir = zero ? "toward_zero" : floor ? "toward_minus_inf" : "other";
      ctx.row(r, "2^" + std::to_string(eS) + " - 2^" + std::to_string(eS) + " - 2^" + std::to_string(eS - F - 1), c2[t], d,
              zero ? "dropped: magnitude truncated (toward zero)" : floor ? "became -2^(e-F): two's complement truncation (toward -Inf)" : "unexpected");
    } else if (what[t] == "three_quarters") {
      const bool zero = P.d_is(d, 0), up = P.d_is(d, std::ldexp(1.0, eS - F));
      shifted = zero ? "truncated" : up ? "rounded" : "other";
      ctx.row(r, "2^" + std::to_string(eS) + " - 2^" + std::to_string(eS) + " + 3*2^" + std::to_string(eS - F - 2) + " (0.75 of the last kept bit)",
              c2[t], d, zero ? "dropped: shifted-out bits are truncated" : up ? "rounded up to 2^(e-F): alignment rounds" : "unexpected");
    } else {
      const int j = what[t] == "c_at_F" ? F : F + 1;
      const bool kept_c = P.d_is(d, std::ldexp(1.0, eC - j));
      ctx.row(r, "C = 2^" + std::to_string(eC) + ", -2^" + std::to_string(eC) + " + 2^" + std::to_string(eC - j), c2[t], d,
              kept_c ? "kept" : P.d_is(d, 0) ? "dropped" : "other");
    }
  }
  r.facts.push_back({"shifted_out_bits", shifted});
  r.facts.push_back({"truncation_direction", trunc_dir});
  if (trunc_dir == "toward_minus_inf" || shifted == "rounded")
    r.anomalies.push_back("alignment does not truncate magnitudes toward zero, which tcnum's datapath assumes");

  std::ostringstream v;
  v << F << " fraction bits are kept below the largest exponent when the terms are aligned (FP32 has 23: "
    << (F - 23 >= 0 ? std::to_string(F - 23) + " extra" : std::to_string(23 - F) + " fewer") << " alignment bit"
    << (std::abs(F - 23) == 1 ? "" : "s") << "): 2^-" << F << " below the largest term survives, 2^-" << F + 1
    << " is lost although the exact sum is representable. ";
  if (shifted == "truncated" && trunc_dir == "toward_zero")
    v << "Shifted-out bits are truncated toward zero (a negative term loses magnitude; nothing is rounded at alignment).";
  else if (shifted != "unknown")
    v << "Shifted-out bits: " << shifted << ", direction " << trunc_dir << ".";
  r.verdict = v.str() + kb_note;
  return r;
}

std::vector<recipes::RecipeVerdict> published_align(const BlackBox& f, const Instruction& in) {
  using namespace recipes;
  return {fasi_extra_alignment_bits(f, in, fasi_variant(in)), km_extra_alignment_bits(f, in), probe_kept_fraction_bits(f, in)};
}

}  // namespace

const FeatureTest& align_test() {
  static const FeatureTest test{"align", {sources::fasi2021, sources::khattak_mikaitis2025, sources::fttn2024}, {"blocksize"}, {}, recipe_align, published_align};
  return test;
}

}  // namespace tcnum::features::detail
