// The reference datapath: d = c + sum_k a_k*b_k, block by block, as the model describes, term by
// term with exact wide sums. It is the oracle the fast kernel (fast_kernel.cpp) is tested
// against, and the path for every lane the fast kernel hands back.
#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <vector>

#include "accumulator.hpp"
#include "round_pack.hpp"
#include "fast_kernel.hpp"
#include "reference_element.hpp"
#include "scaled_group.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/integer_mma.hpp"
#include "tcnum/core/plan.hpp"

namespace tcnum {
namespace {

// An exact nonzero term ±sig·2^lsb; `nominal` is the exponent the aligner sees:
// the hidden-bit position (products: the sum of the factors', not renormalised).
struct Term {
  bool negative;
  std::uint64_t sig;
  int lsb;
  int nominal;
};

// What one block's inputs hold besides finite terms.
struct Specials {
  bool nan = false, pos_inf = false, neg_inf = false;
  bool all_zeros_negative = true;  // sign of an all-zero sum, IEEE style
  // Products beyond block_format's range (products_overflow_to_inf): Infs that count only
  // where no operand's Inf does (resolved()).
  bool overflow_pos = false, overflow_neg = false;
  void add_inf(bool negative) { (negative ? neg_inf : pos_inf) = true; }
  // The specials a block ends with: an Inf among the operands and the addend decides before
  // the overflowed products (MMA-Sim tests the exact sum for Inf/NaN first).
  Specials resolved() const {
    Specials r = *this;
    if (!pos_inf && !neg_inf) r.pos_inf = overflow_pos, r.neg_inf = overflow_neg;
    return r;
  }
};

// A subnormal of f as zero (its sign kept) where the model flushes subnormal inputs.
Decoded flushed(Decoded d, Format f, bool flush) {
  if (flush && d.kind == Decoded::Kind::finite && d.exponent + spec(f).frac_bits == spec(f).emin() &&
      (d.significand >> spec(f).frac_bits) == 0)
    d = Decoded{Decoded::Kind::zero, d.sign, 0, 0};
  return d;
}

Decoded decode_operand(Format f, std::uint32_t bits, bool flush) { return flushed(decode(f, bits), f, flush); }

int nominal_of(const Decoded& d, Format f) { return d.exponent + spec(f).frac_bits; }

// Adds a decoded addend (C or the previous block's result) to a block's inputs.
void add_value(const Decoded& v, Format f, std::vector<Term>& terms, Specials& sp) {
  switch (v.kind) {
    case Decoded::Kind::nan: sp.nan = true; return;
    case Decoded::Kind::inf: sp.add_inf(v.sign); return;
    case Decoded::Kind::zero: sp.all_zeros_negative &= v.sign; return;
    case Decoded::Kind::finite:
      terms.push_back({v.sign, v.significand, v.exponent, nominal_of(v, f)});
      sp.all_zeros_negative = false;
  }
}

void add_product(const Decoded& a, Format fa, const Decoded& b, Format fb, std::vector<Term>& terms,
                 Specials& sp) {
  const bool negative = a.sign != b.sign;
  if (a.is_nan() || b.is_nan()) return void(sp.nan = true);
  if (a.is_inf() || b.is_inf()) {
    if (a.is_zero() || b.is_zero()) return void(sp.nan = true);  // Inf * 0
    return sp.add_inf(negative);
  }
  if (a.is_zero() || b.is_zero()) return void(sp.all_zeros_negative &= negative);
  terms.push_back({negative, a.significand * b.significand, a.exponent + b.exponent,
                   nominal_of(a, fa) + nominal_of(b, fb)});
  sp.all_zeros_negative = false;
}

// A product as the model's datapath forms it: a zero factor still gives a (zero) term at its
// nominal exponent when zeros take part in the alignment, and a product beyond block_format's
// range is ±Inf when the model says so.
void add_model_product(const Decoded& a, Format fa, const Decoded& b, Format fb, const DatapathParams& p,
                       std::vector<Term>& terms, Specials& sp) {
  const bool zero = (a.is_zero() || b.is_zero()) && !a.is_nan() && !b.is_nan() && !a.is_inf() && !b.is_inf();
  if (zero && p.zero_operand_exponent) {
    const int z = *p.zero_operand_exponent;
    const int nominal = (a.is_zero() ? z : nominal_of(a, fa)) + (b.is_zero() ? z : nominal_of(b, fb));
    terms.push_back({a.sign != b.sign, 0, nominal, nominal});
    sp.all_zeros_negative &= a.sign != b.sign;
    return;
  }
  const std::size_t before = terms.size();
  add_product(a, fa, b, fb, terms, sp);
  if (!p.products_overflow_to_inf || terms.size() == before) return;
  const Term& t = terms.back();
  if (t.lsb + detail::bit_length_u128(t.sig) - 1 > spec(p.block_format).emax()) {
    (t.negative ? sp.overflow_neg : sp.overflow_pos) = true;
    terms.pop_back();
  }
}

// A decoded scale; NaN (ue8m0 0xff, ue4m3 0x7f) makes the whole result NaN.
Decoded scale_of(const Instruction& in, std::span<const std::uint32_t> scales, int k_index) {
  return decode(in.scale_type, scales[static_cast<std::size_t>(k_index / in.scale_block)]);
}

// scale_group 1: the product a·b·sa·sb as one term, nominal exponent the sum of all four factors'.
void add_scaled_product(const Decoded& a, Format fa, const Decoded& b, Format fb, const Decoded& sa,
                        const Decoded& sb, Format fs, std::vector<Term>& terms, Specials& sp) {
  if (sa.is_nan() || sb.is_nan()) return void(sp.nan = true);
  const bool negative = a.sign != b.sign;
  if (a.is_nan() || b.is_nan()) return void(sp.nan = true);
  if (a.is_inf() || b.is_inf()) {
    if (a.is_zero() || b.is_zero() || sa.is_zero() || sb.is_zero()) return void(sp.nan = true);
    return sp.add_inf(negative);
  }
  if (a.is_zero() || b.is_zero() || sa.is_zero() || sb.is_zero()) return void(sp.all_zeros_negative &= negative);
  terms.push_back({negative, a.significand * b.significand * sa.significand * sb.significand,
                   a.exponent + b.exponent + sa.exponent + sb.exponent,
                   nominal_of(a, fa) + nominal_of(b, fb) + nominal_of(sa, fs) + nominal_of(sb, fs)});
  sp.all_zeros_negative = false;
}

// scale_group g > 1: g products summed exactly, times sa·sb; the term's nominal exponent is the
// scales' alone and it takes part in the alignment even when the group sums to zero (MMA-Sim).
void add_scaled_group(std::span<const Decoded> a, Format fa, std::span<const Decoded> b, Format fb,
                      const Decoded& sa, const Decoded& sb, Format fs, std::vector<Term>& terms, Specials& sp) {
  if (sa.is_nan() || sb.is_nan()) return void(sp.nan = true);
  thread_local std::vector<Term> products;  // reused: no allocation per group
  products.clear();
  Specials group_sp;
  for (std::size_t i = 0; i < a.size(); ++i) add_product(a[i], fa, b[i], fb, products, group_sp);
  if (group_sp.nan || group_sp.pos_inf || group_sp.neg_inf) {
    sp.nan = sp.nan || group_sp.nan || ((group_sp.pos_inf || group_sp.neg_inf) && (sa.is_zero() || sb.is_zero()));
    if (group_sp.pos_inf) sp.add_inf(false);
    if (group_sp.neg_inf) sp.add_inf(true);
    return;
  }
  sp.all_zeros_negative = false;
  if (sa.is_zero() || sb.is_zero()) return;  // a zero scale (ue4m3): no term, no alignment exponent
  int lo = 0;
  for (std::size_t i = 0; i < products.size(); ++i) lo = i == 0 ? products[i].lsb : std::min(lo, products[i].lsb);
  __int128 sum = 0;
  for (const Term& t : products) {
    if (t.lsb - lo > 60) throw std::invalid_argument("scale_group: products too far apart to sum exactly in 128 bits");
    const __int128 v = static_cast<__int128>(t.sig) << (t.lsb - lo);
    sum += t.negative ? -v : v;
  }
  const auto mag = static_cast<unsigned __int128>(sum < 0 ? -sum : sum);
  const unsigned __int128 sig = mag * sa.significand * sb.significand;
  if (sig >> 63) throw std::invalid_argument("scale_group: a scaled group sum exceeds 63 bits");
  terms.push_back({sum < 0, static_cast<std::uint64_t>(sig), lo + sa.exponent + sb.exponent,
                   nominal_of(sa, fs) + nominal_of(sb, fs)});
}

// Aligns every term to the largest nominal exponent, truncates each to F fraction bits
// below it, and sums exactly: the result is sum·2^quantum.
template <class Acc>
detail::Magnitude align_and_sum(const std::vector<Term>& terms, int frac_bits, std::optional<int> floor) {
  int emax = terms.front().nominal;
  for (const Term& t : terms) emax = std::max(emax, t.nominal);
  if (floor) emax = std::max(emax, *floor);
  const int quantum = emax - frac_bits;
  Acc acc;
  for (const Term& t : terms) {
    if (t.lsb >= quantum) {
      acc.add(t.sig, t.lsb - quantum, t.negative);
    } else {
      const int drop = quantum - t.lsb;
      acc.add(drop >= 64 ? 0 : t.sig >> drop, 0, t.negative);  // truncation toward zero
    }
  }
  detail::Magnitude m = acc.magnitude();
  m.shift += quantum;
  return m;
}

// The largest nominal exponent of the terms (they must not be empty).
int largest_nominal(const std::vector<Term>& terms) {
  int emax = terms.front().nominal;
  for (const Term& t : terms) emax = std::max(emax, t.nominal);
  return emax;
}

// Rounds an exact signed value toward -Inf to a multiple of 2^quantum.
// (A sticky part lies below every kept bit: align_and_sum's window reaches far below E.)
detail::Magnitude round_down_to(detail::Magnitude m, int quantum) {
  if (m.shift >= quantum && !m.sticky) return m;
  if (m.shift >= quantum) throw std::logic_error("round_down_to: a sticky part above the quantum");
  const int drop = quantum - m.shift;
  const bool low = m.sticky || (drop >= 128 ? m.bits != 0 : (m.bits & ((static_cast<unsigned __int128>(1) << drop) - 1)) != 0);
  unsigned __int128 kept = drop >= 128 ? 0 : m.bits >> drop;
  if (m.negative && low) ++kept;
  return {m.negative, kept, quantum, false};
}

// x + y, both exact multiples of 2^min(shift) with magnitudes far below 2^120 (the round-down
// widths are at most 64 bits; check_reference_call).
detail::Magnitude add_exact(const detail::Magnitude& x, const detail::Magnitude& y) {
  const int shift = std::min(x.shift, y.shift);
  auto value = [&](const detail::Magnitude& m) {
    const __int128 v = m.bits == 0 ? 0 : static_cast<__int128>(m.bits << (m.shift - shift));
    return m.negative ? -v : v;
  };
  const __int128 sum = value(x) + value(y);
  return {sum < 0, static_cast<unsigned __int128>(sum < 0 ? -sum : sum), shift, false};
}

// Rounds an exact magnitude into f, with the model's overflow rule.
std::uint32_t round_into(Format f, const detail::Magnitude& m, Rounding mode, bool overflow_to_inf) {
  if (m.bits != 0 && overflow_to_inf) {
    const int lead = m.shift + detail::bit_length_u128(m.bits) - 1;
    if (lead > spec(f).emax()) return infinity_bits(f, m.negative);
  }
  return round_pack(f, m.negative, m.bits, m.shift, m.sticky, mode, !overflow_to_inf);
}

// Keeps `precision` significant bits of m (rounded by `mode`), as a narrower internal
// register would; the sticky part is folded in first.
detail::Magnitude cut_precision(detail::Magnitude m, int precision, Rounding mode) {
  const int len = detail::bit_length_u128(m.bits);
  if (len <= precision) return m;
  const int drop = len - precision;
  const unsigned __int128 low = m.bits & ((static_cast<unsigned __int128>(1) << drop) - 1);
  const unsigned __int128 half = static_cast<unsigned __int128>(1) << (drop - 1);
  unsigned __int128 kept = m.bits >> drop;
  if (mode == Rounding::nearest_even &&
      (low > half || (low == half && (m.sticky || (kept & 1)))))
    ++kept;
  return {m.negative, kept, m.shift + drop, false};
}

std::uint32_t positive_zero_unless(std::uint32_t bits, Format f, bool negative_zero_results) {
  if (!negative_zero_results && bits == zero_bits(f, true)) return zero_bits(f, false);
  return bits;
}

struct BlockOut {
  bool nan = false;
  std::uint32_t bits = 0;
};

// A block's exact sum -> rounded into `f`; an exact zero is +0.
BlockOut round_block_sum(detail::Magnitude m, const DatapathParams& p, Format f, Rounding mode) {
  if (m.bits == 0 && !m.sticky) return {false, zero_bits(f, false)};  // exact cancellation: +0
  // The narrower internal register holds block results, not the final rounding into D.
  if (p.block_result_frac_bits > 0 && f == p.block_format) m = cut_precision(m, p.block_result_frac_bits + 1, mode);
  return {false, positive_zero_unless(round_into(f, m, mode, p.overflow_to_inf), f, p.negative_zero_results)};
}

// One block: its terms and specials -> rounded into `f` (or NaN).
BlockOut finish_block(const std::vector<Term>& terms, const Specials& block_sp, const DatapathParams& p, Format f,
                      Rounding mode) {
  const Specials sp = block_sp.resolved();
  if (sp.nan || (sp.pos_inf && sp.neg_inf)) return {true, 0};
  if (sp.pos_inf || sp.neg_inf) return {false, infinity_bits(f, sp.neg_inf)};
  if (terms.empty()) return {false, zero_bits(f, sp.all_zeros_negative && p.negative_zero_results)};
  detail::Magnitude m = p.frac_bits <= detail::NarrowAccumulator::kMaxShift
                            ? align_and_sum<detail::NarrowAccumulator>(terms, p.frac_bits, p.align_exponent_floor)
                            : align_and_sum<detail::WideAccumulator>(terms, p.frac_bits, p.align_exponent_floor);
  return round_block_sum(m, p, f, mode);
}

// A product sum (product_split sums, each aligned by frac_bits) and its largest nominal
// exponent; nullopt when the block has no product term.
struct ProductSum {
  detail::Magnitude value;
  int exponent;
};
std::optional<ProductSum> split_product_sum(std::span<const std::vector<Term>> parts, int frac_bits) {
  std::optional<int> e;
  for (const auto& part : parts)
    if (!part.empty()) e = std::max(e.value_or(largest_nominal(part)), largest_nominal(part));
  if (!e) return std::nullopt;
  detail::Magnitude total{false, 0, *e - frac_bits, false};
  for (const auto& part : parts) {
    if (part.empty()) continue;
    const detail::Magnitude m = frac_bits <= detail::NarrowAccumulator::kMaxShift
                                    ? align_and_sum<detail::NarrowAccumulator>(part, frac_bits, std::nullopt)
                                    : align_and_sum<detail::WideAccumulator>(part, frac_bits, std::nullopt);
    total = parts.size() == 1 ? m : add_exact(total, round_down_to(m, *e - frac_bits));
  }
  return ProductSum{total, *e};
}

// One block with addend == after_products: the product sum and the addend (one term or none),
// each rounded down below their larger exponent E, added exactly, rounded into f.
BlockOut finish_block_after_products(std::span<const std::vector<Term>> parts, const std::vector<Term>& addend,
                                     const Specials& block_sp, const DatapathParams& p, Format f, Rounding mode) {
  const Specials sp = block_sp.resolved();
  if (sp.nan || (sp.pos_inf && sp.neg_inf)) return {true, 0};
  if (sp.pos_inf || sp.neg_inf) return {false, infinity_bits(f, sp.neg_inf)};
  const std::optional<ProductSum> products = split_product_sum(parts, p.frac_bits);
  if (!products && addend.empty()) return {false, zero_bits(f, sp.all_zeros_negative && p.negative_zero_results)};
  int e = products ? products->exponent : addend.front().nominal;
  if (!addend.empty()) e = std::max(e, addend.front().nominal);
  detail::Magnitude sum{false, 0, e, false};
  if (products) sum = round_down_to(products->value, e - p.sum_round_down_bits);
  const bool dropped = !addend.empty() && p.addend_drop_binades && addend.front().nominal < e - *p.addend_drop_binades;
  if (!addend.empty() && !dropped) {
    const Term& c = addend.front();
    sum = add_exact(sum, round_down_to({c.negative, c.sig, c.lsb, false}, e - p.addend_round_down_bits));
  }
  return round_block_sum(sum, p, f, mode);
}

// One exact IEEE addition x + y rounded into f (FADD / HADD2 after the product chain).
BlockOut ieee_add(const Decoded& x, Format fx, const Decoded& y, Format fy, const DatapathParams& p, Format f) {
  thread_local std::vector<Term> terms;  // reused: no allocation per element
  terms.clear();
  Specials sp;
  add_value(x, fx, terms, sp);
  add_value(y, fy, terms, sp);
  DatapathParams exact = p;
  exact.frac_bits = detail::WideAccumulator::kMaxShift;  // both fp32 terms kept whole
  exact.align_exponent_floor.reset();
  exact.block_result_frac_bits = 0;
  return finish_block(terms, sp, exact, f, p.output_rounding);
}

// The last block's result (bits in block_format, decoded as `v`) as D.
std::uint32_t block_result_to_d(const Decoded& v, std::uint32_t bits, const DatapathParams& p, Format d_type) {
  if (d_type == p.block_format) return bits;
  if (v.is_nan()) return canonical_nan(d_type);
  if (v.is_inf()) return infinity_bits(d_type, v.sign);
  if (v.is_zero()) return zero_bits(d_type, v.sign && p.negative_zero_results);
  detail::Magnitude m{v.sign, v.significand, v.exponent, false};
  return positive_zero_unless(round_into(d_type, m, p.output_rounding, p.overflow_to_inf), d_type,
                              p.negative_zero_results);
}

// The addend (C or the running result) as a block term: a zero is a term at
// zero_operand_exponent when zeros take part in the alignment.
void add_model_addend(const Decoded& v, Format f, const DatapathParams& p, std::vector<Term>& terms, Specials& sp) {
  if (v.is_zero() && p.zero_operand_exponent) {
    terms.push_back({v.sign, 0, *p.zero_operand_exponent, *p.zero_operand_exponent});
    sp.all_zeros_negative &= v.sign;
    return;
  }
  add_value(v, f, terms, sp);
}

// The arguments' shapes and the params' consistency for the instruction (std::invalid_argument
// otherwise); returns the block length.
int check_reference_call(const DatapathParams& p, const Instruction& in, std::span<const std::uint32_t> a,
                         std::span<const std::uint32_t> b, std::span<const std::uint32_t> scale_a,
                         std::span<const std::uint32_t> scale_b) {
  if (in.sparse)  // its datapath is that of its selected products, gathered by the metadata
    throw std::invalid_argument(in.name + ": a sparse instruction's element takes its metadata (tcnum/core/sparse.hpp: "
                                "sparse_element)");
  const int k = in.k;
  if (static_cast<int>(a.size()) != k || static_cast<int>(b.size()) != k)
    throw std::invalid_argument(in.name + ": expected " + std::to_string(k) + " elements of A and of B");
  const auto scales = static_cast<std::size_t>(in.scales_per_row());
  if (scale_a.size() != scales || scale_b.size() != scales)
    throw std::invalid_argument(in.name + ": expected " + std::to_string(scales) + " " +
                                (scales ? std::string(name_of(in.scale_type)) + " scales" : std::string("scales")) +
                                " for the row of A and for the column of B, got " + std::to_string(scale_a.size()) +
                                " and " + std::to_string(scale_b.size()));
  const int group = in.block_scaled() ? p.scale_group : 1;
  if (group < 1 || (in.block_scaled() && in.scale_block % group != 0))
    throw std::invalid_argument(in.name + ": scale_group must divide the scale block");
  if (group > 64) throw std::invalid_argument(in.name + ": scale_group above 64");
  detail::check_scaled_group_range(in, group);
  if (p.frac_bits < 0 || p.frac_bits > detail::WideAccumulator::kMaxShift)
    throw std::invalid_argument("model frac_bits out of range");
  if (p.k_passes < 1 || p.pass_interleave < 1 || k % (p.k_passes * p.pass_interleave) != 0)
    throw std::invalid_argument(in.name + ": K is not a multiple of k_passes * pass_interleave");
  const int pass_len = k / p.k_passes;
  const int block = block_length(p, k);
  if (pass_len % block != 0) throw std::invalid_argument(in.name + ": a block would straddle two passes");
  if (p.sum_round_down_bits < 0 || p.sum_round_down_bits > kModelLimits.round_down_bits_max ||
      p.addend_round_down_bits < 0 || p.addend_round_down_bits > kModelLimits.round_down_bits_max)
    throw std::invalid_argument("model sum_round_down_bits / addend_round_down_bits out of range 0..64");
  if (p.product_split < 1 || p.product_split > kModelLimits.product_split_max)
    throw std::invalid_argument("model product_split out of range 1..16");
  if (p.product_split > 1 && p.addend != AddendEntry::after_products)
    throw std::invalid_argument("model product_split > 1 needs addend after_products");
  if (p.addend == AddendEntry::after_products && (in.block_scaled() || p.k_passes > 1))
    throw std::invalid_argument(in.name + ": addend after_products is for plain (not block-scaled, one-pass) blocks");
  if (in.block_scaled() && block % group != 0)
    throw std::invalid_argument(in.name + ": scale_group must divide the block (" + std::to_string(block) + ")");
  return block;
}

// An operand as the datapath sees it: unpacked to unpack_format (fp8 -> f16 is exact: a table),
// then decoded (flushing comes after).
Decoded seen_operand(Format storage, Format seen, std::uint32_t bits) {
  if (storage != seen)
    bits = seen == Format::fp16 && (storage == Format::e4m3 || storage == Format::e5m2)
               ? detail::fp8_to_f16(storage, bits)
               : encode(seen, to_double(storage, bits));
  return decode(seen, bits);
}

// The 256 seen_operand results of an fp8 operand (as itself or unpacked to f16), or null for
// other formats: decoding operand by operand was most of the reference's time, and fp8
// instructions have the longest K.
const Decoded* fp8_decodings(Format storage, Format seen) {
  static const auto tables = [] {
    std::array<std::array<Decoded, 256>, 4> t{};  // e4m3, e5m2; e4m3 -> f16, e5m2 -> f16
    for (std::uint32_t v = 0; v < 256; ++v) {
      t[0][v] = seen_operand(Format::e4m3, Format::e4m3, v);
      t[1][v] = seen_operand(Format::e5m2, Format::e5m2, v);
      t[2][v] = seen_operand(Format::e4m3, Format::fp16, v);
      t[3][v] = seen_operand(Format::e5m2, Format::fp16, v);
    }
    return t;
  }();
  if (storage != Format::e4m3 && storage != Format::e5m2) return nullptr;
  const std::size_t fmt = storage == Format::e4m3 ? 0 : 1;
  if (seen == storage) return tables[fmt].data();
  if (seen == Format::fp16) return tables[2 + fmt].data();
  return nullptr;
}

// The datapath proper, for arguments check_reference_call accepted; `order` is
// product_schedule(p, in.k), `block` block_length(p, in.k).
std::uint32_t reference_datapath(const DatapathParams& p, const Instruction& in, std::span<const int> order, int block,
                                 std::span<const std::uint32_t> a, std::span<const std::uint32_t> b, std::uint32_t c,
                                 std::span<const std::uint32_t> scale_a, std::span<const std::uint32_t> scale_b) {
  const int k = in.k;
  const int group = in.block_scaled() ? p.scale_group : 1;
  const Format d_type = in.d_type;
  const std::uint32_t nan_out = canonical_nan(d_type);

  // Product order: pass by pass (one pass: 0..K-1); consecutive blocks of `block` in it.
  // Operands as the datapath sees them (fa, fb: after unpack_format); fp8 ones by table.
  const Format fa = p.unpack_format.value_or(in.a_type), fb = p.unpack_format.value_or(in.b_type);
  const Decoded* const table_a = fp8_decodings(in.a_type, fa);
  const Decoded* const table_b = fp8_decodings(in.b_type, fb);
  auto operand = [&](Format storage, Format seen, const Decoded* table, std::uint32_t bits) {
    return flushed(table ? table[bits & 0xffu] : seen_operand(storage, seen, bits), seen, p.flush_subnormal_inputs);
  };
  auto operand_a = [&](std::uint32_t bits) { return operand(in.a_type, fa, table_a, bits); };
  auto operand_b = [&](std::uint32_t bits) { return operand(in.b_type, fb, table_b, bits); };

  thread_local std::vector<Term> terms;  // reused: one allocation per thread, not per element
  terms.reserve(block + 1);
  // addend == after_products: each block's products by split part, and the addend apart.
  const bool c_apart = p.addend == AddendEntry::after_products;
  thread_local std::vector<std::vector<Term>> parts;
  parts.resize(static_cast<std::size_t>(p.product_split));
  // The running addend: C first (+0 when C is added afterwards), then each block's result in
  // block_format.
  const bool c_after = p.addend == AddendEntry::ieee_add;
  const Decoded c_held = decode_operand(in.c_type, c, p.flush_subnormal_inputs);
  Decoded addend = c_after ? Decoded{Decoded::Kind::zero, false, 0, 0} : c_held;
  Format addend_format = c_after ? p.block_format : in.c_type;
  const bool c_last = p.addend == AddendEntry::last_block;
  const int blocks = (k + block - 1) / block + (c_last ? 1 : 0);

  for (int blk = 0; blk < blocks; ++blk) {
    terms.clear();
    Specials sp;
    if (!(c_last && blk == 0)) add_model_addend(addend, addend_format, p, terms, sp);
    const bool product_block = blk * block < k;
    if (c_apart) {
      for (auto& part : parts) part.clear();
      for (int j = blk * block; j < std::min(k, (blk + 1) * block); ++j) {
        const int i = order[j];
        add_model_product(operand_a(a[i]), fa, operand_b(b[i]), fb, p,
                          parts[static_cast<std::size_t>((j - blk * block) % p.product_split)], sp);
        if (sp.nan) return nan_out;
      }
      const BlockOut r = finish_block_after_products(parts, terms, sp, p, p.block_format, p.block_rounding);
      if (r.nan) return nan_out;
      addend = decode(p.block_format, r.bits);
      addend_format = p.block_format;
      if (blk == blocks - 1) return block_result_to_d(addend, r.bits, p, d_type);
      continue;
    }
    if (product_block && !in.block_scaled()) {
      for (int j = blk * block; j < std::min(k, (blk + 1) * block); ++j) {
        const int i = order[j];
        add_model_product(operand_a(a[i]), fa, operand_b(b[i]), fb, p, terms, sp);
        if (sp.nan) return nan_out;  // a NaN block makes D the canonical NaN, whatever follows
      }
    } else if (product_block) {
      Decoded ga[64], gb[64];  // one group (scale_group <= 64: check_reference_call)
      for (int j = blk * block; j < std::min(k, (blk + 1) * block); j += group) {
        const int i0 = order[j];
        const Decoded sa = scale_of(in, scale_a, i0), sb = scale_of(in, scale_b, i0);
        if (group == 1) {
          add_scaled_product(operand_a(a[i0]), fa, operand_b(b[i0]), fb, sa, sb, in.scale_type, terms, sp);
          continue;
        }
        for (int g = 0; g < group; ++g) {
          ga[g] = operand_a(a[order[j + g]]);
          gb[g] = operand_b(b[order[j + g]]);
        }
        add_scaled_group({ga, static_cast<std::size_t>(group)}, fa, {gb, static_cast<std::size_t>(group)}, fb, sa, sb,
                         in.scale_type, terms, sp);
      }
    } else {
      add_value(c_held, in.c_type, terms, sp);
    }
    const bool last = blk == blocks - 1;
    if (!last || d_type == p.block_format || !p.output_direct || c_after) {
      const BlockOut r = finish_block(terms, sp, p, p.block_format, p.block_rounding);
      if (r.nan) return nan_out;
      addend = decode(p.block_format, r.bits);
      addend_format = p.block_format;
      if (last && c_after) {
        const BlockOut d = ieee_add(c_held, in.c_type, addend, addend_format, p, d_type);
        return d.nan ? nan_out : d.bits;
      }
      if (last) return block_result_to_d(addend, r.bits, p, d_type);
    } else {
      const BlockOut r = finish_block(terms, sp, p, d_type, p.output_rounding);
      return r.nan ? nan_out : r.bits;
    }
  }
  return nan_out;  // unreachable: the last block returns
}

}  // namespace

std::uint32_t detail::reference_element(const DatapathParams& p, const Instruction& in, std::span<const std::uint32_t> a,
                                        std::span<const std::uint32_t> b, std::uint32_t c,
                                        std::span<const std::uint32_t> scale_a, std::span<const std::uint32_t> scale_b) {
  if (in.integer()) return integer_mma_element(in, a, b, c);  // exact: no datapath parameters
  const int block = check_reference_call(p, in, a, b, scale_a, scale_b);
  const std::vector<int> order = product_schedule(p, in.k);  // a plan holds it once (the overload below)
  return reference_datapath(p, in, order, block, a, b, c, scale_a, scale_b);
}

std::uint32_t detail::reference_element(const MmaPlan& plan, std::span<const std::uint32_t> a,
                                        std::span<const std::uint32_t> b, std::uint32_t c,
                                        std::span<const std::uint32_t> scale_a, std::span<const std::uint32_t> scale_b) {
  if (plan.instruction.integer()) return integer_mma_element(plan.instruction, a, b, c);
  const int block = check_reference_call(plan.params, plan.instruction, a, b, scale_a, scale_b);
  return reference_datapath(plan.params, plan.instruction, plan.schedule, block, a, b, c, scale_a, scale_b);
}

std::uint32_t mma_element(const DatapathParams& p, const Instruction& in, std::span<const std::uint32_t> a,
                          std::span<const std::uint32_t> b, std::uint32_t c) {
  // One compiled plan per thread, kept while callers repeat the same (params, instruction). Every
  // field the plan reads is compared: a hand-built instruction may reuse a catalog name.
  thread_local std::optional<MmaPlan> plan;
  const auto same = [&](const Instruction& x) {
    return x.name == in.name && x.k == in.k && x.a_type == in.a_type && x.b_type == in.b_type && x.c_type == in.c_type &&
           x.d_type == in.d_type && x.scale_block == in.scale_block && x.scale_type == in.scale_type &&
           x.saturate == in.saturate;
  };
  if (!plan || !same(plan->instruction) || !(plan->params == p)) plan = compile_plan(p, in);
  return mma_element(*plan, a, b, c);
}

std::uint32_t mma_element(const DatapathParams& p, const Instruction& in, std::span<const std::uint32_t> a,
                          std::span<const std::uint32_t> b, std::uint32_t c, std::span<const std::uint32_t> scale_a,
                          std::span<const std::uint32_t> scale_b) {
  check_formats(in);  // this entry point has no plan to check them
  return detail::reference_element(p, in, a, b, c, scale_a, scale_b);
}

}  // namespace tcnum
