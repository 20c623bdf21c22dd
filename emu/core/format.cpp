// Formats: one layout table, one decode, one rounding routine (round_pack).
#include "tcnum/core/format.hpp"

#include "round_pack.hpp"

#include <array>
#include <cassert>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tcnum {
namespace {

// TF32 sits in the top 19 bits of an fp32 register: its fields start 13 bits up.
int field_shift(Format f) { return f == Format::tf32 ? 13 : 0; }

std::uint32_t pack_fields(Format f, bool sign, std::uint32_t biased, std::uint32_t frac) {
  const FormatSpec& s = spec(f);
  sign = sign && s.is_signed && !(s.fnuz && biased == 0 && frac == 0);  // FNUZ: no -0 (its pattern is NaN)
  std::uint32_t bits = (static_cast<std::uint32_t>(sign) << (s.exp_bits + s.frac_bits)) |
                       (biased << s.frac_bits) | frac;
  return bits << field_shift(f);
}

int bit_length(unsigned __int128 x) {
  int n = 0;
  auto hi = static_cast<std::uint64_t>(x >> 64);
  if (hi) return 64 + (64 - __builtin_clzll(hi));
  auto lo = static_cast<std::uint64_t>(x);
  if (lo) n = 64 - __builtin_clzll(lo);
  return n;
}

}  // namespace

void check_format(Format f) {
  if (static_cast<std::size_t>(f) < kFormatSpecs.size()) return;
  std::string names;
  for (const FormatSpec& s : kFormatSpecs) names += std::string(names.empty() ? "" : ", ") + s.name;
  throw std::invalid_argument("invalid Format value " + std::to_string(static_cast<int>(f)) + " (not one of " + names + ")");
}

std::string_view name_of(Format f) {
  check_format(f);
  return spec(f).name;
}

std::optional<Format> parse_format(std::string_view name) {
  for (std::size_t i = 0; i < kFormatSpecs.size(); ++i)
    if (name == kFormatSpecs[i].name) return static_cast<Format>(i);
  if (name == "fp32") return Format::fp32;
  if (name == "fp16") return Format::fp16;
  return std::nullopt;
}

std::uint32_t storage_mask(Format f) {
  const int bits = spec(f).storage_bits;
  return bits == 32 ? 0xffffffffu : ((1u << bits) - 1u);
}

std::int64_t integer_value(Format f, std::uint32_t bits) {
  const FormatSpec& s = spec(f);
  if (!s.is_integer) throw std::invalid_argument("integer_value: " + std::string(s.name) + " is not an integer format");
  const std::uint32_t r = bits & storage_mask(f);
  const std::int64_t v = static_cast<std::int64_t>(r);
  return s.is_signed && (r >> (s.storage_bits - 1)) ? v - (std::int64_t{1} << s.storage_bits) : v;
}

Decoded decode(Format f, std::uint32_t bits) {
  const FormatSpec& s = spec(f);
  if (s.is_integer) {  // the integer itself: significand |v|, exponent 0
    const std::int64_t v = integer_value(f, bits);
    Decoded d;
    d.sign = v < 0;
    d.significand = static_cast<std::uint64_t>(v < 0 ? -v : v);
    d.kind = v == 0 ? Decoded::Kind::zero : Decoded::Kind::finite;
    return d;
  }
  const std::uint32_t r = (bits & storage_mask(f)) >> field_shift(f);
  const std::uint32_t frac = r & ((1u << s.frac_bits) - 1u);
  const std::uint32_t biased = (r >> s.frac_bits) & ((1u << s.exp_bits) - 1u);
  const std::uint32_t all_ones = (1u << s.exp_bits) - 1u;
  Decoded d;
  d.sign = s.is_signed && ((r >> (s.exp_bits + s.frac_bits)) & 1u);
  if (s.fnuz) {  // 0x80 is the NaN; every other pattern is finite or +0
    if (d.sign && biased == 0 && frac == 0) d.kind = Decoded::Kind::nan;
    if (d.sign && biased == 0 && frac == 0) return d;
  } else if (!s.has_inf) {  // e4m3 "fn": only S.1111.111 is NaN (ue8m0: 0xff); FP4/FP6: none
    if (s.has_nan && biased == all_ones && frac == (1u << s.frac_bits) - 1u) {
      d.kind = Decoded::Kind::nan;
      return d;
    }
  } else if (biased == all_ones) {
    d.kind = frac ? Decoded::Kind::nan : Decoded::Kind::inf;
    return d;
  }
  if (biased == 0 && s.has_zero) {
    if (frac == 0) return d;  // ±0
    d.kind = Decoded::Kind::finite;
    d.significand = frac;
    d.exponent = s.emin() - s.frac_bits;
    return d;
  }
  d.kind = Decoded::Kind::finite;
  d.significand = frac | (1u << s.frac_bits);
  d.exponent = static_cast<int>(biased) - s.bias - s.frac_bits;
  return d;
}

double to_double(Format f, std::uint32_t bits) {
  check_format(f);
  const Decoded d = decode(f, bits);
  switch (d.kind) {
    case Decoded::Kind::nan: return std::nan("");
    case Decoded::Kind::inf: return d.sign ? -INFINITY : INFINITY;
    case Decoded::Kind::zero: return d.sign ? -0.0 : 0.0;
    case Decoded::Kind::finite: break;
  }
  const double v = std::ldexp(static_cast<double>(d.significand), d.exponent);
  return d.sign ? -v : v;
}

std::uint32_t canonical_nan(Format f) {
  switch (f) {
    case Format::fp32: return 0x7fffffffu;
    case Format::tf32: return 0x7fffe000u;
    case Format::fp16:
    case Format::bf16: return 0x7fffu;
    case Format::e4m3:
    case Format::e5m2:
    case Format::ue4m3: return 0x7fu;
    case Format::ue8m0: return 0xffu;
    case Format::e2m1:
    case Format::e2m3:
    case Format::e3m2: return max_finite_bits(f, false);
    case Format::s8:
    case Format::u8:
    case Format::s4:
    case Format::u4:
    case Format::s32: return 0;  // integers have no NaN
    case Format::e4m3fnuz:
    case Format::e5m2fnuz: return 0x80u;
  }
  return 0;
}

std::uint32_t zero_bits(Format f, bool sign) { return spec(f).is_integer ? 0u : pack_fields(f, sign, 0, 0); }

std::uint32_t infinity_bits(Format f, bool sign) {
  const FormatSpec& s = spec(f);
  if (s.is_integer) return max_finite_bits(f, sign);
  if (s.fnuz) return canonical_nan(f);  // no Inf: an overflow is the NaN
  if (!s.has_inf && !s.has_nan) return max_finite_bits(f, sign);
  if (!s.has_inf) return pack_fields(f, sign, (1u << s.exp_bits) - 1u, (1u << s.frac_bits) - 1u);
  return pack_fields(f, sign, (1u << s.exp_bits) - 1u, 0);
}

std::uint32_t max_finite_bits(Format f, bool sign) {
  const FormatSpec& s = spec(f);
  if (s.is_integer) {  // the largest, or with `sign` the most negative (0 for unsigned)
    if (!s.is_signed) return sign ? 0u : storage_mask(f);
    const std::uint32_t top = 1u << (s.storage_bits - 1);
    return sign ? top : top - 1u;
  }
  const std::uint32_t all_frac = (1u << s.frac_bits) - 1u;
  const bool nan_in_top_binade = !s.has_inf && s.has_nan && s.frac_bits > 0 && !s.fnuz;  // e4m3: S.1111.110
  return pack_fields(f, sign, static_cast<std::uint32_t>(s.max_biased()), nan_in_top_binade ? all_frac - 1u : all_frac);
}

std::uint32_t round_pack(Format f, bool sign, unsigned __int128 magnitude, int exponent, bool sticky,
                         Rounding mode, bool satfinite) {
  const FormatSpec& s = spec(f);
  sign = sign && s.is_signed;
  if (magnitude == 0 && !sticky) return zero_bits(f, sign);  // ue8m0: its smallest value
  // 1. Quantum of the result: ulp of the leading bit, or of the subnormal range. In 64 bits:
  // every int exponent is a value (near INT_MAX it overflows the format, near INT_MIN it is below
  // its smallest), and the sums below must not wrap.
  const std::int64_t lead = magnitude ? std::int64_t{exponent} + bit_length(magnitude) - 1 : std::int64_t{exponent} - 1;
  if (lead > s.emax()) {  // beyond the largest binade, whatever the rounding does below it
    const bool overflow_to_inf = mode == Rounding::nearest_even && !satfinite;
    return overflow_to_inf ? infinity_bits(f, sign) : max_finite_bits(f, sign);
  }
  const std::int64_t quantum = std::max<std::int64_t>(lead, s.emin()) - s.frac_bits;
  // 2. Shift the magnitude to that quantum, collecting round and sticky bits.
  unsigned __int128 kept = 0;
  bool round_bit = false;
  if (exponent >= quantum) {
    kept = magnitude << (exponent - quantum);  // exact; fits since lead <= quantum + frac_bits
  } else {
    const std::int64_t shift = quantum - exponent;
    if (shift > 128) {
      sticky = sticky || magnitude != 0;
    } else if (shift == 128) {
      round_bit = (magnitude >> 127) & 1;
      sticky = sticky || (magnitude << 1) != 0;
    } else {
      kept = magnitude >> shift;
      round_bit = (magnitude >> (shift - 1)) & 1;
      const unsigned __int128 below = (static_cast<unsigned __int128>(1) << (shift - 1)) - 1;
      sticky = sticky || (magnitude & below) != 0;
    }
  }
  // 3. Round.
  if (mode == Rounding::nearest_even && round_bit && (sticky || (kept & 1))) ++kept;
  // 4. Renormalise a carry out of the top (also subnormal -> min normal, which needs nothing).
  auto q = static_cast<int>(quantum);  // within emin - frac_bits .. emax - frac_bits
  if (kept >> (s.frac_bits + 1)) {
    kept >>= 1;
    ++q;
  }
  // 5. Pack, handling overflow.
  const unsigned __int128 hidden = static_cast<unsigned __int128>(1) << s.frac_bits;
  const bool overflow_to_inf = mode == Rounding::nearest_even && !satfinite;
  if (kept < hidden) return pack_fields(f, sign, 0, static_cast<std::uint32_t>(kept));  // ue8m0: kept is 0
  const int biased = q + s.frac_bits + s.bias;
  const auto frac = static_cast<std::uint32_t>(kept - hidden);
  const std::uint32_t all_ones = (1u << s.exp_bits) - 1u;
  const bool too_big = s.has_inf || !s.has_nan || s.fnuz
                           ? biased > s.max_biased()
                           : biased > static_cast<int>(all_ones) ||
                                 (biased == static_cast<int>(all_ones) && frac == (1u << s.frac_bits) - 1u);
  if (too_big) return overflow_to_inf ? infinity_bits(f, sign) : max_finite_bits(f, sign);
  return pack_fields(f, sign, static_cast<std::uint32_t>(biased), frac);
}

std::uint32_t encode(Format f, double x, Rounding mode, bool satfinite) {
  check_format(f);
  if (spec(f).is_integer)
    throw std::invalid_argument("encode: " + std::string(spec(f).name) + " is an integer format (store the integer's bits)");
  if (std::isnan(x)) return canonical_nan(f);
  const bool sign = std::signbit(x);
  if (std::isinf(x)) return satfinite ? max_finite_bits(f, sign) : infinity_bits(f, sign);
  if (x == 0) return zero_bits(f, sign);
  int e = 0;
  const double m = std::frexp(std::fabs(x), &e);  // m in [0.5, 1)
  const auto sig = static_cast<std::uint64_t>(std::ldexp(m, 53));
  return round_pack(f, sign, sig, e - 53, false, mode, satfinite);
}

}  // namespace tcnum
