// What every feature test shares: exact input construction (Planner), the running context of
// one characterisation (Ctx) and the pieces of a report. The tests themselves are
// feature_<name>.cpp, listed in feature_registry.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "features_internal.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/core/corpus.hpp"
#include "tcnum/core/dot.hpp"

namespace tcnum::features {
namespace detail {


std::optional<u32> exact_bits(Format f, double x, bool allow_subnormal) {
  if (!std::isfinite(x)) return std::nullopt;
  const u32 bits = encode(f, x, Rounding::nearest_even, false);
  const Decoded d = decode(f, bits);
  if (d.is_nan() || d.is_inf()) return std::nullopt;
  if (to_double(f, bits) != x || d.sign != std::signbit(x)) return std::nullopt;
  if (!allow_subnormal && d.kind == Decoded::Kind::finite && (d.significand >> spec(f).frac_bits) == 0)
    return std::nullopt;
  return bits;
}

std::string show(Format f, u32 bits) {
  const Decoded d = decode(f, bits);
  char buf[64];
  if (d.is_nan()) std::snprintf(buf, sizeof buf, "NaN");
  else if (d.is_inf()) std::snprintf(buf, sizeof buf, "%sInf", d.sign ? "-" : "+");
  else if (d.is_zero()) std::snprintf(buf, sizeof buf, "%s0", d.sign ? "-" : "+");
  else std::snprintf(buf, sizeof buf, "%.9g", to_double(f, bits));
  return std::string(buf) + " (0x" + hex_field(f, bits) + ")";
}

std::string pow2_text(double x) {
  if (x == 0) return std::signbit(x) ? "-0" : "0";
  if (!std::isfinite(x)) return x != x ? "NaN" : (x > 0 ? "+Inf" : "-Inf");
  int k = std::ilogb(x);
  double m = std::ldexp(x, -k);
  for (int guard = 0; m != std::floor(m) && guard < 80; ++guard) m *= 2, --k;
  while (std::fmod(m, 2.0) == 0) m /= 2, ++k;
  char buf[64];
  if (m == 1) std::snprintf(buf, sizeof buf, "2^%d", k);
  else if (m == -1) std::snprintf(buf, sizeof buf, "-2^%d", k);
  else std::snprintf(buf, sizeof buf, "%.0f*2^%d", m, k);
  return buf;
}

Planner::Planner(const Instruction& i) : in(i), fa(i.a_type), fb(i.b_type), fc(i.c_type), fd(i.d_type) {
  lo = std::max(-100, spec(fa).emin() + spec(fb).emin());
  hi = std::min(100, spec(fa).emax() + spec(fb).emax());
}

Case Planner::blank() const {
  Case g;
  g.a.assign(in.k, zero_bits(fa, false));
  g.b.assign(in.k, zero_bits(fb, false));
  g.c = zero_bits(fc, false);
  return g;
}

Pair Planner::product_sig(double sa, double sb, int e, bool negative) const {
  const int mid = e >= 0 ? e / 2 : -((1 - e) / 2);
  for (int d = 0; d <= 400; ++d) {
    for (int sgn : {1, -1}) {
      if (d == 0 && sgn < 0) continue;
      const int ea = mid + sgn * d, eb = e - ea;
      const auto a = exact_bits(fa, (negative ? -1.0 : 1.0) * std::ldexp(sa, ea), false);
      const auto b = exact_bits(fb, std::ldexp(sb, eb), false);
      if (a && b) return std::make_pair(*a, *b);
    }
  }
  return std::nullopt;
}

Pair Planner::product_value(double v, bool allow_subnormal) const {
  if (v == 0 || !std::isfinite(v)) return std::nullopt;
  static const double sigs[] = {1, 1.5, 1.25, 1.75, 1.125, 1.375, 1.625, 1.875};
  const int ev = std::ilogb(v);
  const int mid = ev >= 0 ? ev / 2 : -((1 - ev) / 2);
  for (int d = 0; d <= 300; ++d) {
    for (int sgn : {1, -1}) {
      if (d == 0 && sgn < 0) continue;
      const int ea = mid + sgn * d;
      for (double sa : sigs) {
        const double a = std::ldexp(sa, ea);
        const double b = v / a;
        if (!std::isfinite(b) || a * b != v) continue;
        const auto ab = exact_bits(fa, a, allow_subnormal);
        const auto bb = exact_bits(fb, b, allow_subnormal);
        if (ab && bb) return std::make_pair(*ab, *bb);
      }
    }
  }
  return std::nullopt;
}

bool Planner::d_is(u32 bits, double v) const {
  const Decoded d = decode(fd, bits);
  if (v == 0) return d.is_zero();
  return d.kind == Decoded::Kind::finite && to_double(fd, bits) == v;
}

bool put(Case& g, int pos, const Pair& ab) {
  if (!ab) return false;
  g.a[pos] = ab->first;
  g.b[pos] = ab->second;
  return true;
}

std::vector<u32> Ctx::eval(const std::vector<Case>& cs) {
  if (cs.empty()) return {};
  std::vector<u32> out = box.cases(in, cs);
  if (out.size() != cs.size())
    throw std::runtime_error("black box returned " + std::to_string(out.size()) + " results for " +
                             std::to_string(cs.size()) + " cases");
  cases += cs.size();
  all_cases.insert(all_cases.end(), cs.begin(), cs.end());
  all_outputs.insert(all_outputs.end(), out.begin(), out.end());
  return out;
}

void Ctx::row(FeatureReport& r, std::string label, const Case& g, u32 got, std::string reading) {
  ProbeRow pr;
  pr.label = std::move(label);
  pr.got = show(in.d_type, got);
  pr.reading = std::move(reading);
  if (opt.reference) {
    const u32 want = emulate_case(*opt.reference, in, g);
    pr.model = show(in.d_type, want);
    pr.agrees = want == got;
  }
  r.probes.push_back(std::move(pr));
}

const FeatureReport* Ctx::find(const std::string& feature) const {
  for (const auto& r : done)
    if (r.feature == feature) return &r;
  return nullptr;
}

DatapathParams Ctx::params() const {
  DatapathParams p;
  if (m.frac_bits) p.frac_bits = *m.frac_bits;
  if (m.block_size) p.block_size = *m.block_size;
  if (m.addend) p.addend = *m.addend;
  if (m.block_format) p.block_format = *m.block_format;
  if (m.block_rounding) p.block_rounding = *m.block_rounding;
  if (m.output_rounding) p.output_rounding = *m.output_rounding;
  if (m.output_direct) p.output_direct = *m.output_direct;
  if (m.flush_subnormal_inputs) p.flush_subnormal_inputs = *m.flush_subnormal_inputs;
  if (m.overflow_to_inf) p.overflow_to_inf = *m.overflow_to_inf;
  if (m.block_result_frac_bits) p.block_result_frac_bits = *m.block_result_frac_bits;
  if (m.negative_zero_results) p.negative_zero_results = *m.negative_zero_results;
  if (m.k_passes) p.k_passes = *m.k_passes;
  if (m.pass_interleave) p.pass_interleave = *m.pass_interleave;
  if (m.unpack_format) p.unpack_format = *m.unpack_format;
  if (m.align_exponent_floor) p.align_exponent_floor = *m.align_exponent_floor;
  if (m.scale_group) p.scale_group = *m.scale_group;
  // Scaled groups cannot straddle blocks: with the block size unmeasured (FP4's narrow range), one
  // block of all K stands in for the default.
  if (p.scale_group > 1 && (p.block_size <= 0 || p.block_size % p.scale_group != 0)) p.block_size = 0;
  return p;
}

// The datapath's schedule under the structure measured so far (one block of all K before the
// order recipe ran).
DatapathParams Ctx::measured_structure() const {
  DatapathParams p;
  p.k_passes = m.k_passes.value_or(1);
  p.pass_interleave = m.pass_interleave.value_or(1);
  p.block_size = m.block_size.value_or(0);
  return p;
}

std::vector<int> Ctx::block(int b) const {
  const DatapathParams p = measured_structure();
  const std::vector<int> order = product_schedule(p, in.k);
  const int kb = block_length(p, in.k);
  const int blocks = in.k / kb;
  if (b < 0) b += blocks;
  if (b < 0 || b >= blocks) return {};
  return std::vector<int>(order.begin() + b * kb, order.begin() + (b + 1) * kb);
}

int Ctx::block_count() const { return in.k / block_length(measured_structure(), in.k); }

const char* rounding_words(Rounding r) {
  return r == Rounding::toward_zero ? "round toward zero (truncation)" : "round to nearest, ties to even";
}
const char* rounding_short(Rounding r) { return r == Rounding::toward_zero ? "rz" : "rne"; }

FeatureReport start(const Ctx& ctx, const std::string& name) {
  FeatureReport r;
  r.feature = name;
  r.instruction = ctx.in.name;
  r.source = feature_source(name);
  return r;
}

FeatureReport not_applicable(const Ctx& ctx, const std::string& name, const std::string& why) {
  FeatureReport r = start(ctx, name);
  r.applicable = false;
  r.verdict = why;
  return r;
}

int effective_kb(const Ctx& ctx) { return static_cast<int>(ctx.block(0).size()); }

}  // namespace detail
}  // namespace tcnum::features
