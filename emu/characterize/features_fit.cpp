// numprobe fit: the feature recipes' measurements -> model parameters -> a model file.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "features_internal.hpp"
#include "tcnum/core/dot.hpp"

namespace tcnum::features {
namespace {

using detail::Ctx;

std::string key_of(const Instruction& in) {
  std::ostringstream os;
  os << static_cast<int>(in.family) << '/' << in.m << '/' << in.k << '/' << name_of(in.d_type) << '/' << name_of(in.a_type) << '/'
     << name_of(in.b_type) << '/' << name_of(in.c_type);
  return os.str();
}

bool overflow_reachable(const Instruction& in) {
  const double maxa = to_double(in.a_type, max_finite_bits(in.a_type, false));
  const double maxb = to_double(in.b_type, max_finite_bits(in.b_type, false));
  const double dmax = to_double(in.d_type, max_finite_bits(in.d_type, false));
  const double dulp = std::ldexp(1.0, spec(in.d_type).emax() - spec(in.d_type).frac_bits);
  return maxa * maxb * in.k > dmax || maxa * maxb >= dulp;
}

}  // namespace

std::string params_text(const DatapathParams& p) {
  std::ostringstream os;
  os << "F=" << p.frac_bits << " Kb=" << p.block_size;
  if (p.k_passes > 1) os << " passes=" << p.k_passes << "/" << p.pass_interleave;
  os << " blocks " << name_of(p.block_format) << "/" << (p.block_rounding == Rounding::toward_zero ? "rz" : "rne");
  if (p.block_result_frac_bits) os << " cut=" << p.block_result_frac_bits;
  os << " out " << (p.output_rounding == Rounding::toward_zero ? "rz" : "rne") << (p.output_direct ? " direct" : " via-blocks");
  os << " C "
     << (p.addend == AddendEntry::first_block  ? "first"
         : p.addend == AddendEntry::last_block ? "last"
         : p.addend == AddendEntry::ieee_add   ? "ieee-add"
                                               : "after-products");
  if (p.flush_subnormal_inputs) os << " flush";
  if (!p.overflow_to_inf) os << " saturate";
  if (!p.negative_zero_results) os << " no-neg-zero";
  if (p.unpack_format) os << " unpack=" << name_of(*p.unpack_format);
  if (p.align_exponent_floor) os << " floor=" << *p.align_exponent_floor;
  return os.str();
}

namespace {

// Unpacking A/B into a wider format changes only the nominal exponent of their subnormals (it
// lowers it), and so the alignment exponent of a block that such a product leads. That matters
// when a truncation at 2^(nominal - F) can reach the lowest bit of any term of the block: a
// product, or C when it joins a block (FP6/FP4 products are too short to be cut themselves,
// but C's low bits are). An earlier block's result is a sum of those terms, rounded: its
// lowest bit is no lower than theirs.
void drop_unacting_unpack(DatapathParams& e, const Instruction& in, int min_lsb, bool c_in_blocks) {
  if (!e.unpack_format) return;
  bool acts = e.flush_subnormal_inputs;
  const Format u = *e.unpack_format;
  int lowest_term_bit = min_lsb;
  if (c_in_blocks) lowest_term_bit = std::min(lowest_term_bit, spec(in.c_type).emin() - spec(in.c_type).frac_bits);
  for (int side = 0; side < 2; ++side) {
    const Format f = side ? in.b_type : in.a_type, o = side ? in.a_type : in.b_type;
    if (spec(f).emin() <= spec(u).emin()) continue;  // its subnormals keep their nominal exponent
    const int nominal_max = spec(f).emin() + spec(o).emax();
    if (lowest_term_bit < nominal_max - e.frac_bits) acts = true;
  }
  if (!acts) e.unpack_format.reset();
}

// A floor under the alignment exponent acts only when every term can lie below it. The terms
// are the products (their factors' nominal exponents: an exact unpacking into a wider format
// gives subnormals their true exponent), C when it joins a block, and the earlier blocks' results.
void drop_unacting_floor(DatapathParams& e, const Instruction& in, int min_lsb, int bf_min, bool c_in_blocks) {
  if (!e.align_exponent_floor) return;
  const int K = in.k;
  auto nominal_emin = [&](Format f) {
    const int lowest = e.unpack_format ? std::max(spec(f).emin() - spec(f).frac_bits, spec(*e.unpack_format).emin())
                                       : spec(f).emin();
    return std::min(spec(f).emin(), lowest);
  };
  const bool several_blocks = e.block_size < K || e.k_passes > 1 || e.addend == AddendEntry::last_block;
  int lowest_nominal = nominal_emin(in.a_type) + nominal_emin(in.b_type);
  int lowest_bit = min_lsb;
  if (c_in_blocks) {
    lowest_nominal = std::min(lowest_nominal, spec(in.c_type).emin());
    lowest_bit = std::min(lowest_bit, spec(in.c_type).emin() - spec(in.c_type).frac_bits);
  }
  if (several_blocks) {
    lowest_nominal = std::min(lowest_nominal, spec(e.block_format).emin());
    lowest_bit = std::min(lowest_bit, bf_min);
  }
  if (*e.align_exponent_floor <= lowest_nominal || lowest_bit >= *e.align_exponent_floor - e.frac_bits)
    e.align_exponent_floor.reset();
}

}  // namespace

// One pass of the normalisation below; one reset can enable another (a cut that no longer acts
// lets C's last block become an IEEE addition), so effective_params repeats it to a fixpoint.
DatapathParams normalise_once(const DatapathParams& p, const Instruction& in) {
  DatapathParams e = p;
  const int K = in.k;
  const DatapathParams d;  // defaults
  // C's own alignment (round-down widths, drop rule, split) acts only when C joins after the products.
  if (e.addend != AddendEntry::after_products) {
    e.sum_round_down_bits = d.sum_round_down_bits, e.addend_round_down_bits = d.addend_round_down_bits;
    e.addend_drop_binades = d.addend_drop_binades, e.product_split = d.product_split;
  }
  // Passes: one pass has no interleave; a block never spans two passes.
  if (e.k_passes <= 1) e.k_passes = 1, e.pass_interleave = 1;
  const int pass_len = K % e.k_passes == 0 ? K / e.k_passes : K;
  if (e.block_size <= 0 || e.block_size > pass_len) e.block_size = pass_len;
  if (e.k_passes > 1 && e.pass_interleave * e.k_passes == K) {
    // interleave K/passes: pass p is one contiguous run, i.e. one pass cut into the same blocks
    e.k_passes = 1, e.pass_interleave = 1;
  }
  // C added as a last block that rounds to nearest into D's own format, with F wide enough that
  // its truncation never drops a bit of the smaller addend that could decide the rounding: the
  // smaller addend (at most D's precision) matters only within D's precision + 2 binades of the
  // larger, so F >= 2 * D's fraction bits + 3 keeps all of it there. It is then the same function
  // as one IEEE addition rounded to nearest. (With less, or with an alignment floor, a dropped
  // low bit turns an above-half case into a tie, which rounds to even. With signed zeros, -0
  // products and a -0 C give -0 in blocks but +0 through the addition, whose chain starts at +0.)
  if (e.addend == AddendEntry::last_block && e.block_format == in.d_type && e.block_rounding == Rounding::nearest_even &&
      e.block_result_frac_bits == 0 && !e.align_exponent_floor && !e.negative_zero_results &&
      spec(in.c_type).frac_bits <= spec(in.d_type).frac_bits &&
      e.frac_bits >= 2 * spec(in.d_type).frac_bits + 3) {
    e.addend = AddendEntry::ieee_add;
    e.output_rounding = Rounding::nearest_even;
  }
  const bool c_in_blocks = e.addend != AddendEntry::ieee_add;
  const bool single = e.block_size >= K && e.addend == AddendEntry::first_block;
  // Blocks rounded into D's own (narrow) format: the last block's rounding is D's rounding.
  if (in.d_type != d.block_format && e.block_format == in.d_type) {
    if (c_in_blocks) e.output_rounding = d.output_rounding;
    e.output_direct = d.output_direct;
    if (single && e.block_result_frac_bits == 0) {  // one uncut block: the same function as one direct rounding from an f32-format datapath
      e.output_rounding = e.block_rounding;
      e.block_format = d.block_format;
      e.block_rounding = d.block_rounding;
    }
  }
  // Does every block sum fit the block result exactly (so that its rounding never acts)?
  const int width = e.frac_bits + static_cast<int>(std::ceil(std::log2(4.0 * e.block_size + 2)));
  // A cut at or beyond the format's own precision: truncating twice is truncating once, but
  // rounding to nearest twice is a double rounding.
  const bool cut_within_format = e.block_result_frac_bits >= spec(e.block_format).frac_bits &&
                                 e.block_rounding == Rounding::toward_zero;
  if (cut_within_format || width <= e.block_result_frac_bits + 1) e.block_result_frac_bits = 0;  // the cut never acts
  const int precision = e.block_result_frac_bits > 0 ? e.block_result_frac_bits : spec(e.block_format).frac_bits;
  const int min_lsb = 2 * std::min(spec(in.a_type).emin() - spec(in.a_type).frac_bits,
                                   spec(in.b_type).emin() - spec(in.b_type).frac_bits);
  const int bf_min = spec(e.block_format).emin() - spec(e.block_format).frac_bits;
  const bool fits = width <= precision + 1 && min_lsb >= bf_min && e.addend != AddendEntry::last_block &&
                    e.addend != AddendEntry::after_products;  // its own widths: not this bound
  if (in.d_type == e.block_format) {
    if (c_in_blocks) e.output_rounding = d.output_rounding;
    e.output_direct = d.output_direct;
    if (fits) e.block_rounding = d.block_rounding;
  } else {
    if (fits) {
      e.output_direct = d.output_direct;
      e.block_rounding = d.block_rounding;
    }
    if (!c_in_blocks) e.output_direct = d.output_direct;  // the IEEE addition rounds into D itself
    if (!e.output_direct && e.block_rounding == Rounding::toward_zero && e.output_rounding == Rounding::toward_zero &&
        precision >= spec(in.d_type).frac_bits)
      e.output_direct = true;  // RZ then RZ to a coarser grid is one RZ
    if (single && e.output_direct) e.block_rounding = d.block_rounding;
  }
  // The block-result cut acts only on results stored in the block format.
  const bool stored = !single || in.d_type == e.block_format || !e.output_direct;
  if (!stored) e.block_result_frac_bits = d.block_result_frac_bits;
  // A cut rounding to nearest can round the largest finite block result up beyond the range.
  const bool cut_rounds_up = e.block_result_frac_bits > 0 && e.block_rounding == Rounding::nearest_even;
  if (!overflow_reachable(in) && !cut_rounds_up) e.overflow_to_inf = d.overflow_to_inf;
  drop_unacting_unpack(e, in, min_lsb, c_in_blocks);
  drop_unacting_floor(e, in, min_lsb, bf_min, c_in_blocks);
  return e;
}

DatapathParams effective_params(const DatapathParams& p, const Instruction& in) {
  DatapathParams e = normalise_once(p, in);
  for (DatapathParams next = normalise_once(e, in); !(next == e); next = normalise_once(e, in)) e = next;
  return e;
}

std::vector<std::string> compare_models(const Model& a, const Model& b, int sm) {
  return compare_models(a, b, instructions_for(sm));
}

std::vector<std::string> compare_models(const Model& a, const Model& b, const std::vector<Instruction>& instrs) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const Instruction& in : instrs) {
    if (in.integer()) continue;  // exact: no datapath parameters to compare (docs/models.md §8.5)
    if (!seen.insert(key_of(in)).second) continue;
    std::optional<DatapathParams> pa, pb;
    try {
      pa = effective_params(a.params_for(in), in);
    } catch (const std::exception&) {
    }
    try {
      pb = effective_params(b.params_for(in), in);
    } catch (const std::exception&) {
    }
    if (!pa && !pb) continue;
    if (!pa || !pb) {
      out.push_back(in.name + ": only " + (pa ? a.name : b.name) + " has a rule");
      continue;
    }
    if (!(*pa == *pb)) out.push_back(in.name + ": " + params_text(*pa) + "  vs  " + params_text(*pb));
  }
  return out;
}

std::vector<Instruction> fit_instructions(int sm) {
  std::vector<Instruction> out;
  std::set<std::string> seen;
  for (const Instruction& in : instructions_for(sm)) {
    if (!is_native(in, sm)) continue;  // e.g. m8n8k4 beyond Volta
    if (!in.kind.empty()) continue;  // Blackwell's kinds: no feature recipes for FP6/FP4 or scales yet
    if (in.integer()) continue;      // integer MMA is exact: nothing to fit
    if (seen.insert(key_of(in)).second) out.push_back(in);
  }
  return out;
}

std::vector<Instruction> sparse_feature_instructions(int sm) {
  std::vector<Instruction> out;
  std::set<std::string> seen;
  for (const Instruction& in : sparse_instructions_for(sm))
    if (!in.integer() && seen.insert(key_of(in)).second) out.push_back(in);
  return out;
}

// Integer and sparse instructions have no parameters of their own to fit (throws, saying why).
static void require_fittable(const Instruction& in) {
  if (in.integer())
    throw std::invalid_argument(in.name + " is an integer MMA: its sum is exact (wrapped to s32 or, with .satfinite, "
                                "saturated), so there are no datapath parameters to fit (docs/models.md §8.5)");
  if (in.sparse)
    throw std::invalid_argument(in.name + " is a sparse MMA: its datapath is the dense one over the K/2 products its "
                                "metadata selects (docs/models.md §9), so a model has no parameters of its own for it: "
                                "fit a dense instruction of the same types, and `numprobe features --instr " + in.name +
                                "` runs the tests on its selected products");
}

InstructionFit fit_instruction(const Instruction& in, const BlackBox& box, const FitOptions& opt) {
  require_fittable(in);
  Ctx ctx(in, box, opt.features);
  InstructionFit f;
  f.instruction = in;
  for (const auto& n : feature_names()) detail::ensure(ctx, n);
  for (const auto& n : feature_names())
    if (const FeatureReport* r = ctx.find(n)) f.reports.push_back(*r);
  f.measured = ctx.m;
  f.params = ctx.params();
  const Measurement& m = f.measured;
  if (!m.frac_bits) f.issues.push_back("F was not measured");
  else if (m.frac_bits_at_least) f.issues.push_back("F is only a lower bound (" + std::to_string(*m.frac_bits) + ")");
  if (!m.block_size) f.issues.push_back("the block size was not measured");
  if (!m.addend) f.issues.push_back("where C enters was not measured");
  for (const auto& r : f.reports)
    for (const auto& a : r.anomalies) f.issues.push_back(r.feature + ": " + a);

  // Verification: every probe so far plus fresh random cases, black box vs fitted params.
  std::vector<Case> rnd;
  std::uint64_t s = opt.seed;
  for (const auto& dist : reference::frozen_v1::distribution_names()) {
    auto g = reference::frozen_v1::generate(in, dist, opt.random_cases, s++ * 7919 + 17);
    rnd.insert(rnd.end(), g.begin(), g.end());
  }
  const auto rout = ctx.eval(rnd);
  (void)rout;
  std::size_t bad = 0;
  for (std::size_t t = 0; t < ctx.all_cases.size(); ++t) {
    const auto& g = ctx.all_cases[t];
    if (emulate_case(f.params, in, g) == ctx.all_outputs[t]) continue;
    if (++bad <= 3) {
      std::ostringstream os;
      os << "fitted params disagree with the black box on case " << t << " (got 0x" << std::hex << ctx.all_outputs[t]
         << ", fitted 0x" << emulate_case(f.params, in, g) << ")";
      f.issues.push_back(os.str());
    }
  }
  f.verify_total = ctx.all_cases.size();
  f.verified = f.verify_total - bad;
  f.cases = std::move(ctx.all_cases);
  f.outputs = std::move(ctx.all_outputs);
  return f;
}

Model assemble_model(const std::string& name, int sm, const std::string& description,
                     const std::vector<InstructionFit>& fits, const std::string& source) {
  if (fits.empty()) throw std::invalid_argument("fit: no instruction was fitted");
  // Candidate parameter sets: every instruction's own fit. A candidate covers an instruction
  // when it reproduces everything the black box answered for it (probes and random cases).
  std::vector<DatapathParams> cands;
  for (const auto& f : fits)
    if (std::find(cands.begin(), cands.end(), f.params) == cands.end()) cands.push_back(f.params);
  // A rule claims no block larger than its input class showed: Kb beyond every K of a class
  // is unobservable, so a class whose instructions all have K <= Kb keeps its own measured value.
  std::map<int, int> kb_cap;
  for (const auto& f : fits) {
    int& cap = kb_cap[static_cast<int>(input_class(f.instruction))];
    cap = std::max(cap, f.measured.block_size.value_or(f.instruction.k));
  }
  std::vector<std::vector<char>> covers(cands.size(), std::vector<char>(fits.size(), 0));
  for (std::size_t c = 0; c < cands.size(); ++c)
    for (std::size_t i = 0; i < fits.size(); ++i) {
      const auto& f = fits[i];
      const int kb = cands[c].block_size <= 0 ? 1 << 30 : cands[c].block_size;
      bool ok = kb <= kb_cap[static_cast<int>(input_class(f.instruction))];
      try {
        for (std::size_t t = 0; t < f.cases.size() && ok; ++t)
          ok = emulate_case(cands[c], f.instruction, f.cases[t]) == f.outputs[t];
      } catch (const std::invalid_argument&) {
        ok = false;  // e.g. passes that do not divide this instruction's K
      }
      covers[c][i] = ok;
    }
  auto covering = [&](const std::vector<std::size_t>& members) -> std::optional<std::size_t> {
    for (std::size_t c = 0; c < cands.size(); ++c) {
      bool all = true;
      for (auto i : members) all = all && covers[c][i];
      if (all) return c;
    }
    return std::nullopt;
  };
  // 1. The catch-all rule: the candidate that covers the most (family, inputs) groups whole,
  //    then the most instructions.
  std::map<std::pair<int, int>, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < fits.size(); ++i)
    groups[{static_cast<int>(fits[i].instruction.family), static_cast<int>(input_class(fits[i].instruction))}].push_back(i);
  std::size_t best = 0;
  std::pair<std::size_t, std::size_t> best_score{0, 0};
  for (std::size_t c = 0; c < cands.size(); ++c) {
    std::size_t whole = 0;
    for (const auto& [key, members] : groups)
      if (std::all_of(members.begin(), members.end(), [&](std::size_t i) { return covers[c][i] != 0; })) ++whole;
    const std::pair<std::size_t, std::size_t> score{whole, static_cast<std::size_t>(std::count(covers[c].begin(), covers[c].end(), 1))};
    if (score > best_score) best = c, best_score = score;
  }
  // 2. Rules for the instructions it does not cover: per input class if one candidate covers the
  //    whole class, else per (family, class), else per (family, class, D type).
  std::vector<ModelRule> per_d, per_family, per_class;
  std::set<std::size_t> handled;
  auto members_where = [&](auto pred) {
    std::vector<std::size_t> v;
    for (std::size_t i = 0; i < fits.size(); ++i)
      if (pred(fits[i].instruction)) v.push_back(i);
    return v;
  };
  for (std::size_t i = 0; i < fits.size(); ++i) {
    if (covers[best][i] || handled.count(i)) continue;
    const Instruction& in = fits[i].instruction;
    const InputClass cls = input_class(in);
    const auto cls_members = members_where([&](const Instruction& x) { return input_class(x) == cls; });
    if (auto c = covering(cls_members)) {
      per_class.push_back(ModelRule{std::nullopt, cls, std::nullopt, cands[*c], source, false, {}, std::nullopt});
      handled.insert(cls_members.begin(), cls_members.end());
      continue;
    }
    // One rule for the inputs and D type across families, when that covers them.
    const auto cd_members =
        members_where([&](const Instruction& x) { return input_class(x) == cls && x.d_type == in.d_type; });
    if (auto c = covering(cd_members)) {
      per_d.push_back(ModelRule{std::nullopt, cls, in.d_type, cands[*c], source, false, {}, std::nullopt});
      handled.insert(cd_members.begin(), cd_members.end());
      continue;
    }
    const auto fam_members = members_where([&](const Instruction& x) { return input_class(x) == cls && x.family == in.family; });
    if (auto c = covering(fam_members)) {
      per_family.push_back(ModelRule{in.family, cls, std::nullopt, cands[*c], source, false, {}, std::nullopt});
      handled.insert(fam_members.begin(), fam_members.end());
      continue;
    }
    // Split by D type: the largest D group (f32 on a tie) keeps a (family, inputs) rule, the
    // others get rules of their own, placed before it.
    std::map<int, std::vector<std::size_t>> by_d;
    for (auto i2 : fam_members) by_d[static_cast<int>(fits[i2].instruction.d_type)].push_back(i2);
    std::optional<int> general;
    for (const auto& [d, members] : by_d)
      if (!general || members.size() > by_d[*general].size()) general = d;
    for (const auto& [d, members] : by_d) {
      auto c = covering(members);
      std::string src = source;
      DatapathParams params;
      if (c) params = cands[*c];
      else {  // nothing reproduces all of them: keep the first member's own fit (its report says what failed)
        params = fits[members.front()].params;
        src += "; NOT reproducing every case of " + fits[members.front()].instruction.name;
      }
      const bool default_covers = std::all_of(members.begin(), members.end(), [&](std::size_t x) { return covers[best][x]; });
      if (d == *general) {
        if (!default_covers) per_family.push_back(ModelRule{in.family, cls, std::nullopt, params, src, false, {}, std::nullopt});
      }
      else per_d.push_back(ModelRule{in.family, cls, static_cast<Format>(d), params, src, false, {}, std::nullopt});
      handled.insert(members.begin(), members.end());
    }
  }
  Model m;
  m.name = name;
  m.sm = sm;
  m.description = description;
  for (auto* v : {&per_d, &per_family, &per_class})
    for (auto& r : *v) m.rules.push_back(r);
  m.rules.push_back(ModelRule{std::nullopt, std::nullopt, std::nullopt, cands[best], source, false, {}, std::nullopt});
  return m;
}

}  // namespace tcnum::features
