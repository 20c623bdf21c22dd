// Feature test "round".
// docs/numprobe.md describes the recipe, its verdict rule and its sources.
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

// round: rounding of the FP32 result, of the FP16 result, and between blocks. Probes are
// 6.125*2^e (two products 1.75*1.75*2^e: nominal e, leading bit e+2) plus a high group
// r*2^(e-10) (FP16 guard bits) and a low group q*2^(e-24) (FP32 guard bits); the rounding
// parameters are the candidates that reproduce every output.

// Rounds v to `prec` significant bits with a named IEEE mode (v normal, no range limits).
double round_to(double v, int prec, const std::string& mode) {
  if (v == 0) return 0;
  const int e = std::ilogb(v);
  const double ulp = std::ldexp(1.0, e - prec + 1);
  const double q = v / ulp;
  double k;
  if (mode == "rz") k = std::trunc(q);
  else if (mode == "rd") k = std::floor(q);
  else if (mode == "ru") k = std::ceil(q);
  else if (mode == "rna") k = std::round(q);
  else k = std::nearbyint(q);
  return k * ulp;
}

// The probes of the round recipe and what each one is.
struct RoundProbe {
  int sign, rr, q;
  bool between;
  int mid = 0;          // a middle group m*2^(e-14) in place of the low group (block-result precision)
  bool cprobe = false;  // C nonzero (how and where C is added)
};
struct RoundProbes {
  int e = 0;  // the products' nominal exponent
  std::vector<Case> cs;
  std::vector<RoundProbe> info;
  void add(const Case& g, RoundProbe p) {
    cs.push_back(g);
    info.push_back(p);
  }
};

// Two products 6.125*2^e in the last block, plus a high group r*2^(e-10) (FP16 guard bits) and a
// low group q*2^(e-24) (FP32 guard bits), or a middle group m*2^(e-14) in place of the low one.
void add_single_block_probes(Ctx& ctx, const Pair& base, const Pair& basen, RoundProbes& pr) {
  const Planner& P = ctx.P;
  const int e = pr.e;
  const auto L = ctx.block(-1);  // the last product block: its rounding is the output's
  for (int sign : {1, -1})
    for (int rr = 0; rr < 8; ++rr)
      for (int q = -15; q <= 15; ++q) {
        Case g = P.blank();
        put(g, L[0], sign > 0 ? base : basen);
        put(g, L[1], sign > 0 ? base : basen);
        if (rr && !put(g, L[2], P.product_value(sign * rr * std::ldexp(1.0, e - 10)))) continue;
        if (q && !put(g, L[3], P.product_value(sign * q * std::ldexp(1.0, e - 24)))) continue;
        pr.add(g, {sign, rr, q, false});
      }
  for (int sign : {1, -1})
    for (int rr : {0, 2, 5})
      for (int mid = -15; mid <= 15; ++mid) {
        if (!mid) continue;
        Case g = P.blank();
        put(g, L[0], sign > 0 ? base : basen);
        put(g, L[1], sign > 0 ? base : basen);
        if (rr && !put(g, L[2], P.product_value(sign * rr * std::ldexp(1.0, e - 10)))) continue;
        if (!put(g, L[3], P.product_value(sign * mid * std::ldexp(1.0, e - 14)))) continue;
        pr.add(g, {sign, rr, 0, false, mid});
      }
}

// Between blocks: block 0 as above (positive), block 1 subtracts the base and the high group.
void add_between_block_probes(Ctx& ctx, const Pair& base, RoundProbes& pr) {
  const Planner& P = ctx.P;
  const int e = pr.e;
  const auto B0 = ctx.block(0), B1 = ctx.block(1);
  const Pair minus_base = P.product_sig(1.75, 3.5, e, true);
  if (B1.size() < 2 || !minus_base) return;
  for (int rr = 0; rr < 8; ++rr)
    for (int q = -15; q <= 15; ++q) {
      Case g = P.blank();
      put(g, B0[0], base), put(g, B0[1], base);
      if (rr && !put(g, B0[2], P.product_value(rr * std::ldexp(1.0, e - 10)))) continue;
      if (q && !put(g, B0[3], P.product_value(q * std::ldexp(1.0, e - 24)))) continue;
      put(g, B1[0], minus_base);
      if (rr && !put(g, B1[1], P.product_value(-rr * std::ldexp(1.0, e - 10)))) continue;
      pr.add(g, {1, rr, q, true, 0});
    }
}

// C next to the products: small C at D's guard bits, and large C with the products below it.
void add_addend_probes(Ctx& ctx, const Pair& base, RoundProbes& pr) {
  const Planner& P = ctx.P;
  const auto L = ctx.block(-1);
  const int pd = spec(P.fd).frac_bits;
  for (int sign : {1, -1})
    for (int m : {1, 3, 5, 7})
      for (int x : {-(pd + 2), -(pd + 1), -pd, -(pd - 1), -(pd - 2), -(pd - 3), 4, 6}) {
        const auto c = P.c_bits(sign * m * std::ldexp(1.0, pr.e + x));
        if (!c) continue;
        Case g = P.blank();
        put(g, L[0], base), put(g, L[1], base);
        g.c = *c;
        pr.add(g, {1, 0, 0, false, 0, true});
      }
}

// Every rounding candidate tried, and whether it reproduces every probe.
struct RoundCandidates {
  std::vector<DatapathParams> cands;
  std::vector<int> ok;
  std::size_t matching_count() const { return static_cast<std::size_t>(std::count(ok.begin(), ok.end(), 1)); }
};

// Candidates: block format (f32, or D's format when D is f16) x block rounding x output
// rounding x direct/double, in order of preference (tcnum's defaults first).
// Block results keep the block format's precision (P = 0) unless no such candidate fits;
// then a narrower block-result register (P fraction bits) is searched.
RoundCandidates search_roundings(Ctx& ctx, const RoundProbes& pr, const std::vector<std::uint32_t>& out) {
  const Planner& P = ctx.P;
  const bool f16_out = P.fd != Format::fp32;
  RoundCandidates rc;
  std::vector<Format> bfs = {Format::fp32};
  if (f16_out) bfs.push_back(P.fd);
  const DatapathParams basep = ctx.params();
  std::vector<int> p_values = {0};
  for (int pv = 7; pv < spec(Format::fp32).frac_bits; ++pv) p_values.push_back(pv);
  // C joins the first block, or (the order recipe saw it survive) is added after the products:
  // as a block of its own, or by one IEEE addition (FADD/HADD2).
  std::vector<AddendEntry> addends = {AddendEntry::first_block};
  if (basep.addend != AddendEntry::first_block) addends = {AddendEntry::ieee_add, AddendEntry::last_block};
  for (std::size_t pi = 0; pi < p_values.size(); ++pi) {
    if (pi == 1 && rc.matching_count() > 0) break;
    for (AddendEntry ad : addends)
    for (Format bf : bfs)
      for (Rounding br : {Rounding::toward_zero, Rounding::nearest_even})
        for (Rounding orr : {Rounding::nearest_even, Rounding::toward_zero})
          for (bool direct : {true, false}) {
            // Output rounding and direct/double act only when D is narrower than the blocks (and
            // the output rounding also in the IEEE addition of C).
            if ((!f16_out || bf == P.fd) && ((orr != Rounding::nearest_even && ad != AddendEntry::ieee_add) || !direct))
              continue;
            DatapathParams p = basep;
            p.addend = ad;
            p.block_format = bf, p.block_rounding = br, p.output_rounding = orr, p.output_direct = direct;
            p.block_result_frac_bits = p_values[pi];
            if (p.block_result_frac_bits >= spec(bf).frac_bits) continue;
            int good = 1;
            for (std::size_t t = 0; t < pr.cs.size() && good; ++t)
              good = emulate_case(p, ctx.in, pr.cs[t]) == out[t];
            rc.cands.push_back(p);
            rc.ok.push_back(good);
          }
  }
  return rc;
}

// Distinct functions among the matching candidates (effective parameters on this instruction).
std::vector<DatapathParams> distinct_matching(const Ctx& ctx, const RoundCandidates& rc) {
  std::vector<DatapathParams> v;
  for (std::size_t c = 0; c < rc.cands.size(); ++c) {
    if (!rc.ok[c]) continue;
    const DatapathParams e = effective_params(rc.cands[c], ctx.in);
    if (std::find(v.begin(), v.end(), e) == v.end()) v.push_back(e);
  }
  return v;
}

// Closed-form reading of the result's rounding on single-block probes: the exact sum of the
// terms as aligned (truncated at 2^(e-F)) against each IEEE mode. The modes that fit every
// readable probe, "/"-separated; nullopt when no probe is readable.
std::optional<std::string> closed_form_rounding(const Ctx& ctx, const RoundProbes& pr,
                                                const std::vector<std::uint32_t>& out,
                                                const std::optional<DatapathParams>& pick) {
  const Planner& P = ctx.P;
  const bool f16_out = P.fd != Format::fp32;
  const int F = *ctx.m.frac_bits, K = ctx.in.k, kb = effective_kb(ctx), e = pr.e;
  std::map<std::string, int> mode_hits;
  const std::vector<std::string> modes = {"rz", "rne", "ru", "rd", "rna"};
  int readable = 0;
  for (std::size_t t = 0; t < pr.cs.size(); ++t) {
    const RoundProbe& info = pr.info[t];
    if (info.between || info.cprobe) continue;
    if (f16_out && (kb < K || (pick && (pick->block_format == P.fd || !pick->output_direct)))) continue;
    const double quantum = std::ldexp(1.0, e - F);
    auto trunc_term = [&](double v) { return std::copysign(std::floor(std::fabs(v) / quantum) * quantum, v); };
    const double s = info.sign;
    const double v = 2 * trunc_term(s * std::ldexp(3.0625, e)) + trunc_term(s * info.rr * std::ldexp(1.0, e - 10)) +
                     trunc_term(s * info.q * std::ldexp(1.0, e - 24)) + trunc_term(s * info.mid * std::ldexp(1.0, e - 14));
    const double got = P.d_value(out[t]);
    ++readable;
    for (const auto& md : modes)
      if (round_to(v, f16_out ? 11 : 24, md) == got) ++mode_hits[md];
  }
  if (!readable) return std::nullopt;
  std::string observed;
  for (const auto& md : modes)
    if (mode_hits[md] == readable) observed += (observed.empty() ? "" : "/") + md;
  return observed;
}

// Rows: a few telling probes.
void show_telling_probes(Ctx& ctx, const RoundProbes& pr, const std::vector<std::uint32_t>& out, FeatureReport& r) {
  const int e = pr.e;
  int shown = 0;
  for (std::size_t t = 0; t < pr.cs.size() && shown < 10; ++t) {
    const RoundProbe& pi = pr.info[t];
    const bool tell = (pi.rr == 0 && (pi.q == 4 || pi.q == 6 || pi.q == -4 || pi.q == 12 || pi.q == 2)) ||
                      (pi.rr == 2 && (pi.q == 1 || pi.q == -1 || pi.q == 0));
    if (!tell || (pi.sign < 0 && pi.rr) || pi.mid || pi.cprobe) continue;
    std::string label = std::string(pi.sign < 0 ? "-" : "") + "(6.125*2^" + std::to_string(e) +
                        (pi.rr ? " + " + std::to_string(pi.rr) + "*2^" + std::to_string(e - 10) : "") +
                        (pi.q ? (pi.q > 0 ? " + " : " - ") + std::to_string(std::abs(pi.q)) + "*2^" + std::to_string(e - 24) : "") +
                        ")" + (pi.between ? " in block 0, minus its high part in block 1" : "");
    ctx.row(r, label, pr.cs[t], out[t], "");
    ++shown;
  }
}

// The verdict's sentences on the result's rounding (FP32 D, or D narrower than the blocks).
void describe_result_rounding(const Ctx& ctx, const DatapathParams& pick, bool unique, bool between_tested,
                              std::ostringstream& v) {
  const Planner& P = ctx.P;
  const int F = *ctx.m.frac_bits, K = ctx.in.k, kb = effective_kb(ctx);
  const DatapathParams eff = effective_params(pick, ctx.in);
  if (P.fd == Format::fp32) {
    const DatapathParams alt = [&] {
      DatapathParams a = pick;
      a.block_rounding = a.block_rounding == Rounding::toward_zero ? Rounding::nearest_even : Rounding::toward_zero;
      return effective_params(a, ctx.in);
    }();
    if (alt == eff)
      v << "The FP32 rounding mode cannot be seen: with F = " << F << " every block sum fits FP32 exactly. ";
    else
      v << "The FP32 result is rounded with " << rounding_words(pick.block_rounding) << (unique ? "" : " (not unique)") << ". ";
    if (between_tested && kb < K) v << "Between blocks the partial sum is rounded into FP32 the same way. ";
  } else if (pick.block_format == P.fd && kb < K) {
    v << "Every block result is rounded into " << name_of(P.fd) << " with " << rounding_words(pick.block_rounding)
      << ", and the next block starts from that " << name_of(P.fd) << " value (one rounding per block, no FP32 step). ";
  } else {
    if (kb < K)
      v << "Between blocks the partial sum is rounded into FP32 with " << rounding_words(pick.block_rounding) << ". ";
    const Rounding final_mode = eff.block_format == P.fd ? eff.block_rounding : eff.output_rounding;
    v << "The " << name_of(P.fd) << " result is rounded "
      << (eff.output_direct || eff.block_format == P.fd ? "once, directly from the exact block sum, "
                                                         : "via an FP32 result (double rounding), ")
      << "with " << rounding_words(final_mode) << (unique ? "" : " (other roundings also fit these probes)") << ". ";
  }
}

// The verdict on the picked rounding, and its facts.
std::string round_verdict(const Ctx& ctx, const DatapathParams& pick, bool unique, bool between_tested,
                          const std::optional<std::string>& observed, FeatureReport& r) {
  const Planner& P = ctx.P;
  std::ostringstream v;
  describe_result_rounding(ctx, pick, unique, between_tested, v);
  if (pick.addend == AddendEntry::ieee_add)
    v << "C is added after the products by one IEEE addition (exact sum, then " << rounding_words(pick.output_rounding)
      << " into " << name_of(P.fd) << "), as an FADD/HADD2 after an MMA whose C is zero. ";
  else if (pick.addend == AddendEntry::last_block)
    v << "C is added after the products as a block of its own (aligned and truncated like the products). ";
  if (observed && !observed->empty() && observed->find('/') == std::string::npos)
    v << "Closed-form reading (sum as aligned, then each IEEE mode): only " << *observed << " fits.";
  r.facts.push_back({"block_format", std::string(name_of(pick.block_format))});
  if (pick.block_result_frac_bits > 0) {
    r.facts.push_back({"block_result_frac_bits", static_cast<std::int64_t>(pick.block_result_frac_bits)});
    v << " Block results are cut to " << pick.block_result_frac_bits << " fraction bits below their own leading bit ("
      << rounding_short(pick.block_rounding) << ") before they are stored: a register narrower than "
      << name_of(pick.block_format) << " (e8m" << pick.block_result_frac_bits << ").";
  }
  r.facts.push_back({"block_rounding", std::string(rounding_short(pick.block_rounding))});
  if (P.fd != Format::fp32) {
    r.facts.push_back({"output_rounding", std::string(rounding_short(pick.output_rounding))});
    r.facts.push_back({"output_direct", pick.output_direct});
  }
  return v.str();
}

FeatureReport recipe_round(Ctx& ctx) {
  FeatureReport r = start(ctx, "round");
  const Planner& P = ctx.P;
  if (!ctx.m.frac_bits || ctx.m.frac_bits_at_least) return not_applicable(ctx, "round", "needs F from the align recipe");
  if (effective_kb(ctx) < 4) return not_applicable(ctx, "round", "needs 4 products in one block");
  RoundProbes pr;
  pr.e = std::min({P.hi - 1, P.d_emax() - 3, 60});
  const Pair base = P.product_sig(1.75, 1.75, pr.e), basen = P.product_sig(1.75, 1.75, pr.e, true);
  if (!base || !basen) return not_applicable(ctx, "round", "no probe fits the formats");
  add_single_block_probes(ctx, base, basen, pr);
  add_between_block_probes(ctx, base, pr);
  add_addend_probes(ctx, base, pr);
  const auto out = ctx.eval(pr.cs);

  const RoundCandidates rc = search_roundings(ctx, pr, out);
  const auto matching = distinct_matching(ctx, rc);
  std::optional<DatapathParams> pick;
  for (std::size_t c = 0; c < rc.cands.size() && !pick; ++c)
    if (rc.ok[c]) pick = rc.cands[c];
  if (!pick) {
    r.anomalies.push_back("no combination of block format (f32/f16), RZ/RNE block rounding, RZ/RNE output rounding and "
                          "direct/double output rounding reproduces the outputs");
  } else {
    ctx.m.addend = pick->addend;
    ctx.m.block_format = pick->block_format;
    ctx.m.block_result_frac_bits = pick->block_result_frac_bits;
    ctx.m.block_rounding = pick->block_rounding;
    ctx.m.output_rounding = pick->output_rounding;
    ctx.m.output_direct = pick->output_direct;
    if (matching.size() > 1)
      r.facts.push_back({"ambiguous", std::to_string(matching.size()) + " different roundings reproduce every probe"});
  }
  const std::optional<std::string> observed = closed_form_rounding(ctx, pr, out, pick);
  if (observed) r.facts.push_back({"result_rounding_observed", observed->empty() ? std::string("none of rz/rne/ru/rd/rna") : *observed});
  show_telling_probes(ctx, pr, out, r);
  const bool between_tested = std::any_of(pr.info.begin(), pr.info.end(), [](const RoundProbe& i) { return i.between; });
  r.verdict = pick ? round_verdict(ctx, *pick, matching.size() == 1, between_tested, observed, r)
                   : "No rounding tcnum can express reproduces these outputs (see the rows).";
  r.facts.push_back({"candidates_matching", static_cast<std::int64_t>(rc.matching_count())});
  return r;
}

std::vector<recipes::RecipeVerdict> published_round(const BlackBox& f, const Instruction& in) {
  using namespace recipes;
  const RecipeVerdict eab = km_extra_alignment_bits(f, in);
  const RecipeVerdict fma = km_fma_size(f, in);
  return {fasi_rounding_fp32_out(f, in), fasi_rounding_fp16_out(f, in), km_output_rounding(f, in),
          km_alignment_rounding(f, in, eab.applicable ? eab.value : -1),
          km_multi_block_rounding(f, in, fma.applicable && !fma.lower_bound ? fma.value : -1)};
}

}  // namespace

const FeatureTest& round_test() {
  static const FeatureTest test{"round", {sources::fasi2021, sources::khattak_mikaitis2025, sources::fttn2024}, {"align"}, {}, recipe_round, published_round};
  return test;
}

}  // namespace tcnum::features::detail
