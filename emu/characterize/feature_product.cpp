// Feature test "product".
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

// product: a*b whose exact product needs 2p+2 bits, its high part cancelled by C.

FeatureReport recipe_product(Ctx& ctx) {
  FeatureReport r = start(ctx, "product");
  const Planner& P = ctx.P;
  const int pa = spec(P.fa).frac_bits, pb = spec(P.fb).frac_bits;
  struct T {
    double sa, sb;
    bool neg;
  };
  const double ua = std::ldexp(1.0, -pa), ub = std::ldexp(1.0, -pb);
  const std::vector<T> ts = {{1 + ua, 1 + ub, false}, {2 - ua, 2 - ub, false}, {1 + ua, 1 + ub, true}, {1.5 + ua, 1.5 + ub, false}};
  // Scale 2^s so that the low part 2^(s - pa - pb) is a normal number of D.
  const int s = std::min(std::max(P.d_emin() + pa + pb + 2, 0), P.hi - 2);
  std::vector<Case> cs;
  std::vector<double> want, high;
  for (const T& t : ts) {
    const double exact = t.sa * t.sb;                  // exact in double
    const double low = std::ldexp(1.0, -pa - pb);      // the last bit of every product above
    const double hi_part = exact - low;
    Case g = P.blank();
    const auto ab = P.product_sig(t.sa, t.sb, s, t.neg);
    const auto c = P.c_bits((t.neg ? 1 : -1) * std::ldexp(hi_part, s));
    if (!ab || !c) continue;
    put(g, 0, ab);
    g.c = *c;
    cs.push_back(g);
    want.push_back((t.neg ? -1 : 1) * std::ldexp(low, s));
    high.push_back(std::ldexp(exact, s));
  }
  if (cs.empty()) return not_applicable(ctx, "product", "no exact probe fits the operand formats");
  const auto out = ctx.eval(cs);
  bool exact_all = true;
  for (std::size_t t = 0; t < cs.size(); ++t) {
    const bool ok = P.d_is(out[t], want[t]);
    exact_all &= ok;
    ctx.row(r, "a*b = " + pow2_text(high[t] * (want[t] < 0 ? -1 : 1)) + " (" + std::to_string(pa + pb + 2) +
                   " bits), C = -(all but the last bit)",
            cs[t], out[t], ok ? "last bit kept: exact" : "last bit lost");
  }
  r.facts.push_back({"products_exact", exact_all});
  if (exact_all)
    r.verdict = "Products are exact: a*b with " + std::to_string(pa + pb + 2) +
                "-bit significands, whose high part C cancels, leaves exactly the last bit (2^-" + std::to_string(pa + pb) +
                " relative): nothing of a product is rounded before it is added.";
  else {
    r.verdict = "Products are NOT exact: the last bit of a full-width product was lost before the addition.";
    r.anomalies.push_back("inexact products (tcnum's datapath keeps products exact)");
  }
  return r;
}

std::vector<recipes::RecipeVerdict> published_product(const BlackBox& f, const Instruction& in) {
  using namespace recipes;
  return {fasi_exact_products(f, in), fasi_exact_products_fp16_out(f, in)};
}

}  // namespace

const FeatureTest& product_test() {
  static const FeatureTest test{"product", {sources::fasi2021, sources::fttn2024}, {}, {}, recipe_product, published_product};
  return test;
}

}  // namespace tcnum::features::detail
