// Classes of cases (tcnum/fuzz/classify.hpp), from the terms' exponents and the two results.
#include "tcnum/fuzz/classify.hpp"

#include <algorithm>
#include <array>
#include <climits>

#include "tcnum/core/format.hpp"
#include "tcnum/core/plan.hpp"

namespace tcnum::fuzz {
namespace {

constexpr std::array<std::string_view, 7> kNames{"special", "zero", "overflow", "alignment",
                                                 "underflow", "cancellation", "rounding"};

struct Term {
  int nominal = 0, low = 0;  // the weight of the hidden bit (a product's: the sum of its factors'), lowest set bit
};

int lead_of(const Decoded& x) { return x.exponent + 63 - __builtin_clzll(x.significand); }

// The exponent the datapath aligns by: a subnormal's is its format's emin.
int nominal_of(const Decoded& x, Format seen) { return std::max(lead_of(x), spec(seen).emin()); }

bool is_subnormal(Format f, const Decoded& x) { return x.kind == Decoded::Kind::finite && lead_of(x) < spec(f).emin(); }

bool at_top(Format f, std::uint32_t bits, const Decoded& x) {
  return x.is_inf() || (bits & ~(1u << (spec(f).storage_bits - 1))) == max_finite_bits(f, false);
}

}  // namespace

std::string_view class_name(CaseClass c) { return kNames[static_cast<int>(c)]; }

std::optional<CaseClass> parse_class(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<CaseClass>(i);
  return std::nullopt;
}

CaseClass classify(const Instruction& in, const DatapathParams& model, std::span<const std::uint32_t> a,
                   std::span<const std::uint32_t> b, std::uint32_t c, std::uint32_t model_d, std::uint32_t device_d) {
  const Format sa = model.unpack_format.value_or(in.a_type), sb = model.unpack_format.value_or(in.b_type);
  std::array<Term, 65> terms{};
  int n = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const Decoded x = decode(in.a_type, a[k]), y = decode(in.b_type, b[k]);
    if (x.is_nan() || x.is_inf() || y.is_nan() || y.is_inf()) return CaseClass::special;
    if (x.is_zero() || y.is_zero()) continue;
    const int low = x.exponent + __builtin_ctzll(x.significand) + y.exponent + __builtin_ctzll(y.significand);
    terms[n++] = {nominal_of(x, sa) + nominal_of(y, sb), low};
  }
  const Decoded dc = decode(in.c_type, c);
  if (dc.is_nan() || dc.is_inf()) return CaseClass::special;
  if (!dc.is_zero()) terms[n++] = {nominal_of(dc, in.c_type), dc.exponent + __builtin_ctzll(dc.significand)};
  const Format fd = in.d_type;
  const Decoded m = decode(fd, model_d), d = decode(fd, device_d);
  if (m.is_zero() && d.is_zero()) return CaseClass::zero;
  if (at_top(fd, model_d, m) || at_top(fd, device_d, d)) return CaseClass::overflow;
  int emax = INT_MIN;
  for (int i = 0; i < n; ++i) emax = std::max(emax, terms[i].nominal);
  if (n > 0) {
    const int cut = emax - model.frac_bits + 1;
    for (int i = 0; i < n; ++i)
      if (terms[i].low <= cut) return CaseClass::alignment;
  }
  if (m.is_zero() || d.is_zero() || is_subnormal(fd, m) || is_subnormal(fd, d)) return CaseClass::underflow;
  const Decoded& r = m.is_nan() ? d : m;
  if (n > 0 && !r.is_nan() && lead_of(r) < emax - 2) return CaseClass::cancellation;
  return CaseClass::rounding;
}

std::vector<Neighbour> neighbours(const DatapathParams& p, const Instruction& in) {
  std::vector<Neighbour> out;
  const auto add = [&](std::string change, DatapathParams q) {
    if (q == p) return;
    try {
      compile_plan(q, in);  // valid for this instruction
    } catch (const std::invalid_argument&) {
      return;
    }
    out.push_back({std::move(change), q});
  };
  const auto flip = [](Rounding r) { return r == Rounding::nearest_even ? Rounding::toward_zero : Rounding::nearest_even; };
  const auto rname = [](Rounding r) { return r == Rounding::nearest_even ? "rne" : "rz"; };
  for (int d : {-1, 1, -2, 2}) {
    DatapathParams q = p;
    q.frac_bits = p.frac_bits + d;
    if (q.frac_bits > 0) add("frac_bits=" + std::to_string(q.frac_bits), q);
  }
  DatapathParams q = p;
  q.negative_zero_results = !p.negative_zero_results;
  add(std::string("negative_zero_results=") + (q.negative_zero_results ? "true" : "false"), q);
  q = p;
  q.overflow_to_inf = !p.overflow_to_inf;
  add(std::string("overflow_to_inf=") + (q.overflow_to_inf ? "true" : "false"), q);
  q = p;
  q.flush_subnormal_inputs = !p.flush_subnormal_inputs;
  add(std::string("flush_subnormal_inputs=") + (q.flush_subnormal_inputs ? "true" : "false"), q);
  q = p;
  q.block_rounding = flip(p.block_rounding);
  add(std::string("block_rounding=") + rname(q.block_rounding), q);
  q = p;
  q.output_rounding = flip(p.output_rounding);
  add(std::string("output_rounding=") + rname(q.output_rounding), q);
  for (int size : {p.block_size * 2, p.block_size / 2}) {
    if (p.block_size <= 0 || size <= 0) continue;
    q = p;
    q.block_size = size;
    add("block_size=" + std::to_string(size), q);
  }
  constexpr std::array<std::pair<AddendEntry, const char*>, 4> entries{
      {{AddendEntry::first_block, "first_block"}, {AddendEntry::last_block, "last_block"}, {AddendEntry::ieee_add, "ieee_add"},
       {AddendEntry::after_products, "after_products"}}};
  for (const auto& [entry, name] : entries) {
    q = p;
    q.addend = entry;
    add(std::string("addend=") + name, q);
  }
  if (p.align_exponent_floor) {
    q = p;
    q.align_exponent_floor.reset();
    add("align_exponent_floor=none", q);
  }
  return out;
}

}  // namespace tcnum::fuzz
