// Feature test "carry".
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

// carry: n products of (1.75*1.75)*2^e add exactly (n*3.0625 needs log2(n)+2 bits above 2^e).

FeatureReport recipe_carry(Ctx& ctx) {
  FeatureReport r = start(ctx, "carry");
  const Planner& P = ctx.P;
  const int K = ctx.in.k, kb = effective_kb(ctx);
  std::vector<Case> cs;
  std::vector<double> want;
  std::vector<std::string> labels;
  for (int n : {kb, K}) {
    if (n == K && kb == K && !cs.empty()) continue;
    for (bool neg : {false, true}) {
      const double sum = n * 3.0625;
      const int top = static_cast<int>(std::ceil(std::log2(sum)));
      const int e = std::min({P.hi - 2, P.d_emax() - top, 60});
      const Pair ab = P.product_sig(1.75, 1.75, e, neg);
      if (!ab) continue;
      Case g = P.blank();
      const auto B0 = ctx.block(0);
      for (int k = 0; k < n; ++k) put(g, n == kb ? B0[k] : k, ab);
      cs.push_back(g);
      want.push_back((neg ? -1 : 1) * std::ldexp(sum, e));
      labels.push_back(std::to_string(n) + " x " + (neg ? "-" : "") + "(1.75*1.75)*2^" + std::to_string(e) +
                       " (needs " + std::to_string(top) + " bits above 2^" + std::to_string(e) + ")");
    }
  }
  if (cs.empty()) return not_applicable(ctx, "carry", "no probe fits the formats");
  const auto out = ctx.eval(cs);
  bool all = true;
  for (std::size_t t = 0; t < cs.size(); ++t) {
    const bool ok = P.d_is(out[t], want[t]);
    all &= ok;
    ctx.row(r, labels[t], cs[t], out[t], ok ? "exact" : "carry lost");
  }
  const int needed = static_cast<int>(std::ceil(std::log2(kb * 3.0625)));
  r.facts.push_back({"carries_kept", all});
  r.facts.push_back({"carry_bits_needed_per_block", static_cast<std::int64_t>(needed)});
  if (all)
    r.verdict = "No carry is lost: " + std::to_string(kb) + " products of magnitude 3.0625*2^e in one block sum exactly to " +
                [&] {
                  char buf[32];
                  std::snprintf(buf, sizeof buf, "%g", kb * 3.0625);
                  return std::string(buf);
                }() +
                "*2^e, which reaches 2^(e+" + std::to_string(needed - 1) +
                "): the block adder has at least " + std::to_string(needed) +
                " bits above the aligned exponent (one per doubling of the term count, plus two for products in [2,4)).";
  else {
    r.verdict = "Carries are lost: a sum of many large products came out wrong.";
    r.anomalies.push_back("carry-out lost (tcnum's adder is exact before rounding)");
  }
  return r;
}

std::vector<recipes::RecipeVerdict> published_carry(const BlackBox& f, const Instruction& in) {
  using namespace recipes;
  return {fasi_carry_out_bits(f, in), km_extra_carry_bits(f, in)};
}

}  // namespace

const FeatureTest& carry_test() {
  static const FeatureTest test{"carry", {sources::fasi2021, sources::khattak_mikaitis2025}, {"blocksize"}, {}, recipe_carry, published_carry};
  return test;
}

}  // namespace tcnum::features::detail
