// Feature test "special".
// docs/numprobe.md describes the recipe, its verdict rule and its sources.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "features_internal.hpp"
#include "tcnum/core/corpus.hpp"

namespace tcnum::features::detail {
namespace {

// special: NaN, ±Inf, -0, the NaN bit pattern, overflow.

// The probes of the special recipe: each case, its row label and the kind of result it expects.
struct SpecialProbes {
  std::vector<Case> cs;
  std::vector<std::string> labels, kinds;
  void add(Case g, std::string label, std::string kind) {
    cs.push_back(std::move(g));
    labels.push_back(std::move(label));
    kinds.push_back(std::move(kind));
  }
};

// NaN in A or C (quiet and signalling), Inf·0, Inf - Inf, Inf through the sum and in C.
void add_nan_inf_probes(const Planner& P, SpecialProbes& sp) {
  const u32 one_a = *exact_bits(P.fa, 1.0), one_b = *exact_bits(P.fb, 1.0);
  Case g = P.blank();
  if (spec(P.fa).has_nan) {  // FP4/FP6 have no NaN (their "canonical NaN" is +max)
    g.a[0] = canonical_nan(P.fa);
    g.b[0] = one_b;
    sp.add(g, "a = NaN, b = 1", "nan");
  }
  g = P.blank();
  g.c = canonical_nan(P.fc);
  sp.add(g, "C = NaN (" + hex_field(P.fc, canonical_nan(P.fc)) + ")", "nan");
  if (spec(P.fc).storage_bits >= 16) {
    g = P.blank();
    g.c = P.fc == Format::fp32 ? 0xff800001u : 0xfc01u;  // negative signalling NaN with payload 1
    sp.add(g, "C = -sNaN payload 1 (" + hex_field(P.fc, g.c) + ")", "nan");
  }
  if (spec(P.fa).has_inf) {
    g = P.blank();
    g.a[0] = infinity_bits(P.fa, false), g.b[0] = zero_bits(P.fb, false);
    sp.add(g, "a = +Inf, b = 0", "nan");
    g = P.blank();
    g.a[0] = infinity_bits(P.fa, false), g.b[0] = one_b, g.a[1] = infinity_bits(P.fa, true), g.b[1] = one_b;
    sp.add(g, "+Inf*1 + (-Inf)*1", "nan");
    g = P.blank();
    g.a[0] = infinity_bits(P.fa, false), g.b[0] = one_b;
    sp.add(g, "a = +Inf, b = 1", "+inf");
    g = P.blank();
    g.a[0] = infinity_bits(P.fa, true), g.b[0] = one_b, g.c = infinity_bits(P.fc, false);
    sp.add(g, "-Inf*1 + C = +Inf", "nan");
  }
  g = P.blank();
  g.c = infinity_bits(P.fc, true);
  g.a[0] = one_a, g.b[0] = one_b;
  sp.add(g, "1*1 + C = -Inf", "-inf");
}

// Signed zeros: all addends -0, one -0 among +0s, an exact cancellation, an underflowing negative product.
void add_signed_zero_probes(const Ctx& ctx, SpecialProbes& sp) {
  const Planner& P = ctx.P;
  const u32 one_a = *exact_bits(P.fa, 1.0), one_b = *exact_bits(P.fb, 1.0);
  Case g = P.blank();
  for (int k = 0; k < P.in.k; ++k) g.a[k] = zero_bits(P.fa, true);
  g.b.assign(P.in.k, one_b);
  g.c = zero_bits(P.fc, true);
  sp.add(g, "(-0)*1 + ... + C = -0", "-0");
  g = P.blank();
  g.a[0] = zero_bits(P.fa, true), g.b[0] = one_b;
  sp.add(g, "(-0)*1, other products +0, C = +0", "+0");
  g = P.blank();
  g.a[0] = one_a, g.b[0] = one_b, g.a[1] = *exact_bits(P.fa, -1.0), g.b[1] = one_b;
  g.c = zero_bits(P.fc, true);
  sp.add(g, "1*1 + (-1)*1, C = -0 (exact cancellation)", "+0");
  // A negative product below half D's smallest subnormal: IEEE gives -0.
  const int e = spec(P.fd).emin() - spec(P.fd).frac_bits - 2;
  const Pair tiny = P.product_sig(1, 1, e, true);
  if (tiny) {  // in the last block, C = -0: every IEEE step then keeps the sign
    g = P.blank();
    put(g, ctx.block(-1).at(0), tiny);
    g.c = zero_bits(P.fc, true);
    sp.add(g, "product -" + pow2_text(std::ldexp(1.0, e)) + " (underflows " + std::string(name_of(P.fd)) + "), C = -0", "-0u");
  }
}

// Overflow: the largest products, several of them, past D's range; or D's largest value plus a
// product that survives alignment. False when neither fits the formats.
bool add_overflow_probes(const Ctx& ctx, SpecialProbes& sp) {
  const Planner& P = ctx.P;
  const double maxa = to_double(P.fa, max_finite_bits(P.fa, false)), maxb = to_double(P.fb, max_finite_bits(P.fb, false));
  const double dmax = to_double(P.fd, max_finite_bits(P.fd, false));
  if (maxa * maxb * std::min(P.in.k, 2) > dmax * 1.01) {
    Case g = P.blank();
    const int n = maxa * maxb > dmax * 1.01 ? 1 : 2;
    for (int k = 0; k < n; ++k) g.a[k] = max_finite_bits(P.fa, false), g.b[k] = max_finite_bits(P.fb, false);
    sp.add(g, std::to_string(n) + " x max*max (past " + std::string(name_of(P.fd)) + "'s range)", "overflow+");
    g = P.blank();
    for (int k = 0; k < n; ++k) g.a[k] = max_finite_bits(P.fa, true), g.b[k] = max_finite_bits(P.fb, false);
    sp.add(g, std::to_string(n) + " x (-max)*max", "overflow-");
    return true;
  }
  const auto cmax = P.c_bits(dmax);
  const int top = std::ilogb(dmax);
  const int F = ctx.m.frac_bits.value_or(24);
  const Pair half_ulp = P.product_sig(1, 1, top - std::min(F, spec(P.fd).frac_bits));
  if (!cmax || !half_ulp || P.fc != P.fd) return false;
  Case g = P.blank();
  g.c = *cmax;
  put(g, 0, half_ulp);
  sp.add(g, "C = max + 2^" + std::to_string(top - std::min(F, spec(P.fd).frac_bits)), "overflow+");
  return true;
}

// What the outputs show, over every probe.
struct SpecialReadings {
  std::string nan_pattern;  // the NaN results' bit patterns, "/"-separated when more than one
  bool nan_ok = true, inf_ok = true, zero_ok = true;
  std::optional<bool> overflow_inf, negative_zero, underflow_negative_zero;
};

// Reads one output against the kind of result its probe expects; returns the row's reading.
std::string read_special(const Planner& P, const std::string& kind, std::uint32_t out, SpecialReadings& s) {
  const Decoded d = decode(P.fd, out);
  if (kind == "nan") {
    if (!d.is_nan()) {
      s.nan_ok = false;
      return "not NaN";
    }
    const std::string pat = "0x" + hex_field(P.fd, out);
    if (s.nan_pattern.empty()) s.nan_pattern = pat;
    else if (s.nan_pattern != pat) s.nan_pattern += "/" + pat;
    return "NaN";
  }
  if (kind == "+inf" || kind == "-inf") {
    const bool ok = d.is_inf() && d.sign == (kind == "-inf");
    s.inf_ok &= ok;
    return ok ? "Inf" : "not the Inf expected";
  }
  if (kind == "-0" || kind == "+0" || kind == "-0u") {
    const bool ok = d.is_zero() && d.sign == (kind != "+0");
    if (kind == "-0" && d.is_zero()) s.negative_zero = d.sign;
    if (kind == "-0u" && d.is_zero()) s.underflow_negative_zero = d.sign;
    if (kind == "+0") s.zero_ok &= ok;
    if (!d.is_zero()) s.zero_ok = false;
    return d.is_zero() ? (d.sign ? "-0" : "+0") : "not zero";
  }
  if (d.is_inf()) {
    s.overflow_inf = true;
    return "overflow -> Inf";
  }
  if (out == max_finite_bits(P.fd, d.sign)) {
    s.overflow_inf = false;
    return "overflow -> max finite (saturated)";
  }
  return d.is_nan() ? "overflow -> NaN" : "no overflow";
}

std::string special_verdict(const SpecialReadings& s, bool overflow_probe) {
  std::ostringstream v;
  v << "NaN in, NaN out" << (s.nan_ok ? "" : " (NOT always)") << "; every NaN result has the bit pattern " << s.nan_pattern
    << " (canonical: sign, payload and signalling-ness of an input NaN are not kept). Inf*0 and Inf-Inf give NaN, "
    << "infinities propagate" << (s.inf_ok ? "" : " (with exceptions, see rows)") << ". ";
  if (s.negative_zero && *s.negative_zero)
    v << "Zero results carry IEEE 754 signs (-0 when every addend is -0 or a negative result underflows; an exact "
         "cancellation gives +0). ";
  else if (s.negative_zero)
    v << "Every zero result is +0: even when every addend is -0, or a negative result underflows (not IEEE 754). ";
  if (!overflow_probe) v << "Overflow cannot be reached with these formats.";
  else if (s.overflow_inf) v << (*s.overflow_inf ? "Overflow gives ±Inf (even under round-toward-zero, where IEEE would give the largest finite)."
                                                 : "Overflow saturates to ±max finite.");
  return v.str();
}

FeatureReport recipe_special(Ctx& ctx) {
  FeatureReport r = start(ctx, "special");
  const Planner& P = ctx.P;
  SpecialProbes sp;
  add_nan_inf_probes(P, sp);
  add_signed_zero_probes(ctx, sp);
  const bool overflow_probe = add_overflow_probes(ctx, sp);
  const auto out = ctx.eval(sp.cs);
  SpecialReadings s;
  for (std::size_t t = 0; t < sp.cs.size(); ++t)
    ctx.row(r, sp.labels[t], sp.cs[t], out[t], read_special(P, sp.kinds[t], out[t], s));
  if (s.overflow_inf) ctx.m.overflow_to_inf = s.overflow_inf;
  if (s.negative_zero) ctx.m.negative_zero_results = s.negative_zero;
  if (s.negative_zero && s.underflow_negative_zero && *s.negative_zero != *s.underflow_negative_zero)
    r.anomalies.push_back("-0 from -0 addends and -0 from an underflow disagree");
  r.facts.push_back({"nan_pattern", s.nan_pattern});
  r.facts.push_back({"nan_propagates", s.nan_ok});
  r.facts.push_back({"inf_behaves_ieee", s.inf_ok});
  r.facts.push_back({"negative_zero_results", std::string(!s.negative_zero ? "unknown" : *s.negative_zero ? "ieee" : "never (+0)")});
  r.facts.push_back({"overflow", std::string(!overflow_probe ? "unreachable" : !s.overflow_inf ? "not seen" : *s.overflow_inf ? "inf" : "saturate")});
  r.verdict = special_verdict(s, overflow_probe);
  if (!s.nan_ok || !s.inf_ok || !s.zero_ok) r.anomalies.push_back("special values differ from tcnum's datapath rules");
  if (s.nan_pattern.find('/') != std::string::npos) r.anomalies.push_back("more than one NaN pattern");
  return r;
}

}  // namespace

const FeatureTest& special_test() {
  static const FeatureTest test{"special", {sources::khattak_mikaitis2025, sources::ieee754_2019}, {"blocksize"}, {}, recipe_special, nullptr};
  return test;
}

}  // namespace tcnum::features::detail
