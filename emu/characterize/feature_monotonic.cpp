// Feature test "monotonic".
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

// monotonic: raise one addend by one ulp and look at D.

FeatureReport recipe_monotonic(Ctx& ctx) {
  FeatureReport r = start(ctx, "monotonic");
  const Planner& P = ctx.P;
  const int K = ctx.in.k, kb = effective_kb(ctx);
  const int F = ctx.m.frac_bits.value_or(24);
  std::vector<Case> cs;
  std::vector<std::string> labels;
  const int pc = spec(P.fc).frac_bits;
  // (1) C crosses a binade: (2 - ulp)*2^e -> 2^(e+1); n products of 2^(e-F) sit at the old quantum.
  for (int n : {kb, std::max(1, kb / 2), std::min(K, kb + 1)}) {
    const int e = std::min({P.hi - 2, spec(P.fc).emax() - 2, P.d_emax() - 2, 40});
    const auto c0 = P.c_bits(std::ldexp(2.0 - std::ldexp(1.0, -pc), e));
    const auto c1 = P.c_bits(std::ldexp(2.0, e));
    const Pair s = P.product_sig(1, 1, e - F);
    if (!c0 || !c1 || !s) continue;
    for (const auto c : {*c0, *c1}) {
      Case g = P.blank();
      g.c = c;
      auto pos = ctx.block(0);
      for (int b = 1; b < ctx.block_count(); ++b)
        for (int x : ctx.block(b)) pos.push_back(x);
      for (int k = 0; k < n; ++k) put(g, pos[k], s);
      cs.push_back(g);
    }
    labels.push_back("C: (2 - 2^-" + std::to_string(pc) + ")*2^" + std::to_string(e) + " -> 2^" + std::to_string(e + 1) + ", with " +
                     std::to_string(n) + " x 2^" + std::to_string(e - F));
  }
  // (2) a factor crosses a binade: a0 (2 - ulp)*2^ea -> 2^(ea+1), b0 = 1.5*2^eb, small products at the quantum.
  {
    const int pa = spec(P.fa).frac_bits;
    const int e = std::min({P.hi - 3, P.d_emax() - 3, 40});
    const Pair before = P.product_sig(2.0 - std::ldexp(1.0, -pa), 1.5, e), after = P.product_sig(1, 1.5, e + 1);
    const Pair s = P.product_sig(1, 1, e - F);
    if (before && after && s && kb >= 2)
      for (const Pair& first : {before, after}) {
        Case g = P.blank();
        const auto B0 = ctx.block(0);
        put(g, B0[0], first);
        for (int k = 1; k < kb; ++k) put(g, B0[k], s);
        cs.push_back(g);
      }
    if (before && after && s && kb >= 2)
      labels.push_back("a0: (2 - 2^-" + std::to_string(pa) + ") -> 2 (times 1.5*2^" + std::to_string(e) + "), with " +
                       std::to_string(kb - 1) + " x 2^" + std::to_string(e - F));
  }
  if (cs.empty())
    return not_applicable(ctx, "monotonic",
                          "no designed pair fits the formats (the products cannot reach 2^-F below a binade edge: F is "
                          "not measured or the input formats span too few binades)");
  const auto out = ctx.eval(cs);
  bool monotone = true;
  std::string example;
  for (std::size_t t = 0; t + 1 < cs.size(); t += 2) {
    const double d0 = P.d_value(out[t]), d1 = P.d_value(out[t + 1]);
    const bool dec = d1 < d0;
    if (dec && monotone) {
      monotone = false;
      char buf[160];
      std::snprintf(buf, sizeof buf, "raising the addend lowered D from %.9g to %.9g", d0, d1);
      example = labels[t / 2] + ": " + buf;
    }
    ctx.row(r, labels[t / 2] + " [before]", cs[t], out[t], "");
    ctx.row(r, labels[t / 2] + " [after]", cs[t + 1], out[t + 1], dec ? "D decreased: non-monotone" : "D did not decrease");
  }
  r.facts.push_back({"monotone_on_probes", monotone});
  r.facts.push_back({"probe_pairs", static_cast<std::int64_t>(cs.size() / 2)});
  if (!monotone)
    r.verdict = "Accumulation is NOT monotone: " + example +
                ". Raising C into the next binade moves the alignment point up by one bit, and the small products "
                "that sat at the old last kept bit are truncated away: they were worth more than C's one-ulp increase.";
  else
    r.verdict = "No decrease on " + std::to_string(cs.size() / 2) +
                " designed pairs (raising C or a factor by one ulp across a binade): monotone as far as probed.";
  return r;
}

std::vector<recipes::RecipeVerdict> published_monotonic(const BlackBox& f, const Instruction& in) {
  using namespace recipes;
  return {fasi_monotonicity(f, in, fasi_variant(in))};
}

}  // namespace

const FeatureTest& monotonic_test() {
  static const FeatureTest test{"monotonic", {sources::fasi2021, sources::mikaitis2024_monotonicity, sources::fttn2024}, {"align"}, {}, recipe_monotonic, published_monotonic};
  return test;
}

}  // namespace tcnum::features::detail
