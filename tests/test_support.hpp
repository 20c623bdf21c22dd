// Shared helpers for tcnum's tests: bit-pattern construction and RapidCheck generators
// of raw patterns with weighted special values (never arbitrary<float>).
#pragma once
#include <rapidcheck.h>

#include <cstdint>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tcnum/core/case.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum::test {

// Failure-message helpers: raw bits in hex, doubles exactly (decimal and hexfloat).
inline std::string hex(std::uint32_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

inline std::string describe(double x) {
  std::ostringstream os;
  os.precision(17);
  os << x << " (" << std::hexfloat << x << ")";
  return os.str();
}

inline int field_shift(Format f) { return f == Format::tf32 ? 13 : 0; }
inline std::uint32_t ones(int n) { return n >= 32 ? 0xffffffffu : (1u << n) - 1u; }

// Raw pattern from fields (tf32: placed in the top 19 bits).
inline std::uint32_t pattern(Format f, bool sign, std::uint32_t biased, std::uint32_t frac) {
  const FormatSpec& s = spec(f);
  return ((static_cast<std::uint32_t>(sign) << (s.exp_bits + s.frac_bits)) | (biased << s.frac_bits) | frac)
         << field_shift(f);
}

// Number of meaningful patterns (tf32: 2^19) and the i-th of them.
inline std::uint64_t meaningful_count(Format f) { return std::uint64_t{1} << spec(f).value_bits(); }
inline std::uint32_t meaningful(Format f, std::uint64_t i) { return static_cast<std::uint32_t>(i) << field_shift(f); }

inline bool is_nan_pattern(Format f, std::uint32_t bits) { return decode(f, bits).is_nan(); }

// Special and boundary patterns of f, both signs.
inline std::vector<std::uint32_t> special_patterns(Format f) {
  const FormatSpec& s = spec(f);
  const std::uint32_t emax_field = ones(s.exp_bits);
  std::vector<std::uint32_t> v;
  for (bool sign : {false, true}) {
    v.push_back(pattern(f, sign, 0, 0));                      // zero
    v.push_back(pattern(f, sign, 0, 1));                      // min subnormal
    v.push_back(pattern(f, sign, 0, ones(s.frac_bits)));      // max subnormal
    v.push_back(pattern(f, sign, 1, 0));                      // min normal
    v.push_back(pattern(f, sign, static_cast<std::uint32_t>(s.bias), 0));  // 1.0
    if (s.has_inf) {
      v.push_back(pattern(f, sign, emax_field - 1, ones(s.frac_bits)));  // max
      v.push_back(pattern(f, sign, emax_field, 0));                      // inf
      v.push_back(pattern(f, sign, emax_field, 1));                      // NaN, small payload
      v.push_back(pattern(f, sign, emax_field, ones(s.frac_bits)));      // NaN, all ones
      v.push_back(pattern(f, sign, emax_field, 1u << (s.frac_bits - 1)));  // quiet bit only
    } else {
      v.push_back(max_finite_bits(f, sign));                        // max (e4m3: 448, e2m1: 6)
      if (s.has_nan) v.push_back(pattern(f, sign, emax_field, ones(s.frac_bits)));  // the NaN
    }
  }
  return v;
}

// instructions_for(sm) without the block-scaled ones (they take scale vectors besides A, B, C;
// tests/test_block_scaled.cpp covers them) and without the integer ones (exact, no float
// datapath; tests/test_integer_catalog.cpp covers them).
inline std::vector<Instruction> unscaled_instructions_for(int sm) {
  std::vector<Instruction> out;
  for (const Instruction& in : instructions_for(sm))
    if (!in.block_scaled() && !in.integer()) out.push_back(in);
  return out;
}

// --- RapidCheck pickers (call inside a property) -------------------------------------

// A finite pattern of f, weighted toward exponents near `center` (unbiased), with
// subnormals, zeros, extremes and uniformly random patterns mixed in. tf32 registers
// get random low 13 bits half the time (the hardware ignores them).
inline std::uint32_t pick_finite(Format f, int center) {
  const FormatSpec& s = spec(f);
  const int kind = *rc::gen::weightedElement<int>({{8, 0}, {3, 1}, {2, 2}, {1, 3}, {1, 4}});
  const bool sign = *rc::gen::arbitrary<bool>();
  std::uint32_t r = 0;
  const std::uint32_t top_field = s.has_inf ? ones(s.exp_bits) - 1 : ones(s.exp_bits);
  switch (kind) {
    case 0: {  // near the center exponent
      const int lo = std::max(1, center + s.bias - 4), hi = std::min<int>(top_field, center + s.bias + 4);
      const auto field = static_cast<std::uint32_t>(*rc::gen::inRange(std::min(lo, hi), std::max(lo, hi) + 1));
      auto frac = *rc::gen::inRange<std::uint32_t>(0, 1u << s.frac_bits);
      if (!s.has_inf && field == ones(s.exp_bits) && frac == ones(s.frac_bits)) frac -= 1;
      r = pattern(f, sign, field, frac);
      break;
    }
    case 1: {  // uniformly random finite
      for (;;) {
        r = meaningful(f, *rc::gen::inRange<std::uint64_t>(0, meaningful_count(f)));
        const Decoded d = decode(f, r);
        if (!d.is_nan() && !d.is_inf()) break;
      }
      break;
    }
    case 2: r = pattern(f, sign, 0, *rc::gen::inRange<std::uint32_t>(1, 1u << s.frac_bits)); break;  // subnormal
    case 3: r = pattern(f, sign && !s.fnuz, 0, 0); break;  // FNUZ: the -0 pattern is its NaN
    default: {
      std::vector<std::uint32_t> ext;
      for (std::uint32_t p : special_patterns(f))
        if (!decode(f, p).is_nan() && !decode(f, p).is_inf()) ext.push_back(p);
      r = *rc::gen::elementOf(ext);
    }
  }
  if (f == Format::tf32 && *rc::gen::arbitrary<bool>()) r |= *rc::gen::inRange<std::uint32_t>(0, 1u << 13);
  return r;
}

// Any pattern: finite (as above) or, with weight special_weight out of 16, NaN/Inf/special.
inline std::uint32_t pick_any(Format f, int center, int special_weight) {
  if (special_weight > 0 && *rc::gen::inRange(0, 16) < special_weight) return *rc::gen::elementOf(special_patterns(f));
  return pick_finite(f, center);
}

inline int pick_center(Format f) {
  const FormatSpec& s = spec(f);
  return *rc::gen::inRange(s.emin() - 1, s.emax() + 1);
}

inline std::uint32_t sign_bit(Format f) {
  const FormatSpec& s = spec(f);
  return 1u << (s.exp_bits + s.frac_bits + field_shift(f));
}

// Operands for one element of `in`: a per-case exponent center so that terms are of
// comparable size (cancellation, rounding ties), C near the products' size half the time.
// Shapes: independent elements; products in exactly cancelling pairs (a_j = -a_i,
// b_j = b_i), C often ±0; sparse (most products signed zeros), C often ±0. With
// special_weight > 0 each element is special with probability special_weight/16, and
// half the cases also get one product whose two factors are both special (Inf * 0 ...).
inline Case pick_case(const Instruction& in, int special_weight) {
  const int ca = pick_center(in.a_type), cb = pick_center(in.b_type);
  const FormatSpec& sc = spec(in.c_type);
  const int cc = *rc::gen::arbitrary<bool>() ? std::clamp(ca + cb, sc.emin() - 1, sc.emax()) : pick_center(in.c_type);
  Case pc;
  for (int k = 0; k < in.k; ++k) {
    pc.a.push_back(pick_any(in.a_type, ca, special_weight));
    pc.b.push_back(pick_any(in.b_type, cb, special_weight));
  }
  pc.c = pick_any(in.c_type, cc, special_weight);
  const int shape = *rc::gen::weightedElement<int>({{4, 0}, {2, 1}, {2, 2}});
  if (shape == 1) {
    const bool all = *rc::gen::arbitrary<bool>();
    for (int i = 0; i + 1 < in.k; i += 2)
      if (all || *rc::gen::arbitrary<bool>()) {
        pc.a[i + 1] = pc.a[i] ^ sign_bit(in.a_type);
        pc.b[i + 1] = pc.b[i];
      }
  } else if (shape == 2) {
    for (int k = 0; k < in.k; ++k)
      if (*rc::gen::inRange(0, 4) != 0) {
        const bool in_a = *rc::gen::arbitrary<bool>();
        const bool sign = *rc::gen::arbitrary<bool>();
        (in_a ? pc.a : pc.b)[k] = pattern(in_a ? in.a_type : in.b_type, sign, 0, 0);
      }
  }
  if (shape != 0 && *rc::gen::arbitrary<bool>()) pc.c = pattern(in.c_type, *rc::gen::arbitrary<bool>(), 0, 0);
  if (special_weight > 0 && *rc::gen::arbitrary<bool>()) {
    const int k = *rc::gen::inRange(0, in.k);
    pc.a[k] = *rc::gen::elementOf(special_patterns(in.a_type));
    pc.b[k] = *rc::gen::elementOf(special_patterns(in.b_type));
  }
  return pc;
}

// One instruction per distinct (A, B, C, D types, K) over every architecture.
inline std::vector<Instruction> distinct_type_combinations() {
  std::map<std::tuple<int, int, int, int, int>, Instruction> seen;
  for (int sm : known_archs())
    for (const Instruction& in : instructions_for(sm))
      if (in.kind.empty() && !in.integer())  // FP6/FP4, scaled kinds: test_block_scaled; integer: test_integer_catalog
      seen.emplace(std::make_tuple(static_cast<int>(in.a_type), static_cast<int>(in.b_type),
                                   static_cast<int>(in.c_type), static_cast<int>(in.d_type), in.k),
                   in);
  std::vector<Instruction> v;
  for (auto& [key, in] : seen) v.push_back(in);
  return v;
}

// Every value of f is a value of u (unpacking f into u is exact).
inline bool embeds(Format u, Format f) {
  const FormatSpec &su = spec(u), &sf = spec(f);
  return su.emax() >= sf.emax() && su.frac_bits >= sf.frac_bits && su.emin() - su.frac_bits <= sf.emin() - sf.frac_bits;
}

// Parameters near a built-in model, as the fit reports them and compare_models sees them: the
// rule the instruction's own architecture uses, with one to four fields changed at random over
// the ranges the models use and beyond (F up to the exact datapath's 640). unpack_format only
// where the conversion is exact, and block results in a format that holds every D, as the
// datapath and every model have them.
inline DatapathParams pick_params(const Instruction& in, int sm) {
  DatapathParams p = builtin_model(sm).params_for(in);
  const int changes = *rc::gen::inRange(1, 5);
  for (int i = 0; i < changes; ++i) {
    switch (*rc::gen::inRange(0, 14)) {
      case 0: p.frac_bits = *rc::gen::weightedElement<int>({{6, *rc::gen::inRange(8, 40)}, {1, 640}}); break;
      case 1: p.block_size = *rc::gen::elementOf(std::vector<int>{0, 1, 2, 4, 8, 16, 32, 64}); break;
      case 2: p.block_format = *rc::gen::elementOf(std::vector<Format>{Format::fp32, Format::fp16}); break;
      case 3: p.block_rounding = *rc::gen::elementOf(std::vector<Rounding>{Rounding::nearest_even, Rounding::toward_zero}); break;
      case 4: p.output_rounding = *rc::gen::elementOf(std::vector<Rounding>{Rounding::nearest_even, Rounding::toward_zero}); break;
      case 5: p.output_direct = !p.output_direct; break;
      case 6:
        p.addend = *rc::gen::elementOf(
            std::vector<AddendEntry>{AddendEntry::first_block, AddendEntry::last_block, AddendEntry::ieee_add});
        break;
      case 7: p.flush_subnormal_inputs = !p.flush_subnormal_inputs; break;
      case 8: p.overflow_to_inf = !p.overflow_to_inf; break;
      case 9: p.block_result_frac_bits = *rc::gen::weightedElement<int>({{1, 0}, {1, *rc::gen::inRange(5, 24)}}); break;
      case 10: p.negative_zero_results = !p.negative_zero_results; break;
      case 11: {
        const Format unpack = *rc::gen::elementOf(std::vector<Format>{Format::fp16, Format::fp32});
        if (p.unpack_format) p.unpack_format.reset();
        else if (embeds(unpack, in.a_type) && embeds(unpack, in.b_type)) p.unpack_format = unpack;
        break;
      }
      case 12:
        p.k_passes = *rc::gen::element(1, 2, 4);
        p.pass_interleave = *rc::gen::element(1, 2, 4);
        break;
      default:
        if (p.align_exponent_floor) p.align_exponent_floor.reset();
        else p.align_exponent_floor = *rc::gen::inRange(-160, 20);
    }
  }
  RC_PRE(embeds(p.block_format, in.d_type));
  RC_PRE(in.k % (p.k_passes * p.pass_interleave) == 0);  // the datapath's own preconditions
  // AMD's split products enter C after them, in one pass (a changed addend or pass count there is
  // no model: check_reference_call refuses it).
  RC_PRE(p.product_split == 1 || p.addend == AddendEntry::after_products);
  RC_PRE(p.addend != AddendEntry::after_products || (p.k_passes == 1 && !in.block_scaled()));
  return p;
}

}  // namespace tcnum::test

namespace tcnum {
// How RapidCheck prints an Instruction in a counterexample.
inline void showValue(const Instruction& in, std::ostream& os) { os << in.name; }
}  // namespace tcnum
