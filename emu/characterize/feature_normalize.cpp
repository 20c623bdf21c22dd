// Feature test "normalize".
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

// normalize: where the sum is normalised (not inside a block; between blocks; products by
// their nominal exponent).

FeatureReport recipe_normalize(Ctx& ctx) {
  FeatureReport r = start(ctx, "normalize");
  const Planner& P = ctx.P;
  if (!ctx.m.frac_bits || ctx.m.frac_bits_at_least)
    return not_applicable(ctx, "normalize", "needs F from the align recipe");
  const int F = *ctx.m.frac_bits, K = ctx.in.k, kb = effective_kb(ctx);
  const int eS = std::min({P.hi, 100, P.d_emax() + 1});
  const int tlo = std::max(P.lo, P.d_emin());
  const Pair big = P.product_sig(1, 1, eS), bign = P.product_sig(1, 1, eS, true);
  const auto B0 = ctx.block(0), B1 = ctx.block(1);
  std::vector<Case> cs;
  std::vector<std::string> what;
  if (eS - F - 1 >= tlo && kb >= 3) {
    Case g = P.blank();
    put(g, B0[0], big), put(g, B0[1], bign), put(g, B0[2], P.product_sig(1, 1, eS - F - 1));
    cs.push_back(g), what.push_back("in_block");
  }
  if (eS - F - 1 >= tlo && !B1.empty() && kb >= 2) {
    Case g = P.blank();
    put(g, B0[0], big), put(g, B0[1], bign), put(g, B1[0], P.product_sig(1, 1, eS - F - 1));
    cs.push_back(g), what.push_back("next_block");
  }
  const int eN = eS - 2;
  if (eN - F >= tlo && kb >= 3) {
    Case g = P.blank();
    put(g, B0[0], P.product_sig(1.5, 1.5, eN)), put(g, B0[1], P.product_sig(1.5, 1.5, eN, true)),
        put(g, B0[2], P.product_sig(1, 1, eN - F));
    cs.push_back(g), what.push_back("nominal");
  }
  if (cs.empty()) return not_applicable(ctx, "normalize", "no probe fits the formats");
  const auto out = ctx.eval(cs);
  std::string in_block = "n/a", between = "n/a", products = "n/a";
  for (std::size_t t = 0; t < cs.size(); ++t) {
    const u32 d = out[t];
    if (what[t] == "in_block") {
      const bool zero = P.d_is(d, 0);
      in_block = zero ? "no" : "yes";
      ctx.row(r, "2^" + std::to_string(eS) + " - 2^" + std::to_string(eS) + " + 2^" + std::to_string(eS - F - 1) + ", one block",
              cs[t], d, zero ? "lost: not normalised after the cancellation" : "kept: renormalised before the last term");
    } else if (what[t] == "next_block") {
      const bool kept = P.d_is(d, std::ldexp(1.0, eS - F - 1));
      between = kept ? "yes" : "no";
      ctx.row(r, "2^" + std::to_string(eS) + " - 2^" + std::to_string(eS) + " in block 0, 2^" + std::to_string(eS - F - 1) + " in block 1",
              cs[t], d, kept ? "kept: block 0's result was normalised" : "lost");
    } else {
      const bool kept = P.d_is(d, std::ldexp(1.0, eN - F));
      products = kept ? "nominal" : P.d_is(d, 0) ? "normalised" : "other";
      ctx.row(r, "(1.5*1.5)*2^" + std::to_string(eN) + " twice, opposite signs, + 2^" + std::to_string(eN - F), cs[t], d,
              kept ? "kept: aligned by the sum of the factors' exponents" : "lost: products normalised before alignment");
    }
  }
  r.facts.push_back({"normalised_inside_block", in_block});
  r.facts.push_back({"normalised_between_blocks", between});
  r.facts.push_back({"product_alignment_exponent", products});
  std::ostringstream v;
  if (in_block == "no") v << "No normalisation inside a block: the terms are aligned once to the largest exponent, so a cancellation does not bring back bits already shifted out. ";
  else if (in_block == "yes") v << "The sum is renormalised inside a block (after the cancellation the last term kept its bits). ";
  if (between == "yes") v << "Each block's result is normalised and rounded (into FP32) before the next block. ";
  else if (between == "no") v << "Block results are not renormalised between blocks. ";
  else if (kb >= K) v << "(One block per instruction: normalisation happens once, at the end.) ";
  if (products == "nominal") v << "Products enter unnormalised: the aligner uses the sum of the factors' exponents, even when the product's significand is in [2,4).";
  else if (products == "normalised") v << "Products are normalised before alignment.";
  r.verdict = v.str();
  if (in_block == "yes" || between == "no" || products == "normalised" || products == "other")
    r.anomalies.push_back("normalisation differs from tcnum's datapath");
  return r;
}

std::vector<recipes::RecipeVerdict> published_normalize(const BlackBox& f, const Instruction& in) {
  using namespace recipes;
  return {fasi_normalization_addition(f, in), fasi_normalization_subtraction(f, in, fasi_variant(in)),
          km_normalisation_pattern(f, in)};
}

}  // namespace

const FeatureTest& normalize_test() {
  static const FeatureTest test{"normalize", {sources::fasi2021, sources::fttn2024}, {"align"}, {}, recipe_normalize, published_normalize};
  return test;
}

}  // namespace tcnum::features::detail
