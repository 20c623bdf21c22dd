// Feature test "subnormal".
// docs/numprobe.md describes the recipe, its verdict rule and its sources.
// GCC 12 at -O3 reports a false -Wrestrict inside std::string's operator+ once this file's
// string building is inlined (GCC bug 105329); the code is plain string concatenation.
#pragma GCC diagnostic ignored "-Wrestrict"
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "features_internal.hpp"
#include "tcnum/core/dot.hpp"

namespace tcnum::features::detail {
namespace {

// subnormal: inputs (A, B, C), products below FP32's normal range, subnormal outputs.

double min_subnormal(Format f) { return std::ldexp(1.0, spec(f).emin() - spec(f).frac_bits); }

// Candidates for one parameter, judged by emulation on the probes: the first that reproduces
// every output (candidates in order of preference); nullopt when none does.
template <class T, class Set>
std::optional<T> first_matching(const Ctx& ctx, const std::vector<T>& cands, Set set, const std::vector<Case>& cs,
                                const std::vector<u32>& out, std::size_t* matching = nullptr) {
  std::optional<T> pick;
  std::size_t n = 0;
  for (const T& c : cands) {
    DatapathParams p = ctx.params();
    set(p, c);
    bool good = true;
    try {
      for (std::size_t t = 0; t < cs.size() && good; ++t) good = emulate_case(p, ctx.in, cs[t]) == out[t];
    } catch (const std::invalid_argument&) {
      good = false;
    }
    if (good) {
      ++n;
      if (!pick) pick = c;
      if (!matching) break;  // the first match is all the caller wants
    }
  }
  if (matching) *matching = n;
  return pick;
}

// Inputs unpacked into a wider format before the datapath (the nominal exponent of a subnormal
// becomes its true one): an fp8 subnormal times the other format's largest power of two is the
// largest term; another term sits at the last bits F can keep below each nominal exponent.
void unpack_probe(Ctx& ctx, FeatureReport& r) {
  const Planner& P = ctx.P;
  const bool fp8 = P.fa == Format::e4m3 || P.fa == Format::e5m2 || P.fb == Format::e4m3 || P.fb == Format::e5m2;
  if (!fp8 || !ctx.m.frac_bits || ctx.block(0).size() < 3) return;
  const int F = *ctx.m.frac_bits;
  const auto B0 = ctx.block(0);
  std::vector<Case> cs;
  for (int side = 0; side < 2; ++side) {
    const Format f = side ? P.fb : P.fa, o = side ? P.fa : P.fb;
    const double sub = std::ldexp(1.0, spec(f).emin() - spec(f).frac_bits);
    const double big = std::ldexp(1.0, spec(o).emax());
    const auto sb = exact_bits(f, sub), ob = exact_bits(o, big, false);
    if (!sb || !ob) continue;
    const double v = sub * big;
    const Pair neg = P.product_value(-v);
    if (!neg) continue;
    for (int j = F - spec(f).frac_bits - 2; j <= F + 2; ++j) {
      const Pair tiny = P.product_value(std::ldexp(v, -j), true);
      if (!tiny) continue;
      Case g = P.blank();
      g.a[B0[0]] = side ? *ob : *sb;
      g.b[B0[0]] = side ? *sb : *ob;
      put(g, B0[1], neg);
      put(g, B0[2], tiny);
      cs.push_back(g);
    }
  }
  if (cs.empty()) return;
  const auto out = ctx.eval(cs);
  const std::vector<std::optional<Format>> cands = {std::nullopt, Format::fp16};
  std::size_t n = 0;
  const auto pick = first_matching(ctx, cands, [](DatapathParams& p, const std::optional<Format>& u) { p.unpack_format = u; },
                                   cs, out, &n);
  if (!pick) {
    r.anomalies.push_back("subnormal fp8 factors align neither by their format's emin nor by their leading bit");
    return;
  }
  if (n == 1 || *pick) ctx.m.unpack_format = *pick;
  r.facts.push_back({"fp8_unpacked_to", std::string(*pick ? name_of(**pick) : (n == 1 ? "none" : "not visible"))});
  if (*pick)
    r.verdict += " fp8 operands are unpacked to " + std::string(name_of(**pick)) +
                 " before the datapath: a subnormal fp8 factor aligns by its own leading bit (as an f16 normal), not by "
                 "its format's emin.";
}

// A floor under the alignment exponent: terms at the bottom of the range, where every term is
// below the floor, lose the bits under floor - F. Read through the result's rounding: 2^e minus
// (or plus, past a tie) a tiny term that survives only if the quantum is small enough.
void floor_probe(Ctx& ctx, FeatureReport& r) {
  const Planner& P = ctx.P;
  // A floor shows only against the exact F (a lower bound on F places nothing).
  if (!ctx.m.frac_bits || ctx.m.frac_bits_at_least || ctx.block(0).size() < 3) return;
  const int F = *ctx.m.frac_bits;
  const auto B0 = ctx.block(0);
  const int lo_true = spec(P.fa).emin() + spec(P.fb).emin();
  const int dsub = spec(P.fd).emin() - spec(P.fd).frac_bits;
  const int e_lo = std::max(lo_true + 2, dsub), e_hi = std::min({P.hi, lo_true + 150, P.d_emax() - 1});
  std::vector<Case> cs;
  for (int e = e_lo; e <= e_hi; e += e < e_lo + 12 ? 1 : 3) {  // every exponent near the bottom
    const Pair top = P.product_sig(1, 1, e);
    if (!top) continue;
    const int ulp_e = std::max(e - spec(P.fd).frac_bits, dsub);
    const Pair half = P.product_value(std::ldexp(1.0, ulp_e - 1), true);
    for (int j = 1; j <= F + 2; ++j)
      for (int fam = 0; fam < 2; ++fam) {
        const Pair tiny = P.product_value((fam ? 1.0 : -1.0) * std::ldexp(1.0, e - j), true);
        if (!tiny || (fam && !half)) continue;
        Case g = P.blank();
        put(g, B0[0], top);
        put(g, B0[1], tiny);
        if (fam) put(g, B0[2], half);
        cs.push_back(g);
      }
  }
  if (cs.empty()) return;
  const auto out = ctx.eval(cs);
  std::vector<std::optional<int>> cands = {std::nullopt};
  for (int f = lo_true; f <= e_hi; ++f) cands.push_back(f);
  // Every floor that fits (they form a range when the probes cannot place it exactly).
  std::vector<std::optional<int>> fits;
  for (const auto& c : cands) {
    const std::vector<std::optional<int>> one = {c};
    if (first_matching(ctx, one, [](DatapathParams& p, const std::optional<int>& f) { p.align_exponent_floor = f; }, cs, out))
      fits.push_back(c);
    else if (!fits.empty())
      break;
  }
  if (fits.empty()) {
    r.anomalies.push_back("tiny terms are truncated in a way no alignment-exponent floor explains");
    return;
  }
  const std::optional<int> pick = fits.front();
  ctx.m.align_exponent_floor = pick;
  r.facts.push_back({"align_exponent_floor", pick ? std::to_string(*pick) : std::string("none")});
  if (pick && fits.size() > 1 && fits.back())
    r.facts.push_back({"align_exponent_floor_consistent", "[" + std::to_string(*pick) + ", " + std::to_string(*fits.back()) + "]"});
  if (pick) {
    r.verdict += " The alignment exponent has a floor at 2^" + std::to_string(*pick) +
                 (fits.size() > 1 && fits.back() ? " (floors up to 2^" + std::to_string(*fits.back()) + " fit too)" : "") +
                 ": when every term lies below it, terms are still truncated to 2^(" + std::to_string(*pick) + " - F), "
                 "so tiny sums lose bits that the largest term alone would keep.";
    // The evidence: probes that a datapath without the floor (or the reference model) gets wrong.
    DatapathParams none = ctx.params();
    none.align_exponent_floor.reset();
    const DatapathParams& ref = ctx.opt.reference ? *ctx.opt.reference : none;
    int shown = 0;
    for (std::size_t t = 0; t < cs.size() && shown < 6; ++t) {
      if (emulate_case(ref, ctx.in, cs[t]) == out[t]) continue;
      std::string label = "floor probe:";
      for (int k = 0; k < ctx.in.k; ++k) {
        const double v = to_double(P.fa, cs[t].a[k]) * to_double(P.fb, cs[t].b[k]);
        if (v != 0) label += " " + pow2_text(v);
      }
      ctx.row(r, label, cs[t], out[t], ctx.opt.reference ? "the floor explains it" : "differs from no floor");
      ++shown;
    }
  } else {
    r.verdict += " No floor under the alignment exponent down to 2^" + std::to_string(e_lo) + ".";
  }
}

// The subnormal recipe's probes: each case, what it tests and the value D holds when nothing is flushed.
struct SubnormalProbes {
  std::vector<Case> cs;
  std::vector<std::string> what;
  std::vector<double> want;
  void add(const Case& g, std::string w, double value) {
    cs.push_back(g), what.push_back(std::move(w)), want.push_back(value);
  }
};

// A subnormal (smallest and largest), B normal, product a normal number of D; and the same for B.
void add_subnormal_factor_probes(const Planner& P, SubnormalProbes& sp) {
  for (bool a_side : {true, false}) {
    const Format fs = a_side ? P.fa : P.fb, fo = a_side ? P.fb : P.fa;
    for (bool largest : {false, true}) {
      const double sub = largest ? min_subnormal(fs) * ((1 << spec(fs).frac_bits) - 1) : min_subnormal(fs);
      // other factor: a power of two bringing the product near 2^0 but inside D's normal range.
      int eo = std::min(spec(fo).emax(), -std::ilogb(sub));
      double prod = sub * std::ldexp(1.0, eo);
      while (std::ilogb(prod) > P.d_emax() - 1) --eo, prod /= 2;
      const auto sb = exact_bits(fs, sub), ob = exact_bits(fo, std::ldexp(1.0, eo), false);
      if (!sb || !ob || std::ilogb(prod) < P.d_emin()) continue;
      Case g = P.blank();
      g.a[0] = a_side ? *sb : *ob;
      g.b[0] = a_side ? *ob : *sb;
      sp.add(g, a_side ? "a" : "b", prod);
    }
  }
}

// C subnormal alone (needs subnormal outputs too) and C subnormal next to a normal product.
void add_subnormal_c_probes(const Planner& P, SubnormalProbes& sp) {
  const double csub = min_subnormal(P.fc) * 3;
  if (const auto cb = P.c_bits(csub); cb && P.fc == P.fd) {
    Case g = P.blank();
    g.c = *cb;
    sp.add(g, "c_alone", csub);
  }
  const double cmin = min_subnormal(P.fc);
  const int en = spec(P.fc).emin();
  const auto cb = P.c_bits(cmin);
  const Pair pn = P.product_sig(1, 1, en);
  if (cb && pn && en >= P.d_emin()) {
    Case g = P.blank();
    g.c = *cb;
    put(g, 0, pn);
    sp.add(g, "c_with_normal", std::ldexp(1.0, en) + cmin);
  }
}

// A product of normal factors below D's normal range (a subnormal result), and one below the
// input format's normal range (normal in D).
void add_small_product_probes(const Planner& P, SubnormalProbes& sp) {
  const int ep_d = P.d_emin() - 1;
  if (const Pair pn = P.product_sig(1, 1, ep_d)) {
    Case g = P.blank();
    put(g, 0, pn);
    sp.add(g, "sub_product", std::ldexp(1.0, ep_d));
  }
  const int ep_in = spec(P.fa).emin() - 2;
  const Pair pn = P.product_sig(1, 1, ep_in);
  if (pn && ep_in >= P.d_emin()) {
    Case g = P.blank();
    put(g, 0, pn);
    sp.add(g, "below_input_range", std::ldexp(1.0, ep_in));
  }
}

std::string subnormal_label(const Planner& P, const SubnormalProbes& sp, std::size_t t) {
  const std::string& what = sp.what[t];
  const double want = sp.want[t];
  if (what == "a" || what == "b")
    return std::string(what == "a" ? "a" : "b") + " = subnormal " +
           pow2_text(what == "a" ? to_double(P.fa, sp.cs[t].a[0]) : to_double(P.fb, sp.cs[t].b[0])) +
           ", other factor normal";
  if (what == "c_alone") return "C = 3 x smallest subnormal of " + std::string(name_of(P.fc)) + ", no products";
  if (what == "c_with_normal") return "C = smallest subnormal, + product " + pow2_text(want - min_subnormal(P.fc));
  if (what == "sub_product") return "normal factors, product " + pow2_text(want) + " (subnormal in " + std::string(name_of(P.fd)) + ")";
  return "normal factors, product " + pow2_text(want) + " (below " + std::string(name_of(P.fa)) + "'s normal range)";
}

// The probes whose outputs the parameters found so far cannot reproduce, for the F that explains
// the most. A C that comes out as 0 may just be cut by a narrow alignment (F), not flushed; when the
// align recipe found only a lower bound on F (narrow input formats: FP6/FP4), any F from that bound
// up may explain a reading.
std::vector<std::string> inexpressible_readings(const Ctx& ctx, const SubnormalProbes& sp,
                                                const std::vector<std::uint32_t>& out) {
  std::vector<DatapathParams> ps{ctx.params()};
  if (ctx.m.frac_bits_at_least)
    for (int F = ps[0].frac_bits + 1; F <= kModelLimits.frac_bits_max && F <= ps[0].frac_bits + 64; ++F) {
      ps.push_back(ps[0]);
      ps.back().frac_bits = F;
    }
  std::vector<std::string> odd;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    std::vector<std::string> odd_here;
    for (std::size_t t = 0; t < sp.cs.size(); ++t)
      if (emulate_case(ps[i], ctx.in, sp.cs[t]) != out[t]) odd_here.push_back(sp.what[t]);
    if (i == 0 || odd_here.size() < odd.size()) odd = std::move(odd_here);
    if (odd.empty()) break;
  }
  return odd;
}

// Subnormal A or B, subnormal C, and products below D's or the inputs' normal range.
SubnormalProbes subnormal_probes(const Planner& P) {
  SubnormalProbes sp;
  add_subnormal_factor_probes(P, sp);
  add_subnormal_c_probes(P, sp);
  add_small_product_probes(P, sp);
  return sp;
}

FeatureReport recipe_subnormal(Ctx& ctx) {
  FeatureReport r = start(ctx, "subnormal");
  const Planner& P = ctx.P;
  const SubnormalProbes sp = subnormal_probes(P);
  const auto out = ctx.eval(sp.cs);
  std::map<std::string, std::string> verdicts;  // by what: the first reading other than "kept", else "kept"
  for (std::size_t t = 0; t < sp.cs.size(); ++t) {
    const u32 d = out[t];
    const bool kept = P.d_is(d, sp.want[t]);
    std::string reading = kept ? "kept" : P.d_is(d, 0) ? "flushed to zero" : "other";
    if (sp.what[t] == "c_with_normal" && !kept && P.d_is(d, sp.want[t] - min_subnormal(P.fc))) reading = "flushed to zero";
    auto& slot = verdicts[sp.what[t]];
    if (slot.empty() || slot == "kept") slot = reading;
    ctx.row(r, subnormal_label(P, sp, t), sp.cs[t], d, reading);
  }
  auto get = [&](const std::string& k) { return verdicts.count(k) ? verdicts[k] : std::string("n/a"); };
  const std::string a = get("a"), b = get("b"), sub_product = get("sub_product"), bi = get("below_input_range");
  std::string c1 = get("c_alone"), c2 = get("c_with_normal");
  const bool flush_ab = a == "flushed to zero" || b == "flushed to zero";
  if ((a == "kept" || a == "flushed to zero") && (b == "kept" || b == "flushed to zero")) {
    ctx.m.flush_subnormal_inputs = flush_ab;
    if ((a == "kept") != (b == "kept")) r.anomalies.push_back("A and B treat subnormals differently");
  }
  unpack_probe(ctx, r);  // append their sentences to r.verdict
  floor_probe(ctx, r);
  const std::string extra = r.verdict;
  // Every reading (C's, the results') must follow from the parameters found so far.
  const std::vector<std::string> odd = inexpressible_readings(ctx, sp, out);
  if (!odd.empty()) {
    std::string list;
    for (const auto& w : odd) list += " " + w;
    r.anomalies.push_back("subnormal handling not expressible (one flush switch for A, B and C, gradual underflow):" + list);
  } else {
    for (auto* x : {&c1, &c2})
      if (*x == "flushed to zero" && !flush_ab)
        *x = "kept, but a subnormal C alone is cut to 0 by the alignment (with F = " +
             std::to_string(ctx.m.frac_bits.value_or(0)) + " its bits lie below the last kept bit of its nominal exponent)";
  }
  std::ostringstream v;
  v << "Subnormal inputs are " << (flush_ab ? "flushed to zero" : "kept (A and B)") << "; C: " << (c2 != "n/a" ? c2 : c1)
    << ". Products below D's normal range: " << sub_product
    << (sub_product == "kept" ? " (gradual underflow into a subnormal result)" : "")
    << ". Products below the input format's normal range: " << bi << "." << extra;
  r.verdict = v.str();
  r.facts.push_back({"subnormal_a", a});
  r.facts.push_back({"subnormal_b", b});
  r.facts.push_back({"subnormal_c", c2 != "n/a" ? c2 : c1});
  r.facts.push_back({"subnormal_results", sub_product});
  r.facts.push_back({"products_below_input_range", bi});
  return r;
}

std::vector<recipes::RecipeVerdict> published_subnormal(const BlackBox& f, const Instruction& in) {
  using namespace recipes;
  return {fasi_subnormal_inputs(f, in), fasi_subnormal_c(f, in), fasi_subnormal_outputs(f, in)};
}

}  // namespace

const FeatureTest& subnormal_test() {
  static const FeatureTest test{"subnormal", {sources::fasi2021, sources::fttn2024}, {"round"}, {}, recipe_subnormal, published_subnormal};
  return test;
}

}  // namespace tcnum::features::detail
