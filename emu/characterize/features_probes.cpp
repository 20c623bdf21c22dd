// The feature recipes of numprobe --op: designed inputs, a black box, a verdict rule.
// docs/numprobe.md describes each recipe, its rule and its source.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "features_internal.hpp"
#include "tcnum/core/corpus.hpp"
#include "tcnum/core/dot.hpp"

namespace tcnum::features {
namespace detail {

using u32 = std::uint32_t;
using Pair = std::optional<std::pair<u32, u32>>;

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

GeneratedCase Planner::blank() const {
  GeneratedCase g;
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

bool put(GeneratedCase& g, int pos, const Pair& ab) {
  if (!ab) return false;
  g.a[pos] = ab->first;
  g.b[pos] = ab->second;
  return true;
}

std::vector<u32> Ctx::eval(const std::vector<GeneratedCase>& cs) {
  if (cs.empty()) return {};
  std::vector<u32> out = box(cs);
  if (out.size() != cs.size())
    throw std::runtime_error("black box returned " + std::to_string(out.size()) + " results for " +
                             std::to_string(cs.size()) + " cases");
  cases += cs.size();
  all_cases.insert(all_cases.end(), cs.begin(), cs.end());
  all_outputs.insert(all_outputs.end(), out.begin(), out.end());
  return out;
}

void Ctx::row(FeatureReport& r, std::string label, const GeneratedCase& g, u32 got, std::string reading) {
  ProbeRow pr;
  pr.label = std::move(label);
  pr.got = show(in.d_type, got);
  pr.reading = std::move(reading);
  if (opt.reference) {
    const u32 want = mma_element(*opt.reference, in, g.a, g.b, g.c);
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
  return p;
}

std::vector<int> Ctx::block(int b) const {
  const int K = in.k;
  const int passes = m.k_passes.value_or(1), il = m.pass_interleave.value_or(1);
  const int pass_len = K / passes;
  const int kb = m.block_size ? std::min(*m.block_size, pass_len) : pass_len;
  std::vector<int> order;
  for (int pass = 0; pass < passes; ++pass)
    for (int i = 0; i < K; ++i)
      if ((i / il) % passes == pass) order.push_back(i);
  const int blocks = K / kb;
  if (b < 0) b += blocks;
  if (b < 0 || b >= blocks) return {};
  return std::vector<int>(order.begin() + b * kb, order.begin() + (b + 1) * kb);
}

int Ctx::block_count() const {
  const int passes = m.k_passes.value_or(1);
  const int pass_len = in.k / passes;
  const int kb = m.block_size ? std::min(*m.block_size, pass_len) : pass_len;
  return in.k / kb;
}

namespace {

const char* kFasi = "Fasi, Higham, Mikaitis, Pranesh, \"Numerical behavior of NVIDIA tensor cores\", PeerJ CS 7:e330 (2021)";
const char* kKM = "Khattak & Mikaitis, \"Accurate models of NVIDIA tensor cores\", HPEC 2025 (arXiv 2512.07004)";
const char* kFTTN = "Li, Laguna, Gopalakrishnan et al., \"FTTN: Feature-targeted testing for numerical properties of NVIDIA & AMD matrix accelerators\", CCGrid 2024";
const char* kFPRev = "Xie et al., \"FPRev: Revealing the order of floating-point summation\", USENIX ATC 2025";
const char* kMono = "Mikaitis, \"Monotonicity of multi-term floating-point adders\", IEEE TC 2024";

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

// ---------------------------------------------------------------------------------------
// order / blocksize: FPRev-style survivors. M at p_i, -M at p_j, 2^(eM-J) everywhere else:
// a small term survives only if it is added after M and -M have met (J > F, and FP32
// cannot hold M + small), so the count of survivors places i and j in the summation tree.

// The order in which products are fed and how they are cut into blocks: `passes` chained
// passes (pass p takes the k with (k / interleave) % passes == p, in order), each cut into
// blocks of kb; mirrors the datapath's k_passes / pass_interleave / block_size.
struct Structure {
  int passes = 1, interleave = 1, kb = 1;
};

bool valid(int K, const Structure& s) {
  if (K % (s.passes * s.interleave) != 0) return false;
  const int pass_len = K / s.passes;
  return s.kb >= 1 && s.kb <= pass_len && pass_len % s.kb == 0;
}

// Block number of every product position.
std::vector<int> block_ids(int K, const Structure& s) {
  std::vector<int> order;
  for (int pass = 0; pass < s.passes; ++pass)
    for (int i = 0; i < K; ++i)
      if ((i / s.interleave) % s.passes == pass) order.push_back(i);
  std::vector<int> id(K);
  for (int j = 0; j < K; ++j) id[order[j]] = j / s.kb;
  return id;
}

// Candidate structures, preferred first: one pass (blocks of kb), then interleaved passes.
std::vector<Structure> structures(int K) {
  std::vector<Structure> v;
  for (int passes : {1, 2, 4})
    for (int il : {1, 2, 4, 8, 16}) {
      if (passes == 1 && il != 1) continue;
      for (int kb = 1; kb <= K; ++kb) {
        const Structure s{passes, il, kb};
        if (valid(K, s)) v.push_back(s);
      }
    }
  return v;
}

int predicted_survivors(const std::vector<int>& id, int i, int j) {
  const int top = std::max(id[i], id[j]);
  int n = 0;
  for (int k = 0; k < static_cast<int>(id.size()); ++k)
    if (k != i && k != j && id[k] > top) ++n;
  return n;
}

std::string positions_text(const std::vector<int>& v) {
  std::ostringstream os;
  for (std::size_t a = 0; a < v.size();) {
    std::size_t b = a;
    while (b + 1 < v.size() && v[b + 1] == v[b] + 1) ++b;
    if (a) os << ",";
    os << "p" << v[a];
    if (b > a) os << (b == a + 1 ? ",p" : "-p") << v[b];
    a = b + 1;
  }
  return os.str();
}

std::string chain_text(int K, const Structure& st, std::optional<AddendEntry> addend, Format d) {
  const auto id = block_ids(K, st);
  const int blocks = *std::max_element(id.begin(), id.end()) + 1;
  const bool c_after = addend && *addend != AddendEntry::first_block;
  std::ostringstream os;
  for (int b = 0; b < blocks; ++b) {
    std::vector<int> members;
    for (int k = 0; k < K; ++k)
      if (id[k] == b) members.push_back(k);
    os << (b == 0 ? "(" : " -> (acc + ");
    if (b == 0 && !c_after) os << "C + ";
    os << positions_text(members) << ")";
  }
  if (c_after) os << " -> (acc + C)";
  os << " -> D (" << name_of(d) << ")";
  return os.str();
}

FeatureReport recipe_order(Ctx& ctx, bool full) {
  const std::string name = full ? "order" : "blocksize";
  FeatureReport r = start(ctx, name);
  const Planner& P = ctx.P;
  const int K = ctx.in.k;
  int es = std::max(P.lo, P.d_emin());
  // M must fit a block result even when blocks are rounded into D's format (f16 D).
  const int eM = std::min({P.hi, es + 60, 100, P.d_emax()});
  Pair S = P.product_sig(1, 1, es);
  // The small terms must vanish next to M even when all K of them have been summed first
  // (2^J > 2^F * K, F up to ~26): narrow formats (e4m3) need subnormal factors for that,
  // if the black box keeps subnormals (one case decides).
  const int want_j = 27 + static_cast<int>(std::ceil(std::log2(K)));
  if (eM - es < want_j) {
    const int es_sub = std::max({eM - want_j, spec(P.fd).emin() - spec(P.fd).frac_bits,
                                 spec(P.fa).emin() - spec(P.fa).frac_bits + spec(P.fb).emin() - spec(P.fb).frac_bits});
    const Pair Ss = P.product_value(std::ldexp(1.0, es_sub), true);
    if (es_sub < es && Ss) {
      GeneratedCase g = P.blank();
      put(g, 0, Ss);
      if (P.d_is(ctx.eval({g}).at(0), std::ldexp(1.0, es_sub))) es = es_sub, S = Ss;
    }
  }
  const int J = eM - es;
  const Pair M = P.product_sig(1, 1, eM), Mn = P.product_sig(1, 1, eM, true);
  if (J < 12 || !M || !Mn || !S)
    return not_applicable(ctx, name, "the input formats span too few binades for the survivor recipe");
  const double small = std::ldexp(1.0, es);

  std::vector<GeneratedCase> cs;
  std::vector<std::pair<int, int>> pos;  // (i, j); i = -1: C holds M
  for (int i = 0; i < (full ? K : 1); ++i)
    for (int j = i + 1; j < K; ++j) {
      GeneratedCase g = P.blank();
      for (int k = 0; k < K; ++k) put(g, k, k == i ? M : k == j ? Mn : S);
      cs.push_back(g);
      pos.emplace_back(i, j);
    }
  // C row: C = +Mc, -Mc at p_j (Mc within C's range).
  const int eMc = std::min(eM, spec(P.fc).emax());
  const auto Mc = P.c_bits(std::ldexp(1.0, eMc));
  const Pair Mcn = P.product_sig(1, 1, eMc, true);
  const bool c_row = full && Mc && Mcn && eMc - es >= 12;
  if (c_row)
    for (int j = 0; j < K; ++j) {
      GeneratedCase g = P.blank();
      g.c = *Mc;
      for (int k = 0; k < K; ++k) put(g, k, k == j ? Mcn : S);
      cs.push_back(g);
      pos.emplace_back(-1, j);
    }
  // Addend probe: p0 = M, p1 = -M, C = 2^ec (small, in C's normal range): C first in the
  // block with the Ms -> truncated (D = 0); C added after all products -> D = C.
  const double small_c = std::ldexp(1.0, std::max(es, spec(P.fc).emin()));
  const auto Cs = P.c_bits(small_c);
  std::size_t addend_idx = cs.size();
  if (Cs) {
    GeneratedCase g = P.blank();
    put(g, 0, M);
    put(g, 1, Mn);
    g.c = *Cs;
    cs.push_back(g);
  }
  const auto out = ctx.eval(cs);

  // Survivor counts.
  std::vector<int> n(cs.size(), -1);
  for (std::size_t t = 0; t < addend_idx; ++t) {
    const Decoded d = decode(P.fd, out[t]);
    if (d.is_zero()) {
      n[t] = 0;
      continue;
    }
    if (d.kind != Decoded::Kind::finite) continue;
    const double q = to_double(P.fd, out[t]) / small;
    if (q == std::floor(q) && q >= 0 && q <= K) n[t] = static_cast<int>(q);
  }
  std::vector<Structure> matches;
  for (const Structure& st : structures(K)) {
    const auto id = block_ids(K, st);
    bool ok = true;
    for (std::size_t t = 0; t < addend_idx && ok; ++t)
      if (pos[t].first >= 0) ok = n[t] == predicted_survivors(id, pos[t].first, pos[t].second);
    if (ok) matches.push_back(st);
  }
  bool all_survive = true;
  for (std::size_t t = 0; t < addend_idx; ++t)
    if (pos[t].first >= 0 && n[t] != K - 2) all_survive = false;

  // Addend.
  std::optional<AddendEntry> addend;
  std::string addend_reading = "no probe";
  if (Cs && addend_idx < out.size()) {
    if (P.d_is(out[addend_idx], 0)) addend = AddendEntry::first_block, addend_reading = "C truncated with the Ms: first block";
    else if (P.d_is(out[addend_idx], small_c))
      addend = AddendEntry::last_block, addend_reading = "C survived: added after the products (the round recipe tells how)";
    else addend_reading = "unexpected";
  }
  const std::optional<Structure> st = matches.empty() ? std::nullopt : std::optional<Structure>(matches.front());
  // C row consistent with the addend?
  if (c_row && st && addend) {
    const auto id = block_ids(K, *st);
    for (std::size_t t = 0; t < addend_idx; ++t) {
      if (pos[t].first >= 0) continue;
      const int j = pos[t].second;
      int want = 0;
      if (*addend == AddendEntry::first_block)
        for (int k = 0; k < K; ++k)
          if (k != j && id[k] > id[j]) ++want;
      if (n[t] != want) {
        r.anomalies.push_back("C row: with C = M and -M at p" + std::to_string(j) + ", " + std::to_string(n[t]) +
                              " small terms survived where a chain of blocks predicts " + std::to_string(want));
        break;
      }
    }
  }

  // Rows: the i = 0 row and the C row (the full matrix goes into a fact).
  for (std::size_t t = 0; t < addend_idx; ++t) {
    const auto [i, j] = pos[t];
    if (i > 0) continue;
    std::string label = i < 0 ? "C = M, -M at p" + std::to_string(j) : "M at p0, -M at p" + std::to_string(j);
    label += ", 2^" + std::to_string(es) + " elsewhere";
    ctx.row(r, label, cs[t], out[t], n[t] < 0 ? "unexpected" : std::to_string(n[t]) + " survive");
  }
  if (Cs && addend_idx < out.size())
    ctx.row(r, "M at p0, -M at p1, C = " + pow2_text(small_c), cs[addend_idx], out[addend_idx], addend_reading);

  if (full) {
    std::ostringstream mat;
    for (int i = 0; i < K; ++i) {
      if (i) mat << "; ";
      mat << "p" << i << ":";
      for (std::size_t t = 0; t < addend_idx; ++t)
        if (pos[t].first == i) mat << ' ' << n[t];
    }
    r.facts.push_back({"survivors", mat.str()});
  }
  r.facts.push_back({"dynamic_range_bits", static_cast<std::int64_t>(J)});

  if (matches.empty()) {
    if (all_survive) {
      r.verdict = "Every small term survived even next to M and -M: the adder keeps at least " + std::to_string(J) +
                  " bits below the largest term, so this recipe (dynamic range 2^" + std::to_string(J) +
                  ") cannot see where fusion breaks.";
      ctx.m.frac_bits = J;
      ctx.m.frac_bits_at_least = true;
    } else {
      r.verdict = "No chain of fused blocks explains the survivor counts: the summation is not a sequence of "
                  "fused blocks (see the survivors matrix, FPRev's reading of the tree).";
      r.anomalies.push_back("survivor counts match no chain of fused blocks");
    }
    return r;
  }
  const int pass_len = K / st->passes;
  const int kb = st->kb;
  ctx.m.block_size = kb;
  ctx.m.block_size_at_least = kb == pass_len;
  ctx.m.k_passes = st->passes;
  ctx.m.pass_interleave = st->passes > 1 ? st->interleave : 1;
  // (the round recipe may already have told how C is added after the products: keep that)
  const bool after = addend && *addend != AddendEntry::first_block;
  if (addend && !(after && ctx.m.addend && *ctx.m.addend != AddendEntry::first_block)) ctx.m.addend = addend;
  const int blocks = K / kb;
  r.facts.push_back({"block_size", static_cast<std::int64_t>(kb)});
  r.facts.push_back({"block_size_at_least", kb == pass_len});
  r.facts.push_back({"blocks_per_instruction", static_cast<std::int64_t>(blocks)});
  r.facts.push_back({"k_passes", static_cast<std::int64_t>(st->passes)});
  if (st->passes > 1) r.facts.push_back({"pass_interleave", static_cast<std::int64_t>(st->interleave)});
  if (addend) r.facts.push_back({"addend", std::string(*addend == AddendEntry::first_block ? "first_block" : "after_products")});

  std::ostringstream v;
  if (full) {
    v << "Summation order: " << chain_text(K, *st, addend, P.fd) << ". ";
    if (st->passes > 1)
      v << "The products run as " << st->passes << " chained passes (pass p takes the k with (k / " << st->interleave
        << ") mod " << st->passes << " = p), each pass's result the next one's addend. ";
    if (blocks == 1)
      v << "All " << K << " products of the instruction are fused in one step (no break inside K, so the block size is at least " << K << "). ";
    else
      v << blocks << " fused blocks of " << kb << " products: inside a block every term is aligned to the largest exponent and added at once (no internal order); each block's result is rounded and enters the next block as one term. ";
    if (addend)
      v << (*addend == AddendEntry::first_block ? "C joins the first block, aligned with its products."
                                                : "C is added after all products.");
    v << " Read from " << cs.size() << " FPRev-style cases: M = 2^" << eM << " at p_i, -M at p_j, 2^" << es
      << " elsewhere; the survivors count the products added after M and -M met.";
  } else {
    v << ctx.in.name << ": ";
    if (blocks == 1) v << "all " << K << " products fused in one step (block size >= K)";
    else v << kb << " products fused per step, " << blocks << " steps per instruction (K = " << K << ")";
    if (st->passes > 1) v << ", in " << st->passes << " interleaved passes";
    v << ".";
  }
  r.verdict = v.str();
  return r;
}

// ---------------------------------------------------------------------------------------
// align: 2^e - 2^e + 2^(e-j) in one block: the last term survives iff j <= F.

FeatureReport recipe_align(Ctx& ctx) {
  ensure(ctx, "blocksize");
  FeatureReport r = start(ctx, "align");
  const Planner& P = ctx.P;
  const int kb = effective_kb(ctx);
  // The small term is a third product of the block, or C when blocks hold only two products.
  const bool small_in_c = kb < 3;
  if (small_in_c && ctx.m.addend != AddendEntry::first_block)
    return not_applicable(ctx, "align", "needs 3 terms in one block (block size " + std::to_string(kb) + ", C not in it)");
  const int eS = std::min({P.hi, 100, P.d_emax() + 1});
  const int tlo = std::max(small_in_c ? std::max(P.d_emin(), spec(P.fc).emin()) : P.lo, P.d_emin());
  const int jmax = std::min(80, eS - tlo);
  const Pair big = P.product_sig(1, 1, eS), bign = P.product_sig(1, 1, eS, true);
  if (!big || !bign || jmax < 8) return not_applicable(ctx, "align", "the input formats span too few binades");
  const auto B0 = ctx.block(0);
  std::vector<GeneratedCase> cs;
  for (int j = 1; j <= jmax; ++j) {
    GeneratedCase g = P.blank();
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
  if (F == jmax) {
    ctx.m.frac_bits = F;
    ctx.m.frac_bits_at_least = true;
    r.facts.push_back({"frac_bits", static_cast<std::int64_t>(F)});
    r.facts.push_back({"frac_bits_at_least", true});
    r.verdict = "Every term down to 2^-" + std::to_string(jmax) +
                " below the largest survived: the aligner keeps at least " + std::to_string(jmax) + " bits.";
    return r;
  }
  ctx.m.frac_bits = F;
  ctx.m.frac_bits_at_least = false;
  r.facts.push_back({"frac_bits", static_cast<std::int64_t>(F)});
  r.facts.push_back({"extra_bits_over_fp32", static_cast<std::int64_t>(F - 23)});

  // Second batch: how the shifted-out part goes (negative term, 0.75 quantum), and C's alignment.
  std::vector<GeneratedCase> c2;
  std::vector<std::string> what;
  if (!small_in_c && eS - F - 2 >= tlo) {
    GeneratedCase g = P.blank();
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
  if (Cbig && Cneg && eC - F - 1 >= tlo && ctx.m.addend == AddendEntry::first_block) {
    for (int j : {F, F + 1}) {
      GeneratedCase g = P.blank();
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
  r.verdict = v.str();
  return r;
}

// ---------------------------------------------------------------------------------------
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
  std::vector<GeneratedCase> cs;
  std::vector<double> want, high;
  for (const T& t : ts) {
    const double exact = t.sa * t.sb;                  // exact in double
    const double low = std::ldexp(1.0, -pa - pb);      // the last bit of every product above
    const double hi_part = exact - low;
    GeneratedCase g = P.blank();
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

// ---------------------------------------------------------------------------------------
// normalize: where the sum is normalised (not inside a block; between blocks; products by
// their nominal exponent).

FeatureReport recipe_normalize(Ctx& ctx) {
  ensure(ctx, "align");
  FeatureReport r = start(ctx, "normalize");
  const Planner& P = ctx.P;
  if (!ctx.m.frac_bits || ctx.m.frac_bits_at_least)
    return not_applicable(ctx, "normalize", "needs F from the align recipe");
  const int F = *ctx.m.frac_bits, K = ctx.in.k, kb = effective_kb(ctx);
  const int eS = std::min({P.hi, 100, P.d_emax() + 1});
  const int tlo = std::max(P.lo, P.d_emin());
  const Pair big = P.product_sig(1, 1, eS), bign = P.product_sig(1, 1, eS, true);
  const auto B0 = ctx.block(0), B1 = ctx.block(1);
  std::vector<GeneratedCase> cs;
  std::vector<std::string> what;
  if (eS - F - 1 >= tlo && kb >= 3) {
    GeneratedCase g = P.blank();
    put(g, B0[0], big), put(g, B0[1], bign), put(g, B0[2], P.product_sig(1, 1, eS - F - 1));
    cs.push_back(g), what.push_back("in_block");
  }
  if (eS - F - 1 >= tlo && !B1.empty() && kb >= 2) {
    GeneratedCase g = P.blank();
    put(g, B0[0], big), put(g, B0[1], bign), put(g, B1[0], P.product_sig(1, 1, eS - F - 1));
    cs.push_back(g), what.push_back("next_block");
  }
  const int eN = eS - 2;
  if (eN - F >= tlo && kb >= 3) {
    GeneratedCase g = P.blank();
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

// ---------------------------------------------------------------------------------------
// carry: n products of (1.75*1.75)*2^e add exactly (n*3.0625 needs log2(n)+2 bits above 2^e).

FeatureReport recipe_carry(Ctx& ctx) {
  ensure(ctx, "blocksize");
  FeatureReport r = start(ctx, "carry");
  const Planner& P = ctx.P;
  const int K = ctx.in.k, kb = effective_kb(ctx);
  std::vector<GeneratedCase> cs;
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
      GeneratedCase g = P.blank();
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

// ---------------------------------------------------------------------------------------
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

FeatureReport recipe_round(Ctx& ctx) {
  ensure(ctx, "align");
  FeatureReport r = start(ctx, "round");
  const Planner& P = ctx.P;
  if (!ctx.m.frac_bits || ctx.m.frac_bits_at_least) return not_applicable(ctx, "round", "needs F from the align recipe");
  const int F = *ctx.m.frac_bits, K = ctx.in.k, kb = effective_kb(ctx);
  if (kb < 4) return not_applicable(ctx, "round", "needs 4 products in one block");
  const int e = std::min({P.hi - 1, P.d_emax() - 3, 60});
  const Pair base = P.product_sig(1.75, 1.75, e), basen = P.product_sig(1.75, 1.75, e, true);
  if (!base || !basen) return not_applicable(ctx, "round", "no probe fits the formats");
  const bool f16_out = P.fd != Format::fp32;
  const auto L = ctx.block(-1);  // the last product block: its rounding is the output's
  const auto B0 = ctx.block(0), B1 = ctx.block(1);
  std::vector<GeneratedCase> cs;
  struct Info {
    int sign, rr, q;
    bool between;
    int mid = 0;         // a middle group m*2^(e-14) in place of the low group (block-result precision)
    bool cprobe = false;  // C nonzero (how and where C is added)
  };
  std::vector<Info> info;
  for (int sign : {1, -1})
    for (int rr = 0; rr < 8; ++rr)
      for (int q = -15; q <= 15; ++q) {
        GeneratedCase g = P.blank();
        put(g, L[0], sign > 0 ? base : basen);
        put(g, L[1], sign > 0 ? base : basen);
        if (rr && !put(g, L[2], P.product_value(sign * rr * std::ldexp(1.0, e - 10)))) continue;
        if (q && !put(g, L[3], P.product_value(sign * q * std::ldexp(1.0, e - 24)))) continue;
        cs.push_back(g);
        info.push_back({sign, rr, q, false});
      }
  for (int sign : {1, -1})
    for (int rr : {0, 2, 5})
      for (int mid = -15; mid <= 15; ++mid) {
        if (!mid) continue;
        GeneratedCase g = P.blank();
        put(g, L[0], sign > 0 ? base : basen);
        put(g, L[1], sign > 0 ? base : basen);
        if (rr && !put(g, L[2], P.product_value(sign * rr * std::ldexp(1.0, e - 10)))) continue;
        if (!put(g, L[3], P.product_value(sign * mid * std::ldexp(1.0, e - 14)))) continue;
        cs.push_back(g);
        info.push_back({sign, rr, 0, false, mid});
      }
  // Between blocks: block 0 as above (positive), block 1 subtracts the base and the high group.
  const Pair minus_base = P.product_sig(1.75, 3.5, e, true);
  if (B1.size() >= 2 && minus_base)
    for (int rr = 0; rr < 8; ++rr)
      for (int q = -15; q <= 15; ++q) {
        GeneratedCase g = P.blank();
        put(g, B0[0], base), put(g, B0[1], base);
        if (rr && !put(g, B0[2], P.product_value(rr * std::ldexp(1.0, e - 10)))) continue;
        if (q && !put(g, B0[3], P.product_value(q * std::ldexp(1.0, e - 24)))) continue;
        put(g, B1[0], minus_base);
        if (rr && !put(g, B1[1], P.product_value(-rr * std::ldexp(1.0, e - 10)))) continue;
        cs.push_back(g);
        info.push_back({1, rr, q, true, 0});
      }
  // C next to the products: small C at D's guard bits, and large C with the products below it.
  {
    const int pd = spec(P.fd).frac_bits;
    for (int sign : {1, -1})
      for (int m : {1, 3, 5, 7})
        for (int x : {-(pd + 2), -(pd + 1), -pd, -(pd - 1), -(pd - 2), -(pd - 3), 4, 6}) {
          const auto c = P.c_bits(sign * m * std::ldexp(1.0, e + x));
          if (!c) continue;
          GeneratedCase g = P.blank();
          put(g, L[0], base), put(g, L[1], base);
          g.c = *c;
          cs.push_back(g);
          info.push_back({1, 0, 0, false, 0, true});
        }
  }
  const auto out = ctx.eval(cs);

  // Candidates: block format (f32, or D's format when D is f16) x block rounding x output
  // rounding x direct/double, in order of preference (tcnum's defaults first).
  // Block results keep the block format's precision (P = 0) unless no such candidate fits;
  // then a narrower block-result register (P fraction bits) is searched.
  std::vector<DatapathParams> cands;
  std::vector<int> ok;
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
    if (pi == 1 && std::count(ok.begin(), ok.end(), 1) > 0) break;
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
            for (std::size_t t = 0; t < cs.size() && good; ++t)
              good = mma_element(p, ctx.in, cs[t].a, cs[t].b, cs[t].c) == out[t];
            cands.push_back(p);
            ok.push_back(good);
          }
  }
  // Distinct functions among the matching candidates (effective parameters on this instruction).
  auto canon = [&](const std::vector<int>& good) {
    std::vector<DatapathParams> v;
    for (std::size_t c = 0; c < cands.size(); ++c) {
      if (!good[c]) continue;
      const DatapathParams e = effective_params(cands[c], ctx.in);
      if (std::find(v.begin(), v.end(), e) == v.end()) v.push_back(e);
    }
    return v;
  };
  const auto matching = canon(ok);
  std::optional<DatapathParams> pick;
  for (std::size_t c = 0; c < cands.size() && !pick; ++c)
    if (ok[c]) pick = cands[c];
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

  // Closed-form reading of the result's rounding on single-block probes: the exact sum of
  // the terms as aligned (truncated at 2^(e-F)) against each IEEE mode.
  std::map<std::string, int> mode_hits;
  const std::vector<std::string> modes = {"rz", "rne", "ru", "rd", "rna"};
  int readable = 0;
  for (std::size_t t = 0; t < cs.size(); ++t) {
    if (info[t].between || info[t].cprobe) continue;
    if (f16_out && (kb < K || (pick && (pick->block_format == P.fd || !pick->output_direct)))) continue;
    const double quantum = std::ldexp(1.0, e - F);
    auto trunc_term = [&](double v) { return std::copysign(std::floor(std::fabs(v) / quantum) * quantum, v); };
    const double s = info[t].sign;
    const double v = 2 * trunc_term(s * std::ldexp(3.0625, e)) + trunc_term(s * info[t].rr * std::ldexp(1.0, e - 10)) +
                     trunc_term(s * info[t].q * std::ldexp(1.0, e - 24)) + trunc_term(s * info[t].mid * std::ldexp(1.0, e - 14));
    const double got = P.d_value(out[t]);
    ++readable;
    for (const auto& md : modes)
      if (round_to(v, f16_out ? 11 : 24, md) == got) ++mode_hits[md];
  }
  std::string observed;
  for (const auto& md : modes)
    if (readable && mode_hits[md] == readable) observed += (observed.empty() ? "" : "/") + md;
  if (readable) r.facts.push_back({"result_rounding_observed", observed.empty() ? std::string("none of rz/rne/ru/rd/rna") : observed});

  // Rows: a few telling probes.
  int shown = 0;
  for (std::size_t t = 0; t < cs.size() && shown < 10; ++t) {
    const Info& pi = info[t];
    const bool tell = (pi.rr == 0 && (pi.q == 4 || pi.q == 6 || pi.q == -4 || pi.q == 12 || pi.q == 2)) ||
                      (pi.rr == 2 && (pi.q == 1 || pi.q == -1 || pi.q == 0));
    if (!tell || (pi.sign < 0 && pi.rr) || pi.mid || pi.cprobe) continue;
    std::string label = std::string(pi.sign < 0 ? "-" : "") + "(6.125*2^" + std::to_string(e) +
                        (pi.rr ? " + " + std::to_string(pi.rr) + "*2^" + std::to_string(e - 10) : "") +
                        (pi.q ? (pi.q > 0 ? " + " : " - ") + std::to_string(std::abs(pi.q)) + "*2^" + std::to_string(e - 24) : "") +
                        ")" + (pi.between ? " in block 0, minus its high part in block 1" : "");
    ctx.row(r, label, cs[t], out[t], "");
    ++shown;
  }
  const bool between_tested = std::any_of(info.begin(), info.end(), [](const Info& i) { return i.between; });

  std::ostringstream v;
  if (!pick) {
    v << "No rounding tcnum can express reproduces these outputs (see the rows).";
  } else {
    const DatapathParams eff = effective_params(*pick, ctx.in);
    const bool unique = matching.size() == 1;
    if (!f16_out) {
      const DatapathParams alt = [&] {
        DatapathParams a = *pick;
        a.block_rounding = a.block_rounding == Rounding::toward_zero ? Rounding::nearest_even : Rounding::toward_zero;
        return effective_params(a, ctx.in);
      }();
      if (alt == eff)
        v << "The FP32 rounding mode cannot be seen: with F = " << F << " every block sum fits FP32 exactly. ";
      else
        v << "The FP32 result is rounded with " << rounding_words(pick->block_rounding) << (unique ? "" : " (not unique)") << ". ";
      if (between_tested && kb < K) v << "Between blocks the partial sum is rounded into FP32 the same way. ";
    } else if (pick->block_format == P.fd && kb < K) {
      v << "Every block result is rounded into " << name_of(P.fd) << " with " << rounding_words(pick->block_rounding)
        << ", and the next block starts from that " << name_of(P.fd) << " value (one rounding per block, no FP32 step). ";
    } else {
      if (kb < K)
        v << "Between blocks the partial sum is rounded into FP32 with " << rounding_words(pick->block_rounding) << ". ";
      const Rounding final_mode = eff.block_format == P.fd ? eff.block_rounding : eff.output_rounding;
      v << "The " << name_of(P.fd) << " result is rounded "
        << (eff.output_direct || eff.block_format == P.fd ? "once, directly from the exact block sum, "
                                                           : "via an FP32 result (double rounding), ")
        << "with " << rounding_words(final_mode) << (unique ? "" : " (other roundings also fit these probes)") << ". ";
    }
    if (pick->addend == AddendEntry::ieee_add)
      v << "C is added after the products by one IEEE addition (exact sum, then " << rounding_words(pick->output_rounding)
        << " into " << name_of(P.fd) << "), as an FADD/HADD2 after an MMA whose C is zero. ";
    else if (pick->addend == AddendEntry::last_block)
      v << "C is added after the products as a block of its own (aligned and truncated like the products). ";
    if (!observed.empty() && observed.find('/') == std::string::npos)
      v << "Closed-form reading (sum as aligned, then each IEEE mode): only " << observed << " fits.";
    r.facts.push_back({"block_format", std::string(name_of(pick->block_format))});
    if (pick->block_result_frac_bits > 0) {
      r.facts.push_back({"block_result_frac_bits", static_cast<std::int64_t>(pick->block_result_frac_bits)});
      v << " Block results are cut to " << pick->block_result_frac_bits << " fraction bits below their own leading bit ("
        << rounding_short(pick->block_rounding) << ") before they are stored: a register narrower than "
        << name_of(pick->block_format) << " (e8m" << pick->block_result_frac_bits << ").";
    }
    r.facts.push_back({"block_rounding", std::string(rounding_short(pick->block_rounding))});
    if (f16_out) {
      r.facts.push_back({"output_rounding", std::string(rounding_short(pick->output_rounding))});
      r.facts.push_back({"output_direct", pick->output_direct});
    }
  }
  r.verdict = v.str();
  r.facts.push_back({"candidates_matching", static_cast<std::int64_t>(std::count(ok.begin(), ok.end(), 1))});
  return r;
}

// ---------------------------------------------------------------------------------------
// subnormal: inputs (A, B, C), products below FP32's normal range, subnormal outputs.

double min_subnormal(Format f) { return std::ldexp(1.0, spec(f).emin() - spec(f).frac_bits); }

// Candidates for one parameter, judged by emulation on the probes: the first that reproduces
// every output (candidates in order of preference); nullopt when none does.
template <class T, class Set>
std::optional<T> first_matching(const Ctx& ctx, const std::vector<T>& cands, Set set, const std::vector<GeneratedCase>& cs,
                                const std::vector<u32>& out, std::size_t* matching = nullptr) {
  std::optional<T> pick;
  std::size_t n = 0;
  for (const T& c : cands) {
    DatapathParams p = ctx.params();
    set(p, c);
    bool good = true;
    try {
      for (std::size_t t = 0; t < cs.size() && good; ++t) good = mma_element(p, ctx.in, cs[t].a, cs[t].b, cs[t].c) == out[t];
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
  std::vector<GeneratedCase> cs;
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
      GeneratedCase g = P.blank();
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
  if (!ctx.m.frac_bits || ctx.block(0).size() < 3) return;
  const int F = *ctx.m.frac_bits;
  const auto B0 = ctx.block(0);
  const int lo_true = spec(P.fa).emin() + spec(P.fb).emin();
  const int dsub = spec(P.fd).emin() - spec(P.fd).frac_bits;
  const int e_lo = std::max(lo_true + 2, dsub), e_hi = std::min({P.hi, lo_true + 150, P.d_emax() - 1});
  std::vector<GeneratedCase> cs;
  for (int e = e_lo; e <= e_hi; e += e < e_lo + 12 ? 1 : 3) {  // every exponent near the bottom
    const Pair top = P.product_sig(1, 1, e);
    if (!top) continue;
    const int ulp_e = std::max(e - spec(P.fd).frac_bits, dsub);
    const Pair half = P.product_value(std::ldexp(1.0, ulp_e - 1), true);
    for (int j = 1; j <= F + 2; ++j)
      for (int fam = 0; fam < 2; ++fam) {
        const Pair tiny = P.product_value((fam ? 1.0 : -1.0) * std::ldexp(1.0, e - j), true);
        if (!tiny || (fam && !half)) continue;
        GeneratedCase g = P.blank();
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
      if (mma_element(ref, ctx.in, cs[t].a, cs[t].b, cs[t].c) == out[t]) continue;
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

FeatureReport recipe_subnormal(Ctx& ctx) {
  ensure(ctx, "round");
  FeatureReport r = start(ctx, "subnormal");
  const Planner& P = ctx.P;
  std::vector<GeneratedCase> cs;
  std::vector<std::string> what;
  std::vector<double> want;
  // A subnormal (smallest and largest), B normal, product a normal number of D.
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
      GeneratedCase g = P.blank();
      g.a[0] = a_side ? *sb : *ob;
      g.b[0] = a_side ? *ob : *sb;
      cs.push_back(g), what.push_back(a_side ? "a" : "b"), want.push_back(prod);
    }
  }
  // C subnormal alone (needs subnormal outputs too) and C subnormal next to a normal product.
  const double csub = min_subnormal(P.fc) * 3;
  if (const auto cb = P.c_bits(csub); cb && P.fc == P.fd) {
    GeneratedCase g = P.blank();
    g.c = *cb;
    cs.push_back(g), what.push_back("c_alone"), want.push_back(csub);
  }
  {
    const double cmin = min_subnormal(P.fc);
    const int en = spec(P.fc).emin();
    const auto cb = P.c_bits(cmin);
    const Pair pn = P.product_sig(1, 1, en);
    if (cb && pn && en >= P.d_emin()) {
      GeneratedCase g = P.blank();
      g.c = *cb;
      put(g, 0, pn);
      cs.push_back(g), what.push_back("c_with_normal"), want.push_back(std::ldexp(1.0, en) + cmin);
    }
  }
  // A product of normal factors below D's normal range (a subnormal result).
  {
    const int ep = P.d_emin() - 1;
    const Pair pn = P.product_sig(1, 1, ep);
    if (pn) {
      GeneratedCase g = P.blank();
      put(g, 0, pn);
      cs.push_back(g), what.push_back("sub_product"), want.push_back(std::ldexp(1.0, ep));
    }
  }
  // A product below the input format's normal range (normal in D).
  {
    const int ep = spec(P.fa).emin() - 2;
    const Pair pn = P.product_sig(1, 1, ep);
    if (pn && ep >= P.d_emin()) {
      GeneratedCase g = P.blank();
      put(g, 0, pn);
      cs.push_back(g), what.push_back("below_input_range"), want.push_back(std::ldexp(1.0, ep));
    }
  }
  const auto out = ctx.eval(cs);
  std::map<std::string, std::string> verdicts;
  for (std::size_t t = 0; t < cs.size(); ++t) {
    const u32 d = out[t];
    const bool kept = P.d_is(d, want[t]);
    std::string reading = kept ? "kept" : P.d_is(d, 0) ? "flushed to zero" : "other";
    if (what[t] == "c_with_normal" && !kept && P.d_is(d, want[t] - min_subnormal(P.fc))) reading = "flushed to zero";
    auto& slot = verdicts[what[t]];
    if (slot.empty() || slot == "kept") slot = reading;
    std::string label;
    if (what[t] == "a" || what[t] == "b")
      label = std::string(what[t] == "a" ? "a" : "b") + " = subnormal " + pow2_text(what[t] == "a" ? to_double(P.fa, cs[t].a[0]) : to_double(P.fb, cs[t].b[0])) +
              ", other factor normal";
    else if (what[t] == "c_alone") label = "C = 3 x smallest subnormal of " + std::string(name_of(P.fc)) + ", no products";
    else if (what[t] == "c_with_normal") label = "C = smallest subnormal, + product " + pow2_text(want[t] - min_subnormal(P.fc));
    else if (what[t] == "sub_product") label = "normal factors, product " + pow2_text(want[t]) + " (subnormal in " + std::string(name_of(P.fd)) + ")";
    else label = "normal factors, product " + pow2_text(want[t]) + " (below " + std::string(name_of(P.fa)) + "'s normal range)";
    ctx.row(r, label, cs[t], d, reading);
  }
  auto get = [&](const std::string& k) { return verdicts.count(k) ? verdicts[k] : std::string("n/a"); };
  const std::string a = get("a"), b = get("b"), sp = get("sub_product"), bi = get("below_input_range");
  std::string c1 = get("c_alone"), c2 = get("c_with_normal");
  const bool flush_ab = a == "flushed to zero" || b == "flushed to zero";
  if ((a == "kept" || a == "flushed to zero") && (b == "kept" || b == "flushed to zero")) {
    ctx.m.flush_subnormal_inputs = flush_ab;
    if ((a == "kept") != (b == "kept")) r.anomalies.push_back("A and B treat subnormals differently");
  }
  unpack_probe(ctx, r);  // append their sentences to r.verdict
  floor_probe(ctx, r);
  const std::string extra = r.verdict;
  // Every reading (C's, the results') must follow from the parameters found so far: a C that
  // comes out as 0 may just be cut by a narrow alignment (F), not flushed.
  {
    const DatapathParams p = ctx.params();
    std::vector<std::string> odd;
    for (std::size_t t = 0; t < cs.size(); ++t)
      if (mma_element(p, ctx.in, cs[t].a, cs[t].b, cs[t].c) != out[t]) odd.push_back(what[t]);
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
  }
  std::ostringstream v;
  v << "Subnormal inputs are " << (flush_ab ? "flushed to zero" : "kept (A and B)") << "; C: " << (c2 != "n/a" ? c2 : c1)
    << ". Products below D's normal range: " << sp << (sp == "kept" ? " (gradual underflow into a subnormal result)" : "")
    << ". Products below the input format's normal range: " << bi << "." << extra;
  r.verdict = v.str();
  r.facts.push_back({"subnormal_a", a});
  r.facts.push_back({"subnormal_b", b});
  r.facts.push_back({"subnormal_c", c2 != "n/a" ? c2 : c1});
  r.facts.push_back({"subnormal_results", sp});
  r.facts.push_back({"products_below_input_range", bi});
  return r;
}

// ---------------------------------------------------------------------------------------
// special: NaN, ±Inf, -0, the NaN bit pattern, overflow.

FeatureReport recipe_special(Ctx& ctx) {
  ensure(ctx, "blocksize");
  FeatureReport r = start(ctx, "special");
  const Planner& P = ctx.P;
  std::vector<GeneratedCase> cs;
  std::vector<std::string> labels, kinds;
  const u32 one_a = *exact_bits(P.fa, 1.0), one_b = *exact_bits(P.fb, 1.0);
  auto add = [&](GeneratedCase g, std::string label, std::string kind) {
    cs.push_back(std::move(g));
    labels.push_back(std::move(label));
    kinds.push_back(std::move(kind));
  };
  GeneratedCase g = P.blank();
  g.a[0] = canonical_nan(P.fa);
  g.b[0] = one_b;
  add(g, "a = NaN, b = 1", "nan");
  g = P.blank();
  g.c = canonical_nan(P.fc);
  add(g, "C = NaN (" + hex_field(P.fc, canonical_nan(P.fc)) + ")", "nan");
  if (spec(P.fc).storage_bits >= 16) {
    g = P.blank();
    g.c = P.fc == Format::fp32 ? 0xff800001u : 0xfc01u;  // negative signalling NaN with payload 1
    add(g, "C = -sNaN payload 1 (" + hex_field(P.fc, g.c) + ")", "nan");
  }
  if (spec(P.fa).has_inf) {
    g = P.blank();
    g.a[0] = infinity_bits(P.fa, false), g.b[0] = zero_bits(P.fb, false);
    add(g, "a = +Inf, b = 0", "nan");
    g = P.blank();
    g.a[0] = infinity_bits(P.fa, false), g.b[0] = one_b, g.a[1] = infinity_bits(P.fa, true), g.b[1] = one_b;
    add(g, "+Inf*1 + (-Inf)*1", "nan");
    g = P.blank();
    g.a[0] = infinity_bits(P.fa, false), g.b[0] = one_b;
    add(g, "a = +Inf, b = 1", "+inf");
    g = P.blank();
    g.a[0] = infinity_bits(P.fa, true), g.b[0] = one_b, g.c = infinity_bits(P.fc, false);
    add(g, "-Inf*1 + C = +Inf", "nan");
  }
  g = P.blank();
  g.c = infinity_bits(P.fc, true);
  g.a[0] = one_a, g.b[0] = one_b;
  add(g, "1*1 + C = -Inf", "-inf");
  // Signed zeros.
  g = P.blank();
  for (int k = 0; k < P.in.k; ++k) g.a[k] = zero_bits(P.fa, true);
  g.b.assign(P.in.k, one_b);
  g.c = zero_bits(P.fc, true);
  add(g, "(-0)*1 + ... + C = -0", "-0");
  g = P.blank();
  g.a[0] = zero_bits(P.fa, true), g.b[0] = one_b;
  add(g, "(-0)*1, other products +0, C = +0", "+0");
  g = P.blank();
  g.a[0] = one_a, g.b[0] = one_b, g.a[1] = *exact_bits(P.fa, -1.0), g.b[1] = one_b;
  g.c = zero_bits(P.fc, true);
  add(g, "1*1 + (-1)*1, C = -0 (exact cancellation)", "+0");
  {  // a negative product below half D's smallest subnormal: IEEE gives -0
    const int e = spec(P.fd).emin() - spec(P.fd).frac_bits - 2;
    const Pair tiny = P.product_sig(1, 1, e, true);
    if (tiny) {  // in the last block, C = -0: every IEEE step then keeps the sign
      g = P.blank();
      put(g, ctx.block(-1).at(0), tiny);
      g.c = zero_bits(P.fc, true);
      add(g, "product -" + pow2_text(std::ldexp(1.0, e)) + " (underflows " + std::string(name_of(P.fd)) + "), C = -0", "-0u");
    }
  }
  // Overflow: the largest products, several of them, past D's range.
  const double maxa = to_double(P.fa, max_finite_bits(P.fa, false)), maxb = to_double(P.fb, max_finite_bits(P.fb, false));
  const double dmax = to_double(P.fd, max_finite_bits(P.fd, false));
  bool overflow_probe = false;
  if (maxa * maxb * std::min(P.in.k, 2) > dmax * 1.01) {
    g = P.blank();
    const int n = maxa * maxb > dmax * 1.01 ? 1 : 2;
    for (int k = 0; k < n; ++k) g.a[k] = max_finite_bits(P.fa, false), g.b[k] = max_finite_bits(P.fb, false);
    add(g, std::to_string(n) + " x max*max (past " + std::string(name_of(P.fd)) + "'s range)", "overflow+");
    g = P.blank();
    for (int k = 0; k < n; ++k) g.a[k] = max_finite_bits(P.fa, true), g.b[k] = max_finite_bits(P.fb, false);
    add(g, std::to_string(n) + " x (-max)*max", "overflow-");
    overflow_probe = true;
  } else {
    // D's largest value plus a product that survives alignment.
    const auto cmax = P.c_bits(dmax);
    const int top = std::ilogb(dmax);
    const int F = ctx.m.frac_bits.value_or(24);
    const Pair half_ulp = P.product_sig(1, 1, top - std::min(F, spec(P.fd).frac_bits));
    if (cmax && half_ulp && P.fc == P.fd) {
      g = P.blank();
      g.c = *cmax;
      put(g, 0, half_ulp);
      add(g, "C = max + 2^" + std::to_string(top - std::min(F, spec(P.fd).frac_bits)), "overflow+");
      overflow_probe = true;
    }
  }
  const auto out = ctx.eval(cs);
  std::string nan_pattern;
  bool nan_ok = true, inf_ok = true, zero_ok = true;
  std::optional<bool> overflow_inf, negative_zero, underflow_negative_zero;
  for (std::size_t t = 0; t < cs.size(); ++t) {
    const Decoded d = decode(P.fd, out[t]);
    std::string reading;
    const std::string& k = kinds[t];
    if (k == "nan") {
      reading = d.is_nan() ? "NaN" : "not NaN";
      if (d.is_nan()) {
        const std::string pat = "0x" + hex_field(P.fd, out[t]);
        if (nan_pattern.empty()) nan_pattern = pat;
        else if (nan_pattern != pat) nan_pattern += "/" + pat;
      } else nan_ok = false;
    } else if (k == "+inf" || k == "-inf") {
      const bool ok = d.is_inf() && d.sign == (k == "-inf");
      reading = ok ? "Inf" : "not the Inf expected";
      inf_ok &= ok;
    } else if (k == "-0" || k == "+0" || k == "-0u") {
      const bool ok = d.is_zero() && d.sign == (k != "+0");
      reading = d.is_zero() ? (d.sign ? "-0" : "+0") : "not zero";
      if (k == "-0" && d.is_zero()) negative_zero = d.sign;
      if (k == "-0u" && d.is_zero()) underflow_negative_zero = d.sign;
      if (k == "+0") zero_ok &= ok;
      if (!d.is_zero()) zero_ok = false;
    } else {
      if (d.is_inf()) reading = "overflow -> Inf", overflow_inf = true;
      else if (out[t] == max_finite_bits(P.fd, d.sign)) reading = "overflow -> max finite (saturated)", overflow_inf = false;
      else if (d.is_nan()) reading = "overflow -> NaN";
      else reading = "no overflow";
    }
    ctx.row(r, labels[t], cs[t], out[t], reading);
  }
  if (overflow_inf) ctx.m.overflow_to_inf = overflow_inf;
  if (negative_zero) ctx.m.negative_zero_results = negative_zero;
  if (negative_zero && underflow_negative_zero && *negative_zero != *underflow_negative_zero)
    r.anomalies.push_back("-0 from -0 addends and -0 from an underflow disagree");
  r.facts.push_back({"nan_pattern", nan_pattern});
  r.facts.push_back({"nan_propagates", nan_ok});
  r.facts.push_back({"inf_behaves_ieee", inf_ok});
  r.facts.push_back({"negative_zero_results", std::string(!negative_zero ? "unknown" : *negative_zero ? "ieee" : "never (+0)")});
  r.facts.push_back({"overflow", std::string(!overflow_probe ? "unreachable" : !overflow_inf ? "not seen" : *overflow_inf ? "inf" : "saturate")});
  std::ostringstream v;
  v << "NaN in, NaN out" << (nan_ok ? "" : " (NOT always)") << "; every NaN result has the bit pattern " << nan_pattern
    << " (canonical: sign, payload and signalling-ness of an input NaN are not kept). Inf*0 and Inf-Inf give NaN, "
    << "infinities propagate" << (inf_ok ? "" : " (with exceptions, see rows)") << ". ";
  if (negative_zero && *negative_zero)
    v << "Zero results carry IEEE 754 signs (-0 when every addend is -0 or a negative result underflows; an exact "
         "cancellation gives +0). ";
  else if (negative_zero)
    v << "Every zero result is +0: even when every addend is -0, or a negative result underflows (not IEEE 754). ";
  if (!overflow_probe) v << "Overflow cannot be reached with these formats.";
  else if (overflow_inf) v << (*overflow_inf ? "Overflow gives ±Inf (even under round-toward-zero, where IEEE would give the largest finite)."
                                             : "Overflow saturates to ±max finite.");
  r.verdict = v.str();
  if (!nan_ok || !inf_ok || !zero_ok) r.anomalies.push_back("special values differ from tcnum's datapath rules");
  if (nan_pattern.find('/') != std::string::npos) r.anomalies.push_back("more than one NaN pattern");
  return r;
}

// ---------------------------------------------------------------------------------------
// monotonic: raise one addend by one ulp and look at D.

FeatureReport recipe_monotonic(Ctx& ctx) {
  ensure(ctx, "align");
  FeatureReport r = start(ctx, "monotonic");
  const Planner& P = ctx.P;
  const int K = ctx.in.k, kb = effective_kb(ctx);
  const int F = ctx.m.frac_bits.value_or(24);
  std::vector<GeneratedCase> cs;
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
      GeneratedCase g = P.blank();
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
        GeneratedCase g = P.blank();
        const auto B0 = ctx.block(0);
        put(g, B0[0], first);
        for (int k = 1; k < kb; ++k) put(g, B0[k], s);
        cs.push_back(g);
      }
    if (before && after && s && kb >= 2)
      labels.push_back("a0: (2 - 2^-" + std::to_string(pa) + ") -> 2 (times 1.5*2^" + std::to_string(e) + "), with " +
                       std::to_string(kb - 1) + " x 2^" + std::to_string(e - F));
  }
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

// The published recipes (tcnum/characterize/recipes.hpp) that measure the same feature, on the same box.
std::vector<recipes::RecipeVerdict> published_for(Ctx& ctx, const std::string& feature) {
  using namespace recipes;
  const Instruction& in = ctx.in;
  const ElementFn f = [&ctx](const std::vector<u32>& a, const std::vector<u32>& b, u32 c) {
    return ctx.eval({GeneratedCase{a, b, c}}).at(0);
  };
  const FasiVariant var = in.family == Family::mma && in.m == 8 && in.k == 4 ? FasiVariant::volta : FasiVariant::turing_ampere;
  std::vector<RecipeVerdict> out;
  if (feature == "product") out = {fasi_exact_products(f, in), fasi_exact_products_fp16_out(f, in)};
  else if (feature == "align") out = {fasi_extra_alignment_bits(f, in, var), km_extra_alignment_bits(f, in), probe_kept_fraction_bits(f, in)};
  else if (feature == "carry") out = {fasi_carry_out_bits(f, in), km_extra_carry_bits(f, in)};
  else if (feature == "normalize")
    out = {fasi_normalization_addition(f, in), fasi_normalization_subtraction(f, in, var), km_normalisation_pattern(f, in)};
  else if (feature == "round") {
    const RecipeVerdict eab = km_extra_alignment_bits(f, in);
    const RecipeVerdict fma = km_fma_size(f, in);
    out = {fasi_rounding_fp32_out(f, in), fasi_rounding_fp16_out(f, in), km_output_rounding(f, in),
           km_alignment_rounding(f, in, eab.applicable ? eab.value : -1),
           km_multi_block_rounding(f, in, fma.applicable && !fma.lower_bound ? fma.value : -1)};
  } else if (feature == "blocksize") out = {km_fma_size(f, in), probe_block_size(f, in)};
  else if (feature == "order") out = {fasi_sum_from_largest(f, in, var), fasi_accumulation_width(f, in, var)};
  else if (feature == "subnormal") out = {fasi_subnormal_inputs(f, in), fasi_subnormal_c(f, in), fasi_subnormal_outputs(f, in)};
  else if (feature == "monotonic") out = {fasi_monotonicity(f, in, var)};
  std::vector<RecipeVerdict> kept;
  for (auto& v : out) {
    if (!v.applicable) continue;
    v.probes.clear();
    kept.push_back(std::move(v));
  }
  return kept;
}

}  // namespace

FeatureReport run_one(Ctx& ctx, const std::string& name) {
  if (name == "blocksize") return recipe_order(ctx, false);
  if (name == "order") return recipe_order(ctx, true);
  if (name == "align") return recipe_align(ctx);
  if (name == "product") return recipe_product(ctx);
  if (name == "normalize") return recipe_normalize(ctx);
  if (name == "carry") return recipe_carry(ctx);
  if (name == "round") return recipe_round(ctx);
  if (name == "subnormal") return recipe_subnormal(ctx);
  if (name == "special") return recipe_special(ctx);
  if (name == "monotonic") return recipe_monotonic(ctx);
  throw std::invalid_argument("unknown feature test '" + name + "'");
}

const FeatureReport& ensure(Ctx& ctx, const std::string& name) {
  if (const FeatureReport* r = ctx.find(name)) return *r;
  // order measures everything blocksize does.
  if (name == "blocksize")
    if (const FeatureReport* r = ctx.find("order")) return *r;
  const std::size_t c0 = ctx.cases, d0 = ctx.done.size();
  FeatureReport r = run_one(ctx, name);
  std::size_t prerequisites = 0;
  for (std::size_t i = d0; i < ctx.done.size(); ++i) prerequisites += ctx.done[i].cases;
  r.cases = ctx.cases - c0 - prerequisites;
  if (ctx.opt.published) {
    const std::size_t before = ctx.cases;
    r.published = published_for(ctx, name);
    r.cases += ctx.cases - before;
  }
  ctx.done.push_back(std::move(r));
  return ctx.done.back();
}

}  // namespace detail

// ---------------------------------------------------------------------------------------

const std::vector<std::string>& feature_names() {
  static const std::vector<std::string> names = {"product", "align",    "carry",     "normalize", "round",
                                                 "blocksize", "order", "subnormal", "special",   "monotonic"};
  return names;
}

bool is_feature(const std::string& name) {
  const auto& n = feature_names();
  return std::find(n.begin(), n.end(), name) != n.end();
}

std::string feature_source(const std::string& name) {
  using namespace detail;
  if (name == "product") return std::string(kFasi) + "; " + kFTTN;
  if (name == "align") return std::string(kFasi) + "; " + kKM + "; " + kFTTN;
  if (name == "carry") return std::string(kFasi) + "; " + kKM;
  if (name == "normalize") return std::string(kFasi) + "; " + kFTTN;
  if (name == "round") return std::string(kFasi) + "; " + kKM + "; " + kFTTN;
  if (name == "blocksize") return std::string(kFasi) + "; " + kFTTN + "; " + kFPRev;
  if (name == "order") return std::string(kFPRev) + "; " + kFasi;
  if (name == "subnormal") return std::string(kFasi) + "; " + kFTTN;
  if (name == "special") return std::string(kKM) + "; IEEE 754-2019 §6-7";
  if (name == "monotonic") return std::string(kFasi) + "; " + kMono + "; " + kFTTN;
  return "";
}

BatchFn emulator(const DatapathParams& params, const Instruction& in) {
  return [params, in](const std::vector<GeneratedCase>& cs) {
    std::vector<std::uint32_t> out;
    out.reserve(cs.size());
    for (const auto& g : cs) out.push_back(mma_element(params, in, g.a, g.b, g.c));
    return out;
  };
}

BatchFn emulator(const Model& model, const Instruction& in) { return emulator(model.params_for(in), in); }

BatchFn batch_of(ElementFn fn) {
  return [fn = std::move(fn)](const std::vector<GeneratedCase>& cs) {
    std::vector<std::uint32_t> out;
    out.reserve(cs.size());
    for (const auto& g : cs) out.push_back(fn(g.a, g.b, g.c));
    return out;
  };
}

ElementFn element_of(BatchFn fn) {
  return [fn = std::move(fn)](const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, std::uint32_t c) {
    return fn({GeneratedCase{a, b, c}}).at(0);
  };
}

std::vector<FeatureReport> run_features(const Instruction& in, const BatchFn& box, const std::vector<std::string>& names,
                                        const FeatureOptions& opt) {
  detail::Ctx ctx(in, box, opt);
  std::vector<FeatureReport> out;
  for (const auto& n : names) {
    if (!is_feature(n)) throw std::invalid_argument("unknown feature test '" + n + "'");
    const FeatureReport& r = detail::ensure(ctx, n);
    out.push_back(r);
  }
  return out;
}

}  // namespace tcnum::features
