// Reproducible input generators: mt19937_64 + integer sampling + MPFR for the one
// transcendental step, so that the same seed gives the same inputs everywhere.
#include "tcnum/reference/frozen_corpus_generators.hpp"

#include <algorithm>
#include <cmath>
#include <array>
#include <random>
#include <stdexcept>

#include "../generator_common.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/reference/mpfr_reference.hpp"
#include "tcnum/reference/normal.hpp"

namespace tcnum {
namespace {

using detail::DistInfo;

constexpr std::array<DistInfo, 6> kDists{{
    {"normal", "a, b, c ~ N(0,1) rounded to nearest even into their formats (Sun et al. §8)"},
    detail::kRandbitsDist, detail::kSpreadDist, detail::kCancelDist, detail::kSpecialDist, detail::kSubnormDist,
}};

std::string valid_names() {
  std::string s;
  for (const DistInfo& d : kDists) s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

// Portable sampling on top of mt19937_64 (whose sequence the standard specifies).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : g_(seed) {}
  std::uint64_t bits() { return g_(); }
  // Uniform in [0, n), n > 0, by exact rejection.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    for (;;) {
      const std::uint64_t x = g_();
      if (x >= threshold) return x % n;
    }
  }
  // Uniform in [lo, hi] (lo <= hi).
  int range(int lo, int hi) { return lo + static_cast<int>(below(static_cast<std::uint64_t>(hi - lo) + 1)); }
  bool chance(std::uint64_t num, std::uint64_t den) { return below(den) < num; }
  bool coin() { return (g_() >> 63) != 0; }

  // N(0,1) as a double (tcnum/reference/normal.hpp), from the same engine as every other draw.
  double normal() { return standard_normal(g_); }

 private:
  std::mt19937_64 g_;
};

// Raw layout helpers (generators need exact control of patterns).
int shift_of(Format f) { return f == Format::tf32 ? 13 : 0; }
std::uint32_t ones(int n) { return (1u << n) - 1u; }

std::uint32_t pack(Format f, bool sign, std::uint32_t biased, std::uint32_t frac) {
  const FormatSpec& s = spec(f);
  return ((static_cast<std::uint32_t>(sign) << (s.exp_bits + s.frac_bits)) | (biased << s.frac_bits) | frac)
         << shift_of(f);
}

// Lowest exponent of a leading bit: that of the smallest subnormal.
using detail::lowest_lead;

// An exactly representable value with leading bit weight 2^lead (clamped to f's range)
// and uniform random bits below it.
std::uint32_t value_at(Format f, bool sign, int lead, Rng& rng) {
  const FormatSpec& s = spec(f);
  lead = std::clamp(lead, lowest_lead(f), s.emax());
  if (lead >= s.emin()) {
    std::uint32_t frac = static_cast<std::uint32_t>(rng.below(std::uint64_t{1} << s.frac_bits));
    if (!s.has_inf && lead == s.emax() && frac == ones(s.frac_bits)) frac = ones(s.frac_bits) - 1;  // e4m3 NaN
    return pack(f, sign, static_cast<std::uint32_t>(lead + s.bias), frac);
  }
  const int j = lead - lowest_lead(f);  // position of the leading bit inside the fraction field
  const auto low = static_cast<std::uint32_t>(rng.below(std::uint64_t{1} << j));
  return pack(f, sign, 0, (1u << j) | low);
}

bool is_finite_pattern(Format f, std::uint32_t bits) {
  const Decoded d = decode(f, bits);
  return !d.is_nan() && !d.is_inf();
}

// A uniformly random finite pattern; tf32 with random low 13 bits if `tf32_low`.
std::uint32_t random_finite(Format f, Rng& rng, bool tf32_low) {
  const std::uint32_t mask = storage_mask(f);
  for (;;) {
    std::uint32_t r = static_cast<std::uint32_t>(rng.bits()) & mask;
    if (f == Format::tf32 && !tf32_low) r &= ~ones(13);
    if (is_finite_pattern(f, r)) return r;
  }
}

std::uint32_t random_nan(Format f, Rng& rng) {
  const FormatSpec& s = spec(f);
  const bool sign = rng.coin();
  if (!s.has_inf) return pack(f, sign, ones(s.exp_bits), ones(s.frac_bits));
  const auto frac = static_cast<std::uint32_t>(1 + rng.below(ones(s.frac_bits)));  // nonzero
  return pack(f, sign, ones(s.exp_bits), frac);
}

std::uint32_t tiny(Format f, Rng& rng) {
  const bool sign = rng.coin();
  if (rng.coin()) return value_at(f, sign, rng.range(lowest_lead(f), spec(f).emin() - 1), rng);  // subnormal
  return value_at(f, sign, rng.range(spec(f).emin(), spec(f).emin() + 3), rng);
}

int lead_of(Format f, std::uint32_t bits) {
  const Decoded d = decode(f, bits);
  return d.exponent + 63 - __builtin_clzll(d.significand);
}

// Moves a finite nonzero pattern by `steps` ulps in magnitude when that stays finite and nonzero.
std::uint32_t nudge(Format f, std::uint32_t bits, int steps) {
  if (steps == 0) return bits;
  const int sh = shift_of(f);
  const FormatSpec& s = spec(f);
  const std::uint32_t sign_bit = 1u << (s.exp_bits + s.frac_bits);
  const std::uint32_t r = bits >> sh;
  const std::uint32_t mag = r & (sign_bit - 1);
  const std::int64_t moved = static_cast<std::int64_t>(mag) + steps;
  if (moved <= 0 || moved >= sign_bit) return bits;
  const std::uint32_t out = ((r & sign_bit) | static_cast<std::uint32_t>(moved)) << sh;
  return is_finite_pattern(f, out) ? out : bits;
}

std::uint32_t round_normal(Format f, Rng& rng) { return encode(f, rng.normal(), Rounding::nearest_even); }

Case gen_normal(const Instruction& in, Rng& rng) {
  Case g;
  g.a.resize(in.k);
  g.b.resize(in.k);
  for (int k = 0; k < in.k; ++k) {
    g.a[k] = round_normal(in.a_type, rng);
    g.b[k] = round_normal(in.b_type, rng);
  }
  g.c = round_normal(in.c_type, rng);
  return g;
}

Case gen_randbits(const Instruction& in, Rng& rng) {
  Case g;
  g.a.resize(in.k);
  g.b.resize(in.k);
  for (int k = 0; k < in.k; ++k) {
    g.a[k] = random_finite(in.a_type, rng, true);
    g.b[k] = random_finite(in.b_type, rng, true);
  }
  g.c = random_finite(in.c_type, rng, true);
  return g;
}

// Factors (a, b) whose product has leading exponent `t` or t+1, normal factors preferred.
void split_product(const Instruction& in, int t, Rng& rng, std::uint32_t& a, std::uint32_t& b) {
  const detail::LeadSplit s = detail::lead_split(in, t);
  t = s.t;
  const int ea = rng.range(s.lo, s.hi);
  const bool sign_a = rng.coin();
  const bool sign_b = rng.coin();
  a = value_at(in.a_type, sign_a, ea, rng);
  b = value_at(in.b_type, sign_b, t - ea, rng);
}

Case gen_spread(const Instruction& in, Rng& rng) {
  const FormatSpec &sa = spec(in.a_type), &sb = spec(in.b_type), &sc = spec(in.c_type), &sd = spec(in.d_type);
  // Exponents every term and the sum can hold: products, a normal C, and D with headroom for K terms.
  const int wlo = std::max({sa.emin() + sb.emin(), sc.emin(), sd.emin()});
  const int whi = std::max(wlo, std::min({sa.emax() + sb.emax() - 1, sc.emax() - 1, sd.emax() - 6}));
  const int lead = rng.range(std::min(wlo + 30, whi), whi);
  const int lead_slot = rng.chance(1, 4) ? in.k : static_cast<int>(rng.below(in.k));  // k == C
  Case g;
  g.a.resize(in.k);
  g.b.resize(in.k);
  for (int k = 0; k <= in.k; ++k) {
    const int e = k == lead_slot ? lead : lead - rng.range(5, 30);
    if (k == in.k) {
      const bool sign = rng.coin();
      g.c = value_at(in.c_type, sign, e, rng);
    } else {
      split_product(in, e, rng, g.a[k], g.b[k]);
    }
  }
  return g;
}

Case gen_cancel(const Instruction& in, Rng& rng, mpfr_ptr tmp) {
  Case g = gen_normal(in, rng);
  std::vector<int> perm(in.k);
  for (int k = 0; k < in.k; ++k) perm[k] = k;
  for (int k = in.k - 1; k > 0; --k) std::swap(perm[k], perm[rng.below(k + 1)]);  // Fisher–Yates
  auto step = [&rng] {
    const auto r = rng.below(4);
    return r == 0 ? -1 : r == 1 ? 1 : 0;
  };
  for (int p = 0; p + 1 < in.k; p += 2) {
    const int i = perm[p], j = perm[p + 1];
    const std::uint32_t sign_a = 1u << (spec(in.a_type).exp_bits + spec(in.a_type).frac_bits + shift_of(in.a_type));
    const int da = step();
    const int db = step();
    g.a[j] = nudge(in.a_type, g.a[i] ^ sign_a, da);
    g.b[j] = nudge(in.b_type, g.b[i], db);
  }
  exact_dot(tmp, in.a_type, in.b_type, in.c_type, g.a, g.b, zero_bits(in.c_type, false));
  mpfr_neg(tmp, tmp, MPFR_RNDN);
  g.c = mpfr_round_bits(in.c_type, tmp, Rounding::nearest_even);
  if (rng.coin()) g.c = nudge(in.c_type, g.c, rng.coin() ? 1 : -1);
  return g;
}

std::uint32_t special_value(Format f, Rng& rng) {
  const FormatSpec& s = spec(f);
  const int kinds = s.has_inf ? 7 : 6;
  int kind = static_cast<int>(rng.below(kinds));
  if (!s.has_inf && kind >= 1) ++kind;  // skip Inf
  const bool sign = rng.coin();
  switch (kind) {
    case 0: return zero_bits(f, sign);
    case 1: return infinity_bits(f, sign);
    case 2: return random_nan(f, rng);
    case 3: return max_finite_bits(f, sign);
    case 4: return pack(f, sign, 0, 1);                           // min subnormal
    case 5: return pack(f, sign, 1, 0);                           // min normal
    default: return zero_bits(f, !sign);                          // zeros twice as likely
  }
}

Case gen_special(const Instruction& in, Rng& rng) {
  Case g = gen_normal(in, rng);
  for (int k = 0; k < in.k; ++k) {
    if (rng.chance(1, 8)) g.a[k] = special_value(in.a_type, rng);
    if (rng.chance(1, 8)) g.b[k] = special_value(in.b_type, rng);
  }
  if (rng.chance(1, 8)) g.c = special_value(in.c_type, rng);
  return g;
}

Case gen_subnorm(const Instruction& in, Rng& rng) {
  const FormatSpec& sd = spec(in.d_type);
  Case g;
  g.a.resize(in.k);
  g.b.resize(in.k);
  for (int k = 0; k < in.k; ++k) {
    const bool a_tiny = rng.coin();  // which factor is the tiny one
    const Format tiny_f = a_tiny ? in.a_type : in.b_type;
    const Format other_f = a_tiny ? in.b_type : in.a_type;
    const std::uint32_t t = tiny(tiny_f, rng);
    std::uint32_t o = 0;
    if (rng.coin()) {
      o = tiny(other_f, rng);
    } else {
      const int target = rng.range(sd.emin() - sd.frac_bits - 2, sd.emin() + 2);
      const int e = target - lead_of(tiny_f, t);
      const bool sign = rng.coin();
      o = e < lowest_lead(other_f) ? tiny(other_f, rng) : value_at(other_f, sign, e, rng);
    }
    g.a[k] = a_tiny ? t : o;
    g.b[k] = a_tiny ? o : t;
  }
  if (rng.chance(1, 8)) {
    const bool sign = rng.coin();
    g.c = zero_bits(in.c_type, sign);
  } else {
    g.c = tiny(in.c_type, rng);
  }
  return g;
}

// The scales of a block-scaled case (which = the distribution's index): powers of two near 1
// (ue4m3: random significands too), the same value along the whole row and column under
// `cancel` (so that the pairs still cancel), any non-NaN pattern under `randbits`, and under
// `special` each scale replaced with p=1/8 by NaN, the largest or the smallest scale (or 0, ue4m3).
void draw_scales(const Instruction& in, int which, Rng& rng, Case& g) {
  const Format f = in.scale_type;
  const FormatSpec& s = spec(f);
  const auto n = static_cast<std::size_t>(in.scales_per_row());
  auto near_one = [&] {
    const int e = rng.range(-4, 4);
    return pack(f, false, static_cast<std::uint32_t>(e + s.bias), static_cast<std::uint32_t>(rng.below(1u << s.frac_bits)));
  };
  auto draw = [&](std::vector<std::uint32_t>& v) {
    v.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (which == 1) {  // randbits
        do v[i] = static_cast<std::uint32_t>(rng.below(1u << s.value_bits()));
        while (decode(f, v[i]).is_nan());
      } else if (which == 3 && i > 0) {  // cancel: one scale for the row
        v[i] = v[0];
      } else {
        v[i] = near_one();
        if (which == 4 && rng.chance(1, 8)) {
          switch (rng.below(4)) {
            case 0: v[i] = canonical_nan(f); break;
            case 1: v[i] = max_finite_bits(f, false); break;
            case 2: v[i] = s.has_zero ? 1u : 0u; break;  // smallest: ue4m3's min subnormal, ue8m0's 2^-127
            default: v[i] = zero_bits(f, false); break;   // ue8m0 has no zero: its 0x00 is 2^-127
          }
        }
      }
    }
  };
  draw(g.scale_a);
  draw(g.scale_b);
}

// Integer instructions (s8/u8/s4/u4 inputs, s32 C): the same six names, read for integers.
// normal: operands N(0,1)·range/4 rounded and clamped, C N(0,1)·2^16; randbits: uniform patterns
// (C any 32 bits); spread: C within 2^20 of INT32_MIN or INT32_MAX (wrap and .satfinite differ
// there); cancel: products in pairs a_j = -a_i (or b_j = -b_i) where a signed operand allows it,
// C = -sum ± 1; special: each element with p = 1/8 one of min, max, 0, -1 (1 unsigned), C with
// p = 1/4 one of INT32_MIN, INT32_MAX, 0, -1; subnorm: |values| <= 2, C in [-8, 8].
std::int64_t int_min(Format f) { return spec(f).is_signed ? -(std::int64_t{1} << (spec(f).storage_bits - 1)) : 0; }
std::int64_t int_max(Format f) {
  return spec(f).is_signed ? (std::int64_t{1} << (spec(f).storage_bits - 1)) - 1 : (std::int64_t{1} << spec(f).storage_bits) - 1;
}
std::uint32_t int_bits(Format f, std::int64_t v) {
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(std::clamp(v, int_min(f), int_max(f)))) & storage_mask(f);
}
std::uint32_t int_normal(Format f, Rng& rng, double sigma) {
  const double x = std::nearbyint(rng.normal() * sigma);
  return int_bits(f, static_cast<std::int64_t>(std::clamp(x, -4e9, 4e9)));
}
std::uint32_t int_uniform(Format f, Rng& rng) { return static_cast<std::uint32_t>(rng.bits()) & storage_mask(f); }
std::uint32_t int_special(Format f, Rng& rng) {
  switch (rng.below(4)) {
    case 0: return int_bits(f, int_min(f));
    case 1: return int_bits(f, int_max(f));
    case 2: return 0;
    default: return int_bits(f, spec(f).is_signed ? -1 : 1);
  }
}

Case gen_integer(const Instruction& in, int which, Rng& rng) {
  Case g;
  g.a.resize(in.k);
  g.b.resize(in.k);
  const Format fa = in.a_type, fb = in.b_type, fc = in.c_type;
  for (int k = 0; k < in.k; ++k) {
    switch (which) {
      case 1: g.a[k] = int_uniform(fa, rng), g.b[k] = int_uniform(fb, rng); break;
      case 5: g.a[k] = int_bits(fa, rng.range(-2, 2)), g.b[k] = int_bits(fb, rng.range(-2, 2)); break;
      default:
        g.a[k] = int_normal(fa, rng, static_cast<double>(int_max(fa) - int_min(fa)) / 8);
        g.b[k] = int_normal(fb, rng, static_cast<double>(int_max(fb) - int_min(fb)) / 8);
        if (which == 4 && rng.chance(1, 8)) g.a[k] = int_special(fa, rng);
        if (which == 4 && rng.chance(1, 8)) g.b[k] = int_special(fb, rng);
    }
  }
  std::int64_t sum = 0;
  if (which == 3) {  // pairs (k, k+1) cancel where a negated operand exists
    for (int k = 0; k + 1 < in.k; k += 2) {
      if (spec(fa).is_signed && integer_value(fa, g.a[k]) > int_min(fa)) {
        g.a[k + 1] = int_bits(fa, -integer_value(fa, g.a[k])), g.b[k + 1] = g.b[k];
      } else if (spec(fb).is_signed && integer_value(fb, g.b[k]) > int_min(fb)) {
        g.b[k + 1] = int_bits(fb, -integer_value(fb, g.b[k])), g.a[k + 1] = g.a[k];
      }
    }
    for (int k = 0; k < in.k; ++k) sum += integer_value(fa, g.a[k]) * integer_value(fb, g.b[k]);
  }
  switch (which) {
    case 1: g.c = int_uniform(fc, rng); break;
    case 2: {
      const std::int64_t r = static_cast<std::int64_t>(rng.below(std::uint64_t{1} << 20));
      g.c = int_bits(fc, rng.coin() ? int_max(fc) - r : int_min(fc) + r);
      break;
    }
    case 3: g.c = int_bits(fc, -sum + rng.range(-1, 1)); break;
    case 4: g.c = rng.chance(1, 4) ? int_special(fc, rng) : int_normal(fc, rng, 65536.0); break;
    case 5: g.c = int_bits(fc, rng.range(-8, 8)); break;
    default: g.c = int_normal(fc, rng, 65536.0);
  }
  return g;
}

}  // namespace

namespace reference::frozen_v1 {

std::vector<std::string> distribution_names() {
  std::vector<std::string> v;
  for (const DistInfo& d : kDists) v.emplace_back(d.name);
  return v;
}

std::string_view distribution_description(std::string_view dist) {
  for (const DistInfo& d : kDists)
    if (dist == d.name) return d.description;
  throw std::invalid_argument("unknown distribution '" + std::string(dist) + "'; valid: " + valid_names());
}

std::vector<Case> generate(const Instruction& in, std::string_view dist, std::size_t count, std::uint64_t seed) {
  int which = -1;
  for (std::size_t i = 0; i < kDists.size(); ++i)
    if (dist == kDists[i].name) which = static_cast<int>(i);
  if (which < 0)
    throw std::invalid_argument("unknown distribution '" + std::string(dist) + "'; valid: " + valid_names());
  if (in.k <= 0) throw std::invalid_argument("generate: instruction " + in.name + " has no K");
  Rng rng(seed);
  MpfrValue tmp(64);
  std::vector<Case> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (in.integer()) {
      out.push_back(gen_integer(in, which, rng));
      continue;
    }
    switch (which) {
      case 0: out.push_back(gen_normal(in, rng)); break;
      case 1: out.push_back(gen_randbits(in, rng)); break;
      case 2: out.push_back(gen_spread(in, rng)); break;
      case 3: out.push_back(gen_cancel(in, rng, tmp)); break;
      case 4: out.push_back(gen_special(in, rng)); break;
      default: out.push_back(gen_subnorm(in, rng)); break;
    }
    if (in.block_scaled()) draw_scales(in, which, rng, out.back());
  }
  return out;
}

}  // namespace reference::frozen_v1
}  // namespace tcnum
