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

// The align recipe's terms: 2^eS - 2^eS + 2^(eS-j) for j = 1..jmax, the small term a third product
// of block 0 or C.
struct AlignTerms {
  int eS = 0, tlo = 0, jmax = 0;
  bool small_in_c = false;
  bool c_unproven = false;  // C as the small term without a measurement that it joins block 0
  Pair big, bign;
  std::string not_applicable;  // why the recipe cannot run; empty when it can
};

AlignTerms align_terms(const Ctx& ctx) {
  const Planner& P = ctx.P;
  const int kb = effective_kb(ctx);
  AlignTerms t;
  // The small term is a third product of the block, or C when blocks hold only two products, or
  // when the products span too few binades (FP4/FP6) and C may join their block (not measured
  // otherwise: then only a dropped C, which proves it, gives F).
  t.eS = std::min({P.hi, 100, P.d_emax() + 1});
  auto lowest_small = [&](bool in_c) { return std::max(in_c ? std::max(P.d_emin(), spec(P.fc).emin()) : P.lo, P.d_emin()); };
  t.small_in_c = kb < 3;
  if (!t.small_in_c && std::min(80, t.eS - lowest_small(false)) < 8 && !ctx.m.addend &&
      std::min(80, t.eS - lowest_small(true)) >= 8)
    t.small_in_c = t.c_unproven = true;
  if (t.small_in_c && !t.c_unproven && ctx.m.addend != AddendEntry::first_block) {
    t.not_applicable = "needs 3 terms in one block (block size " + std::to_string(kb) + ", C not in it)";
    return t;
  }
  t.tlo = lowest_small(t.small_in_c);
  t.jmax = std::min(80, t.eS - t.tlo);
  t.big = P.product_sig(1, 1, t.eS), t.bign = P.product_sig(1, 1, t.eS, true);
  if (!t.big || !t.bign || t.jmax < 8) t.not_applicable = "the input formats span too few binades";
  return t;
}

std::vector<Case> align_step_cases(const Ctx& ctx, const AlignTerms& t) {
  const Planner& P = ctx.P;
  const auto B0 = ctx.block(0);
  std::vector<Case> cs;
  for (int j = 1; j <= t.jmax; ++j) {
    Case g = P.blank();
    put(g, B0[0], t.big);
    put(g, B0[1], t.bign);
    if (t.small_in_c) {
      if (auto c = P.c_bits(std::ldexp(1.0, t.eS - j))) g.c = *c;
    } else {
      put(g, B0[2], P.product_sig(1, 1, t.eS - j));
    }
    cs.push_back(g);
  }
  return cs;
}

// Where the small term stops surviving: F = the last j kept; `step` when every j past F is dropped.
struct AlignStep {
  std::vector<int> kept;  // by j: 1 kept, 0 dropped, -1 other
  int F = 0;
  bool step = true;
};

AlignStep read_align_step(const Planner& P, const AlignTerms& t, const std::vector<std::uint32_t>& out) {
  AlignStep s;
  s.kept.assign(static_cast<std::size_t>(t.jmax + 1), -1);
  for (int j = 1; j <= t.jmax; ++j) {
    const u32 d = out[j - 1];
    s.kept[j] = P.d_is(d, std::ldexp(1.0, t.eS - j)) ? 1 : P.d_is(d, 0) ? 0 : -1;
  }
  while (s.F < t.jmax && s.kept[s.F + 1] == 1) ++s.F;
  for (int j = s.F + 1; j <= t.jmax; ++j)
    if (s.kept[j] != 0) s.step = false;
  return s;
}

// Rows around the step only (and the first and last j).
void show_align_step(Ctx& ctx, const AlignTerms& t, const std::vector<Case>& cs, const std::vector<std::uint32_t>& out,
                     const AlignStep& s, FeatureReport& r) {
  const int F = s.F, eS = t.eS;
  for (int j = 1; j <= t.jmax; ++j) {
    if (j < F - 2 && j != 1) continue;
    if (j > F + 3 && j != t.jmax) continue;
    ctx.row(r, "2^" + std::to_string(eS) + " - 2^" + std::to_string(eS) + " + 2^" + std::to_string(eS - j) + " (j = " +
                   std::to_string(j) + ")",
            cs[j - 1], out[j - 1], s.kept[j] == 1 ? "kept" : s.kept[j] == 0 ? "dropped" : "unexpected");
  }
}

// How the shifted-out part goes (negative term, 0.75 quantum), and C's alignment: each case and what it tests.
struct ShiftProbes {
  std::vector<Case> cs;
  std::vector<std::string> what;
  int eC = 0;
};

ShiftProbes shift_probes(const Ctx& ctx, const AlignTerms& t, int F, int shift) {
  const Planner& P = ctx.P;
  const auto B0 = ctx.block(0);
  const int eS = t.eS;
  ShiftProbes sp;
  if (!t.small_in_c && !shift && eS - F - 2 >= t.tlo) {
    Case g = P.blank();
    put(g, B0[0], t.big);
    put(g, B0[1], t.bign);
    put(g, B0[2], P.product_sig(1, 1, eS - F - 1, true));
    sp.cs.push_back(g), sp.what.push_back("neg");
    g = P.blank();
    put(g, B0[0], t.big);
    put(g, B0[1], t.bign);
    put(g, B0[2], P.product_sig(1.5, 1, eS - F - 1));
    sp.cs.push_back(g), sp.what.push_back("three_quarters");
  }
  sp.eC = std::min(eS, spec(P.fc).emax());
  const auto Cbig = P.c_bits(std::ldexp(1.0, sp.eC));
  const Pair Cneg = P.product_sig(1, 1, sp.eC, true);
  if (Cbig && Cneg && !shift && sp.eC - F - 1 >= t.tlo && ctx.m.addend == AddendEntry::first_block) {
    for (int j : {F, F + 1}) {
      Case g = P.blank();
      g.c = *Cbig;
      put(g, B0[0], Cneg);
      put(g, B0[1], P.product_sig(1, 1, sp.eC - j));
      sp.cs.push_back(g), sp.what.push_back(j == F ? "c_at_F" : "c_beyond_F");
    }
  }
  return sp;
}

// The shift probes' rows; returns (truncation direction, what happens to shifted-out bits).
std::pair<std::string, std::string> read_shift_probes(Ctx& ctx, const ShiftProbes& sp, const std::vector<std::uint32_t>& o2,
                                                      int eS, int F, FeatureReport& r) {
  const Planner& P = ctx.P;
  const int eC = sp.eC;
  std::string trunc_dir = "unknown", shifted = "unknown";
  for (std::size_t t = 0; t < sp.cs.size(); ++t) {
    const u32 d = o2[t];
    if (sp.what[t] == "neg") {
      const bool zero = P.d_is(d, 0), floor = P.d_is(d, -std::ldexp(1.0, eS - F));
      trunc_dir = zero ? "toward_zero" : floor ? "toward_minus_inf" : "other";
      ctx.row(r, "2^" + std::to_string(eS) + " - 2^" + std::to_string(eS) + " - 2^" + std::to_string(eS - F - 1), sp.cs[t], d,
              zero ? "dropped: magnitude truncated (toward zero)" : floor ? "became -2^(e-F): two's complement truncation (toward -Inf)" : "unexpected");
    } else if (sp.what[t] == "three_quarters") {
      const bool zero = P.d_is(d, 0), up = P.d_is(d, std::ldexp(1.0, eS - F));
      shifted = zero ? "truncated" : up ? "rounded" : "other";
      ctx.row(r, "2^" + std::to_string(eS) + " - 2^" + std::to_string(eS) + " + 3*2^" + std::to_string(eS - F - 2) + " (0.75 of the last kept bit)",
              sp.cs[t], d, zero ? "dropped: shifted-out bits are truncated" : up ? "rounded up to 2^(e-F): alignment rounds" : "unexpected");
    } else {
      const int j = sp.what[t] == "c_at_F" ? F : F + 1;
      const bool kept_c = P.d_is(d, std::ldexp(1.0, eC - j));
      ctx.row(r, "C = 2^" + std::to_string(eC) + ", -2^" + std::to_string(eC) + " + 2^" + std::to_string(eC - j), sp.cs[t], d,
              kept_c ? "kept" : P.d_is(d, 0) ? "dropped" : "other");
    }
  }
  return {trunc_dir, shifted};
}

std::string align_verdict(int F, const std::string& shifted, const std::string& trunc_dir) {
  std::ostringstream v;
  v << F << " fraction bits are kept below the largest exponent when the terms are aligned (FP32 has 23: "
    << (F - 23 >= 0 ? std::to_string(F - 23) + " extra" : std::to_string(23 - F) + " fewer") << " alignment bit"
    << (std::abs(F - 23) == 1 ? "" : "s") << "): 2^-" << F << " below the largest term survives, 2^-" << F + 1
    << " is lost although the exact sum is representable. ";
  if (shifted == "truncated" && trunc_dir == "toward_zero")
    v << "Shifted-out bits are truncated toward zero (a negative term loses magnitude; nothing is rounded at alignment).";
  else if (shifted != "unknown")
    v << "Shifted-out bits: " << shifted << ", direction " << trunc_dir << ".";
  return v.str();
}

FeatureReport recipe_align(Ctx& ctx) {
  FeatureReport r = start(ctx, "align");
  const AlignTerms t = align_terms(ctx);
  if (!t.not_applicable.empty()) return not_applicable(ctx, "align", t.not_applicable);
  const std::vector<Case> cs = align_step_cases(ctx, t);
  const auto out = ctx.eval(cs);
  const AlignStep s = read_align_step(ctx.P, t, out);
  show_align_step(ctx, t, cs, out, s, r);
  if (!s.step) r.anomalies.push_back("the kept/dropped pattern is not a single step at F");
  const int jmax = t.jmax;
  if (t.c_unproven && s.F == jmax)
    return not_applicable(ctx, "align",
                          "the products span too few binades; with C as the small term nothing was dropped down to 2^-" +
                              std::to_string(jmax) + ": either F >= " + std::to_string(jmax) +
                              " or C is added after the products (the blocksize recipe could not tell)");
  if (t.c_unproven) {
    // C was cut next to the products' own alignment: it joins their (first) block.
    ctx.m.addend = AddendEntry::first_block;
    r.facts.push_back({"c_joins_first_block", true});
  }
  // Grouped scaling (the scale recipe found scale_group > 1; unit scales here): a group of products
  // aligns at its scales' exponent, 0, not at the products' own eS, so the last kept bit
  // 2^(eS - j) read above is 2^(0 - F).
  const int shift = ctx.m.scale_group.value_or(1) > 1 ? t.eS : 0;
  if (s.F == jmax) {
    ctx.m.frac_bits = jmax - shift;
    ctx.m.frac_bits_at_least = true;
    r.facts.push_back({"frac_bits", static_cast<std::int64_t>(jmax - shift)});
    r.facts.push_back({"frac_bits_at_least", true});
    r.verdict = "Every term down to 2^-" + std::to_string(jmax) +
                " below the largest survived: the aligner keeps at least " + std::to_string(jmax - shift) + " bits.";
    return r;
  }
  const int F = s.F - shift;
  ctx.m.frac_bits = F;
  ctx.m.frac_bits_at_least = false;
  r.facts.push_back({"frac_bits", static_cast<std::int64_t>(F)});
  r.facts.push_back({"extra_bits_over_fp32", static_cast<std::int64_t>(F - 23)});
  if (shift) r.facts.push_back({"aligned_at_scale_exponent", true});
  const std::string kb_note = t.c_unproven ? block_size_by_rounding(ctx, r, F) : "";

  // Second batch: how the shifted-out part goes, and C's alignment.
  const ShiftProbes sp = shift_probes(ctx, t, F, shift);
  const auto o2 = ctx.eval(sp.cs);
  const auto [trunc_dir, shifted] = read_shift_probes(ctx, sp, o2, t.eS, F, r);
  r.facts.push_back({"shifted_out_bits", shifted});
  r.facts.push_back({"truncation_direction", trunc_dir});
  if (trunc_dir == "toward_minus_inf" || shifted == "rounded")
    r.anomalies.push_back("alignment does not truncate magnitudes toward zero, which tcnum's datapath assumes");
  r.verdict = align_verdict(F, shifted, trunc_dir) + kb_note;
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
