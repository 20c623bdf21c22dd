// Feature tests "blocksize" and "order" (one recipe, two depths): FPRev-style survivors.
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

// order / blocksize: FPRev-style survivors. M at p_i, -M at p_j, 2^(eM-J) everywhere else:
// a small term survives only if it is added after M and -M have met (J > F, and FP32
// cannot hold M + small), so the count of survivors places i and j in the summation tree.

// The order in which products are fed and how they are cut into blocks: `passes` chained
// passes (pass p takes the k with (k / interleave) % passes == p, in order), each cut into
// blocks of kb: the datapath's k_passes / pass_interleave / block_size.
struct Structure {
  int passes = 1, interleave = 1, kb = 1;
};

bool valid(int K, const Structure& s) {
  if (K % (s.passes * s.interleave) != 0) return false;
  const int pass_len = K / s.passes;
  return s.kb >= 1 && s.kb <= pass_len && pass_len % s.kb == 0;
}

// Block number of every product position: the datapath's own schedule (tcnum/core/plan.hpp).
std::vector<int> block_ids(int K, const Structure& s) {
  DatapathParams p;
  p.k_passes = s.passes;
  p.pass_interleave = s.interleave;
  p.block_size = s.kb;
  return product_blocks(p, K);
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

// The survivor recipe's terms: M = 2^eM, -M, and small terms S = 2^es, J = eM - es binades apart.
struct SurvivorTerms {
  int es = 0, eM = 0, J = 0;
  Pair S, M, Mn;
};

// The widest span the formats allow; nullopt when it is too narrow for the recipe.
std::optional<SurvivorTerms> survivor_terms(Ctx& ctx) {
  const Planner& P = ctx.P;
  const int K = ctx.in.k;
  SurvivorTerms t;
  t.es = std::max(P.lo, P.d_emin());
  // M must fit a block result even when blocks are rounded into D's format (f16 D).
  t.eM = std::min({P.hi, t.es + 60, 100, P.d_emax()});
  t.S = P.product_sig(1, 1, t.es);
  // The small terms must vanish next to M even when all K of them have been summed first
  // (2^J > 2^F * K, F up to ~26): narrow formats (e4m3) need subnormal factors for that,
  // if the black box keeps subnormals (one case decides).
  const int want_j = 27 + static_cast<int>(std::ceil(std::log2(K)));
  if (t.eM - t.es < want_j) {
    const int es_sub = std::max({t.eM - want_j, spec(P.fd).emin() - spec(P.fd).frac_bits,
                                 spec(P.fa).emin() - spec(P.fa).frac_bits + spec(P.fb).emin() - spec(P.fb).frac_bits});
    const Pair Ss = P.product_value(std::ldexp(1.0, es_sub), true);
    if (es_sub < t.es && Ss) {
      Case g = P.blank();
      put(g, 0, Ss);
      if (P.d_is(ctx.eval({g}).at(0), std::ldexp(1.0, es_sub))) t.es = es_sub, t.S = Ss;
    }
  }
  t.J = t.eM - t.es;
  t.M = P.product_sig(1, 1, t.eM), t.Mn = P.product_sig(1, 1, t.eM, true);
  if (t.J < 12 || !t.M || !t.Mn || !t.S) return std::nullopt;
  return t;
}

// The cases: M at p_i and -M at p_j (the survivor matrix), C = M and -M at p_j (the C row),
// and the addend probe last.
struct OrderProbes {
  std::vector<Case> cs;
  std::vector<std::pair<int, int>> pos;  // (i, j); i = -1: C holds M
  bool c_row = false;
  std::size_t addend_idx = 0;            // the addend probe's index; cs.size() when there is none
  double small_c = 0;                    // the addend probe's C
  bool has_addend_probe() const { return addend_idx < cs.size(); }
};

OrderProbes order_probes(const Ctx& ctx, const SurvivorTerms& t, bool full) {
  const Planner& P = ctx.P;
  const int K = ctx.in.k;
  OrderProbes op;
  for (int i = 0; i < (full ? K : 1); ++i)
    for (int j = i + 1; j < K; ++j) {
      Case g = P.blank();
      for (int k = 0; k < K; ++k) put(g, k, k == i ? t.M : k == j ? t.Mn : t.S);
      op.cs.push_back(g);
      op.pos.emplace_back(i, j);
    }
  // C row: C = +Mc, -Mc at p_j (Mc within C's range).
  const int eMc = std::min(t.eM, spec(P.fc).emax());
  const auto Mc = P.c_bits(std::ldexp(1.0, eMc));
  const Pair Mcn = P.product_sig(1, 1, eMc, true);
  op.c_row = full && Mc && Mcn && eMc - t.es >= 12;
  if (op.c_row)
    for (int j = 0; j < K; ++j) {
      Case g = P.blank();
      g.c = *Mc;
      for (int k = 0; k < K; ++k) put(g, k, k == j ? Mcn : t.S);
      op.cs.push_back(g);
      op.pos.emplace_back(-1, j);
    }
  // Addend probe: p0 = M, p1 = -M, C = 2^ec (small, in C's normal range): C first in the
  // block with the Ms -> truncated (D = 0); C added after all products -> D = C.
  op.small_c = std::ldexp(1.0, std::max(t.es, spec(P.fc).emin()));
  const auto Cs = P.c_bits(op.small_c);
  op.addend_idx = op.cs.size();
  if (Cs) {
    Case g = P.blank();
    put(g, 0, t.M);
    put(g, 1, t.Mn);
    g.c = *Cs;
    op.cs.push_back(g);
  }
  return op;
}

// Survivor counts: how many small terms each output holds (-1: not a whole count).
std::vector<int> survivor_counts(const Planner& P, const OrderProbes& op, const std::vector<std::uint32_t>& out,
                                 double small, int K) {
  std::vector<int> n(op.cs.size(), -1);
  for (std::size_t t = 0; t < op.addend_idx; ++t) {
    const Decoded d = decode(P.fd, out[t]);
    if (d.is_zero()) {
      n[t] = 0;
      continue;
    }
    if (d.kind != Decoded::Kind::finite) continue;
    const double q = to_double(P.fd, out[t]) / small;
    if (q == std::floor(q) && q >= 0 && q <= K) n[t] = static_cast<int>(q);
  }
  return n;
}

// The structures whose schedule predicts every survivor count of the matrix, preferred first.
std::vector<Structure> matching_structures(int K, const OrderProbes& op, const std::vector<int>& n) {
  std::vector<Structure> matches;
  for (const Structure& st : structures(K)) {
    const auto id = block_ids(K, st);
    bool ok = true;
    for (std::size_t t = 0; t < op.addend_idx && ok; ++t)
      if (op.pos[t].first >= 0) ok = n[t] == predicted_survivors(id, op.pos[t].first, op.pos[t].second);
    if (ok) matches.push_back(st);
  }
  return matches;
}

// Where C enters, read from the addend probe, and the row's reading.
std::pair<std::optional<AddendEntry>, std::string> read_addend(const Planner& P, const OrderProbes& op,
                                                               const std::vector<std::uint32_t>& out) {
  if (!op.has_addend_probe()) return {std::nullopt, "no probe"};
  const std::uint32_t d = out[op.addend_idx];
  if (P.d_is(d, 0)) return {AddendEntry::first_block, "C truncated with the Ms: first block"};
  if (P.d_is(d, op.small_c)) return {AddendEntry::last_block, "C survived: added after the products (the round recipe tells how)"};
  return {std::nullopt, "unexpected"};
}

// C row consistent with the addend? An anomaly at its first disagreement.
void check_c_row(int K, const OrderProbes& op, const std::vector<int>& n, const Structure& st, AddendEntry addend,
                 FeatureReport& r) {
  const auto id = block_ids(K, st);
  for (std::size_t t = 0; t < op.addend_idx; ++t) {
    if (op.pos[t].first >= 0) continue;
    const int j = op.pos[t].second;
    int want = 0;
    if (addend == AddendEntry::first_block)
      for (int k = 0; k < K; ++k)
        if (k != j && id[k] > id[j]) ++want;
    if (n[t] != want) {
      r.anomalies.push_back("C row: with C = M and -M at p" + std::to_string(j) + ", " + std::to_string(n[t]) +
                            " small terms survived where a chain of blocks predicts " + std::to_string(want));
      return;
    }
  }
}

// Rows: the i = 0 row, the C row and the addend probe (the full matrix goes into a fact).
void show_order_rows(Ctx& ctx, const OrderProbes& op, const std::vector<std::uint32_t>& out, const std::vector<int>& n,
                     int es, const std::string& addend_reading, FeatureReport& r) {
  for (std::size_t t = 0; t < op.addend_idx; ++t) {
    const auto [i, j] = op.pos[t];
    if (i > 0) continue;
    std::string label = i < 0 ? "C = M, -M at p" + std::to_string(j) : "M at p0, -M at p" + std::to_string(j);
    label += ", 2^" + std::to_string(es) + " elsewhere";
    ctx.row(r, label, op.cs[t], out[t], n[t] < 0 ? "unexpected" : std::to_string(n[t]) + " survive");
  }
  if (op.has_addend_probe())
    ctx.row(r, "M at p0, -M at p1, C = " + pow2_text(op.small_c), op.cs[op.addend_idx], out[op.addend_idx], addend_reading);
}

std::string survivors_matrix(int K, const OrderProbes& op, const std::vector<int>& n) {
  std::ostringstream mat;
  for (int i = 0; i < K; ++i) {
    if (i) mat << "; ";
    mat << "p" << i << ":";
    for (std::size_t t = 0; t < op.addend_idx; ++t)
      if (op.pos[t].first == i) mat << ' ' << n[t];
  }
  return mat.str();
}

// No structure matches: either nothing was cut (every term survived) or the sum is no chain of blocks.
void report_no_structure(Ctx& ctx, bool all_survive, int J, FeatureReport& r) {
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
}

// The measured structure and addend into the measurement, and their facts.
void record_structure(Ctx& ctx, const Structure& st, std::optional<AddendEntry> addend, FeatureReport& r) {
  const int K = ctx.in.k;
  const int pass_len = K / st.passes;
  const int kb = st.kb;
  ctx.m.block_size = kb;
  ctx.m.block_size_at_least = kb == pass_len;
  ctx.m.k_passes = st.passes;
  ctx.m.pass_interleave = st.passes > 1 ? st.interleave : 1;
  // (the round recipe may already have told how C is added after the products: keep that)
  const bool after = addend && *addend != AddendEntry::first_block;
  if (addend && !(after && ctx.m.addend && *ctx.m.addend != AddendEntry::first_block)) ctx.m.addend = addend;
  r.facts.push_back({"block_size", static_cast<std::int64_t>(kb)});
  r.facts.push_back({"block_size_at_least", kb == pass_len});
  r.facts.push_back({"blocks_per_instruction", static_cast<std::int64_t>(K / kb)});
  r.facts.push_back({"k_passes", static_cast<std::int64_t>(st.passes)});
  if (st.passes > 1) r.facts.push_back({"pass_interleave", static_cast<std::int64_t>(st.interleave)});
  if (addend) r.facts.push_back({"addend", std::string(*addend == AddendEntry::first_block ? "first_block" : "after_products")});
}

std::string order_verdict(const Ctx& ctx, const Structure& st, std::optional<AddendEntry> addend, const SurvivorTerms& t,
                          std::size_t cases) {
  const int K = ctx.in.k, kb = st.kb, blocks = K / kb;
  std::ostringstream v;
  v << "Summation order: " << chain_text(K, st, addend, ctx.P.fd) << ". ";
  if (st.passes > 1)
    v << "The products run as " << st.passes << " chained passes (pass p takes the k with (k / " << st.interleave
      << ") mod " << st.passes << " = p), each pass's result the next one's addend. ";
  if (blocks == 1)
    v << "All " << K << " products of the instruction are fused in one step (no break inside K, so the block size is at least " << K << "). ";
  else
    v << blocks << " fused blocks of " << kb << " products: inside a block every term is aligned to the largest exponent and added at once (no internal order); each block's result is rounded and enters the next block as one term. ";
  if (addend)
    v << (*addend == AddendEntry::first_block ? "C joins the first block, aligned with its products."
                                              : "C is added after all products.");
  v << " Read from " << cases << " FPRev-style cases: M = 2^" << t.eM << " at p_i, -M at p_j, 2^" << t.es
    << " elsewhere; the survivors count the products added after M and -M met.";
  return v.str();
}

std::string blocksize_verdict(const Ctx& ctx, const Structure& st) {
  const int K = ctx.in.k, kb = st.kb, blocks = K / kb;
  std::ostringstream v;
  v << ctx.in.name << ": ";
  if (blocks == 1) v << "all " << K << " products fused in one step (block size >= K)";
  else v << kb << " products fused per step, " << blocks << " steps per instruction (K = " << K << ")";
  if (st.passes > 1) v << ", in " << st.passes << " interleaved passes";
  v << ".";
  return v.str();
}

FeatureReport recipe_order(Ctx& ctx, bool full) {
  const std::string name = full ? "order" : "blocksize";
  FeatureReport r = start(ctx, name);
  const Planner& P = ctx.P;
  const int K = ctx.in.k;
  const std::optional<SurvivorTerms> terms = survivor_terms(ctx);
  if (!terms) return not_applicable(ctx, name, "the input formats span too few binades for the survivor recipe");
  const OrderProbes op = order_probes(ctx, *terms, full);
  const auto out = ctx.eval(op.cs);

  const std::vector<int> n = survivor_counts(P, op, out, std::ldexp(1.0, terms->es), K);
  const std::vector<Structure> matches = matching_structures(K, op, n);
  bool all_survive = true;
  for (std::size_t t = 0; t < op.addend_idx; ++t)
    if (op.pos[t].first >= 0 && n[t] != K - 2) all_survive = false;
  const auto [addend, addend_reading] = read_addend(P, op, out);
  const Structure* st = matches.empty() ? nullptr : &matches.front();  // (an optional's copy: a GCC 12 false warning)
  if (op.c_row && st && addend) check_c_row(K, op, n, *st, *addend, r);

  show_order_rows(ctx, op, out, n, terms->es, addend_reading, r);
  if (full) r.facts.push_back({"survivors", survivors_matrix(K, op, n)});
  r.facts.push_back({"dynamic_range_bits", static_cast<std::int64_t>(terms->J)});
  if (!st) {
    report_no_structure(ctx, all_survive, terms->J, r);
    return r;
  }
  record_structure(ctx, *st, addend, r);
  r.verdict = full ? order_verdict(ctx, *st, addend, *terms, op.cs.size()) : blocksize_verdict(ctx, *st);
  return r;
}

FeatureReport recipe_blocksize(Ctx& ctx) { return recipe_order(ctx, false); }
FeatureReport recipe_full_order(Ctx& ctx) { return recipe_order(ctx, true); }

std::vector<recipes::RecipeVerdict> published_blocksize(const BlackBox& f, const Instruction& in) {
  using namespace recipes;
  return {km_fma_size(f, in), probe_block_size(f, in)};
}

std::vector<recipes::RecipeVerdict> published_order(const BlackBox& f, const Instruction& in) {
  using namespace recipes;
  return {fasi_sum_from_largest(f, in, fasi_variant(in)), fasi_accumulation_width(f, in, fasi_variant(in))};
}

}  // namespace

const FeatureTest& blocksize_test() {
  static const FeatureTest test{"blocksize", {sources::fasi2021, sources::fttn2024, sources::fprev2025}, {"scale"}, {}, recipe_blocksize, published_blocksize};
  return test;
}

const FeatureTest& order_test() {
  static const FeatureTest test{"order", {sources::fprev2025, sources::fasi2021}, {}, {"blocksize"}, recipe_full_order, published_order};
  return test;
}

}  // namespace tcnum::features::detail
