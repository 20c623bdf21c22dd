// The fuzz generators (tcnum/fuzz/generators.hpp): xoshiro256**, integer sampling, the core's
// rounding; no MPFR, so that a GPU host without it builds and draws the same cases.
// No two draws in one call's arguments: their order of evaluation is unspecified (x86-64 and
// aarch64 GCC differ), and a seed must draw the same case on every host. Each such call now
// draws into named values first, in the order x86-64 GCC used (the pinned streams of
// tests/test_fuzz_generator_stream.cpp hold).
#include "tcnum/fuzz/generators.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <mutex>
#include <vector>
#include <cmath>
#include <optional>
#include <utility>
#include <stdexcept>

#include "../generator_common.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/core/plan.hpp"
#include "integer_cases.hpp"
#include "splitmix.hpp"

namespace tcnum::fuzz {

using detail::splitmix64;
namespace {

// tcnum::detail (generator_common.hpp), not tcnum::fuzz::detail (integer_cases.hpp), which hides it here.
using ::tcnum::detail::DistInfo;

constexpr std::array<DistInfo, 7> kDists{{
    {"normal", "a, b, c ~ N(0,1) (Irwin-Hall approximation) rounded to nearest even into their formats"},
    ::tcnum::detail::kRandbitsDist, ::tcnum::detail::kSpreadDist, ::tcnum::detail::kCancelDist,
    ::tcnum::detail::kSpecialDist, ::tcnum::detail::kSubnormDist,
    {"boundary", "exact sums on the model's truncation (F, F±1, F±2), rounding, overflow, underflow and zero boundaries"},
}};

// xoshiro256** (Blackman & Vigna), fully specified here: same stream on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
  }
  std::uint64_t bits() {
    const std::uint64_t out = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return out;
  }
  // Uniform in [0, n), n > 0 (Lemire's multiply-shift with exact rejection).
  std::uint64_t below(std::uint64_t n) {
    for (;;) {
      const unsigned __int128 m = static_cast<unsigned __int128>(bits()) * n;
      const auto low = static_cast<std::uint64_t>(m);
      if (low >= n || low >= (0 - n) % n) return static_cast<std::uint64_t>(m >> 64);
    }
  }
  int range(int lo, int hi) { return lo + static_cast<int>(below(static_cast<std::uint64_t>(hi - lo) + 1)); }
  bool chance(std::uint64_t num, std::uint64_t den) { return below(den) < num; }
  bool coin() { return (bits() >> 63) != 0; }
  // Irwin–Hall of four 16-bit uniforms: mean 0, variance 1 after the scale (exact products).
  // normal_step() is the sum's integer, normal() its value.
  static constexpr int kNormalSteps = 2 * 0xffff;  // the sum lies in [-kNormalSteps, kNormalSteps]
  static constexpr double kNormalScale = 1.7320508075688772 / 65536.0;  // sqrt(12 / 4) / 2^16
  int normal_step() {
    const std::uint64_t r = bits();
    return static_cast<int>((r & 0xffff) + ((r >> 16) & 0xffff) + ((r >> 32) & 0xffff) + (r >> 48)) - kNormalSteps;
  }
  double normal() { return static_cast<double>(normal_step()) * kNormalScale; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> s_{};
};

// encode(f, rng.normal()) through a table of every value normal() can take (2^18 of them, built
// once per format): the same bits, without a rounding per element.
class NormalTables {
 public:
  std::uint32_t draw(Format f, Rng& rng) { return table(f)[rng.normal_step() + Rng::kNormalSteps]; }

 private:
  static constexpr std::size_t kFormats = kFormatSpecs.size();
  const std::uint32_t* table(Format f) {
    const auto i = static_cast<std::size_t>(f);
    std::call_once(once_[i], [&] {
      tables_[i].resize(2 * Rng::kNormalSteps + 1);
      for (int s = -Rng::kNormalSteps; s <= Rng::kNormalSteps; ++s)
        tables_[i][static_cast<std::size_t>(s + Rng::kNormalSteps)] = encode(f, static_cast<double>(s) * Rng::kNormalScale);
    });
    return tables_[i].data();
  }
  std::array<std::once_flag, kFormats> once_;
  std::array<std::vector<std::uint32_t>, kFormats> tables_;
};

std::uint32_t normal_bits(Format f, Rng& rng) {
  static NormalTables tables;
  return tables.draw(f, rng);
}

// to_double of a finite pattern, fast: fp32 and bf16 by their bits, other formats of up to 16
// bits through a table of every pattern (built once per format).
double value_of(Format f, std::uint32_t bits) {
  if (f == Format::fp32) return std::bit_cast<float>(bits);
  if (f == Format::bf16) return std::bit_cast<float>(bits << 16);
  if (spec(f).storage_bits > 16) return to_double(f, bits);
  static std::array<std::once_flag, kFormatSpecs.size()> once;
  static std::array<std::vector<double>, kFormatSpecs.size()> tables;
  const auto i = static_cast<std::size_t>(f);
  std::call_once(once[i], [&] {
    tables[i].resize(std::size_t{1} << spec(f).storage_bits);
    for (std::size_t p = 0; p < tables[i].size(); ++p) tables[i][p] = to_double(f, static_cast<std::uint32_t>(p));
  });
  return tables[i][bits & storage_mask(f)];
}

// encode(f, x): fp32 by the conversion (round to nearest even, as encode), else encode itself.
std::uint32_t bits_of(Format f, double x) {
  return f == Format::fp32 ? std::bit_cast<std::uint32_t>(static_cast<float>(x)) : encode(f, x);
}

int tf32_shift(Format f) { return f == Format::tf32 ? 13 : 0; }
std::uint32_t low_ones(int n) { return n >= 32 ? ~0u : (1u << n) - 1u; }
using ::tcnum::detail::lowest_lead;
std::uint32_t sign_mask(Format f) { return 1u << (spec(f).exp_bits + spec(f).frac_bits + tf32_shift(f)); }

std::uint32_t pack(Format f, bool sign, std::uint32_t biased, std::uint32_t frac) {
  const FormatSpec& s = spec(f);
  return ((static_cast<std::uint32_t>(sign) << (s.exp_bits + s.frac_bits)) | (biased << s.frac_bits) | frac)
         << tf32_shift(f);
}

// A value whose leading bit has weight 2^lead (clamped into f's range), with the `width` bits
// below the leading bit taken from `low` (the rest zero). e4m3's NaN pattern is avoided.
std::uint32_t with_lead(Format f, bool sign, int lead, std::uint32_t low) {
  const FormatSpec& s = spec(f);
  lead = std::clamp(lead, lowest_lead(f), s.emax());
  if (lead >= s.emin()) {
    std::uint32_t frac = low & low_ones(s.frac_bits);
    if (!s.has_inf && lead == s.emax() && frac == low_ones(s.frac_bits)) frac -= 1;
    return pack(f, sign, static_cast<std::uint32_t>(lead + s.bias), frac);
  }
  const int j = lead - lowest_lead(f);  // the leading bit's place in the fraction field
  return pack(f, sign, 0, (1u << j) | (low & low_ones(j)));
}

std::uint32_t random_at(Format f, bool sign, int lead, Rng& rng) {
  return with_lead(f, sign, lead, static_cast<std::uint32_t>(rng.bits()));
}

bool finite_pattern(Format f, std::uint32_t bits) {
  const Decoded d = decode(f, bits);
  return !d.is_nan() && !d.is_inf();
}

std::uint32_t random_finite(Format f, Rng& rng) {
  for (;;) {
    const std::uint32_t r = static_cast<std::uint32_t>(rng.bits()) & storage_mask(f);
    if (finite_pattern(f, r)) return r;
  }
}

// Leading-bit weight of a finite nonzero pattern.
int lead_of(Format f, std::uint32_t bits) {
  const Decoded d = decode(f, bits);
  return d.exponent + 63 - __builtin_clzll(d.significand);
}

// Moves a finite nonzero pattern `steps` ulps in magnitude when it stays finite and nonzero.
std::uint32_t nudge(Format f, std::uint32_t bits, int steps) {
  const int sh = tf32_shift(f);
  const std::uint32_t sign = sign_mask(f) >> sh, r = bits >> sh, mag = r & (sign - 1);
  const std::int64_t moved = static_cast<std::int64_t>(mag) + steps;
  if (steps == 0 || mag == 0 || moved <= 0 || moved >= sign) return bits;
  const std::uint32_t out = ((r & sign) | static_cast<std::uint32_t>(moved)) << sh;
  return finite_pattern(f, out) ? out : bits;
}

std::uint32_t tiny(Format f, Rng& rng) {
  const bool sign = rng.coin();
  const FormatSpec& s = spec(f);
  return rng.coin() ? random_at(f, sign, rng.range(lowest_lead(f), s.emin() - 1), rng)
                    : random_at(f, sign, rng.range(s.emin(), s.emin() + 3), rng);
}

// Factors whose product's leading bit is 2^t or 2^(t+1) (t clamped to what A×B can reach);
// `bits_a`/`bits_b` give their fraction bits (0: powers of two).
// Leading-bit weights (ea, eb) of two factors whose product leads at 2^t (t clamped).
std::pair<int, int> split_lead(const Instruction& in, int t, Rng& rng) {
  const ::tcnum::detail::LeadSplit s = ::tcnum::detail::lead_split(in, t);
  const int ea = rng.range(s.lo, std::max(s.lo, s.hi));
  return {ea, s.t - ea};
}

void factors_for(const Instruction& in, int t, bool negative, std::uint32_t bits_a, std::uint32_t bits_b, Rng& rng,
                 std::uint32_t& a, std::uint32_t& b) {
  const auto [ea, eb] = split_lead(in, t, rng);
  const bool sign_a = rng.coin();
  a = with_lead(in.a_type, sign_a, ea, bits_a);
  b = with_lead(in.b_type, sign_a != negative, eb, bits_b);
}

// One case of `in`, written in place.
struct CaseRef {
  std::uint32_t* a;
  std::uint32_t* b;
  std::uint32_t* c;
  int k;
};

void fill_normal(const Instruction& in, Rng& rng, CaseRef x) {
  for (int k = 0; k < x.k; ++k) {
    x.a[k] = normal_bits(in.a_type, rng);
    x.b[k] = normal_bits(in.b_type, rng);
  }
  *x.c = normal_bits(in.c_type, rng);
}

void fill_randbits(const Instruction& in, Rng& rng, CaseRef x) {
  for (int k = 0; k < x.k; ++k) {
    x.a[k] = random_finite(in.a_type, rng);
    x.b[k] = random_finite(in.b_type, rng);
  }
  *x.c = random_finite(in.c_type, rng);
}

void fill_spread(const Instruction& in, Rng& rng, CaseRef x) {
  const FormatSpec &sa = spec(in.a_type), &sb = spec(in.b_type), &sc = spec(in.c_type), &sd = spec(in.d_type);
  const int lo = std::max({sa.emin() + sb.emin(), sc.emin(), sd.emin()});
  const int hi = std::max(lo, std::min({sa.emax() + sb.emax() - 1, sc.emax() - 1, sd.emax() - 6}));
  const int lead = rng.range(std::min(lo + 30, hi), hi);
  const int lead_slot = rng.chance(1, 4) ? x.k : static_cast<int>(rng.below(x.k));  // x.k: C
  for (int k = 0; k <= x.k; ++k) {
    const int e = k == lead_slot ? lead : lead - rng.range(5, 30);
    const bool negative = rng.coin();
    if (k == x.k) {
      *x.c = random_at(in.c_type, negative, e, rng);
      continue;
    }
    const auto bits_b = static_cast<std::uint32_t>(rng.bits()), bits_a = static_cast<std::uint32_t>(rng.bits());
    factors_for(in, e, negative, bits_a, bits_b, rng, x.a[k], x.b[k]);
  }
}

struct ExactSum {  // -(sum of products) rounded into C's format, through the exact model
  MmaPlan plan;
  explicit ExactSum(const Instruction& in) : plan(make(in)) {}
  static MmaPlan make(Instruction in) {
    in.d_type = in.c_type;
    return compile_plan(exact_params(), in);
  }
};

// The k product slots in random pairs: fn(i, j, step) for each pair, where step() draws a nudge
// of -1, 0 or +1 ulp (p = 1/4, 1/2, 1/4).
template <class Fn>
void cancelling_pairs(int k, Rng& rng, Fn&& fn) {
  std::array<int, 64> perm{};
  for (int s = 0; s < k; ++s) perm[s] = s;
  for (int s = k - 1; s > 0; --s) std::swap(perm[s], perm[rng.below(s + 1)]);
  auto step = [&rng] {
    const auto r = rng.below(4);
    return r == 0 ? -1 : r == 1 ? 1 : 0;
  };
  for (int p = 0; p + 1 < k; p += 2) fn(perm[p], perm[p + 1], step);
}

void fill_cancel(const Instruction& in, Rng& rng, CaseRef x, const ExactSum& exact) {
  fill_normal(in, rng, x);
  cancelling_pairs(x.k, rng, [&](int i, int j, auto& step) {
    x.a[j] = nudge(in.a_type, x.a[i] ^ sign_mask(in.a_type), step());
    x.b[j] = nudge(in.b_type, x.b[i], step());
  });
  const std::uint32_t sum =
      mma_element(exact.plan, {x.a, static_cast<std::size_t>(x.k)}, {x.b, static_cast<std::size_t>(x.k)},
                  zero_bits(in.c_type, false));
  *x.c = decode(in.c_type, sum).is_zero() ? sum : sum ^ sign_mask(in.c_type);
  if (rng.coin()) *x.c = nudge(in.c_type, *x.c, rng.coin() ? 1 : -1);
}

std::uint32_t special_value(Format f, Rng& rng) {
  const FormatSpec& s = spec(f);
  const bool sign = rng.coin();
  switch (rng.below(8)) {
    case 0:
    case 1: return zero_bits(f, sign);
    case 2: return s.has_inf ? infinity_bits(f, sign) : zero_bits(f, sign);
    case 3: {  // NaN with a random payload
      const std::uint32_t frac = s.has_inf ? static_cast<std::uint32_t>(1 + rng.below(low_ones(s.frac_bits)))
                                           : low_ones(s.frac_bits);
      return pack(f, sign, low_ones(s.exp_bits), frac);
    }
    case 4: return max_finite_bits(f, sign);
    case 5: return pack(f, sign, 0, 1);  // smallest subnormal
    case 6: return pack(f, sign, 1, 0);  // smallest normal
    default: return pack(f, sign, 0, low_ones(s.frac_bits));  // largest subnormal
  }
}

void fill_special(const Instruction& in, Rng& rng, CaseRef x) {
  fill_normal(in, rng, x);
  for (int k = 0; k < x.k; ++k) {
    if (rng.chance(1, 8)) x.a[k] = special_value(in.a_type, rng);
    if (rng.chance(1, 8)) x.b[k] = special_value(in.b_type, rng);
  }
  if (rng.chance(1, 8)) *x.c = special_value(in.c_type, rng);
}

void fill_subnorm(const Instruction& in, Rng& rng, CaseRef x) {
  const FormatSpec& sd = spec(in.d_type);
  for (int k = 0; k < x.k; ++k) {
    const bool a_tiny = rng.coin();
    const Format tiny_f = a_tiny ? in.a_type : in.b_type, other_f = a_tiny ? in.b_type : in.a_type;
    const std::uint32_t t = tiny(tiny_f, rng);
    std::uint32_t o;
    if (rng.coin() || decode(tiny_f, t).is_zero()) {
      o = tiny(other_f, rng);
    } else {
      const int e = rng.range(sd.emin() - sd.frac_bits - 2, sd.emin() + 2) - lead_of(tiny_f, t);
      const bool sign = rng.coin();
      o = e < lowest_lead(other_f) ? tiny(other_f, rng) : random_at(other_f, sign, e, rng);
    }
    x.a[k] = a_tiny ? t : o;
    x.b[k] = a_tiny ? o : t;
  }
  const bool sign = rng.coin();
  *x.c = rng.chance(1, 8) ? zero_bits(in.c_type, sign) : tiny(in.c_type, rng);
}

// ---- boundary: exact sums on the model's boundaries ----

void clear_case(const Instruction& in, Rng& rng, CaseRef x) {
  for (int k = 0; k < x.k; ++k) {
    x.a[k] = zero_bits(in.a_type, rng.chance(1, 4));
    x.b[k] = zero_bits(in.b_type, false);
  }
  *x.c = zero_bits(in.c_type, false);
}

// Distinct random product slots (blocks and passes see the terms in varied places).
std::array<int, 3> slots(int k, Rng& rng) {
  std::array<int, 3> s{};
  s[0] = static_cast<int>(rng.below(k));
  do s[1] = static_cast<int>(rng.below(k)); while (k > 1 && s[1] == s[0]);
  do s[2] = static_cast<int>(rng.below(k)); while (k > 2 && (s[2] == s[0] || s[2] == s[1]));
  return s;
}

// A lead term with leading bit 2^lead: a product, or C with probability 1/4.
void put_lead(const Instruction& in, int lead, bool negative, int slot, Rng& rng, CaseRef x) {
  const auto bits_a = static_cast<std::uint32_t>(rng.bits()), bits_b = static_cast<std::uint32_t>(rng.bits());
  if (rng.chance(1, 4)) {
    *x.c = with_lead(in.c_type, negative, lead, bits_a);
  } else {
    // Few bits in one factor keep the product's bits well inside the kept window.
    factors_for(in, lead, negative, bits_a, rng.coin() ? 0 : bits_b, rng, x.a[slot], x.b[slot]);
  }
}

void put_power(const Instruction& in, int lead, bool negative, int slot, Rng& rng, CaseRef x) {
  factors_for(in, lead, negative, 0, 0, rng, x.a[slot], x.b[slot]);
}

// The exponent the datapath aligns a term by (a subnormal counts at its format's emin).
int nominal(Format storage, Format seen, std::uint32_t bits) {
  return std::max(lead_of(storage, bits), spec(seen).emin());
}

void fill_boundary(const Instruction& in, const DatapathParams& model, Rng& rng, CaseRef x) {
  clear_case(in, rng, x);
  const FormatSpec& sd = spec(in.d_type);
  const auto s = slots(x.k, rng);
  const bool neg = rng.coin();
  switch (rng.below(5)) {
    case 0: {  // alignment truncation: a term at the last bit kept by F' = F-1, F, F+1 below the lead
      put_lead(in, rng.range(-6, 6), neg, s[0], rng, x);
      const bool lead_in_c = !decode(in.c_type, *x.c).is_zero();
      const int top = lead_in_c ? nominal(in.c_type, in.c_type, *x.c)
                                : nominal(in.a_type, model.unpack_format.value_or(in.a_type), x.a[s[0]]) +
                                      nominal(in.b_type, model.unpack_format.value_or(in.b_type), x.b[s[0]]);
      const int f = std::min(model.frac_bits, 60) + rng.range(-1, 1);
      const bool small_negative = rng.chance(3, 4) != neg;  // mostly against the lead: a borrow
      put_power(in, top - f, small_negative, s[1], rng, x);
      if (x.k > 2 && rng.coin()) {
        const bool negative = rng.coin();
        put_power(in, top - f - rng.range(1, 4), negative, s[2], rng, x);
      }
      break;
    }
    case 1: {  // rounding into D: a half ulp (or an ulp) of D below the lead, plus a sticky term
      const int lead = rng.range(-6, 6);
      put_lead(in, lead, neg, s[0], rng, x);
      bool negative = rng.coin();
      put_power(in, lead - sd.frac_bits - rng.range(0, 1), negative, s[1], rng, x);
      if (x.k > 2 && rng.coin()) {
        negative = rng.coin();
        put_power(in, lead - sd.frac_bits - rng.range(2, 12), negative, s[2], rng, x);
      }
      break;
    }
    case 2: {  // overflow: C at D's largest binade (or a product there), terms of its half ulp
      const int top = std::min(sd.emax(), spec(in.c_type).emax());
      if (rng.coin()) {
        *x.c = with_lead(in.c_type, neg, top, rng.coin() ? ~0u : static_cast<std::uint32_t>(rng.bits()));
      } else {
        put_lead(in, top, neg, s[0], rng, x);
      }
      const bool negative = rng.chance(1, 4) != neg;
      put_power(in, top - sd.frac_bits - rng.range(-1, 1), negative, s[1], rng, x);
      if (x.k > 2 && rng.coin()) put_power(in, top - sd.frac_bits - rng.range(0, 2), neg, s[2], rng, x);
      break;
    }
    case 3: {  // underflow: terms about D's smallest normal and subnormal
      const int lo = sd.emin() - sd.frac_bits;
      for (int i = 0; i < 3 && i < x.k; ++i) {
        const int lead = rng.range(lo - 3, sd.emin() + 1);
        if (rng.coin()) put_power(in, lead, rng.coin(), s[i], rng, x);
        else put_lead(in, lead, rng.coin(), s[i], rng, x);
      }
      break;
    }
    default: {  // zero results: signed-zero sums, exact cancellation, negative sums that underflow
      const auto r = rng.below(3);
      for (int k = 0; k < x.k; ++k) x.b[k] = random_finite(in.b_type, rng);
      if (r == 0) {  // every addend -0 (one flipped with probability 1/2)
        for (int k = 0; k < x.k; ++k) x.a[k] = zero_bits(in.a_type, !(decode(in.b_type, x.b[k]).sign));
        *x.c = zero_bits(in.c_type, true);
        if (rng.coin()) x.a[s[0]] ^= sign_mask(in.a_type);
      } else if (r == 1) {  // a cancelling pair
        put_lead(in, rng.range(-6, 6), neg, s[0], rng, x);
        x.a[s[1]] = x.a[s[0]] ^ sign_mask(in.a_type);
        x.b[s[1]] = x.b[s[0]];
        *x.c = zero_bits(in.c_type, rng.coin());
      } else {  // one product below half of D's smallest subnormal
        put_lead(in, sd.emin() - sd.frac_bits - rng.range(2, 8), neg, s[0], rng, x);
        *x.c = zero_bits(in.c_type, rng.coin());
      }
      break;
    }
  }
}

// ---- whole tiles: every output element (i, j) is a case, on A's row i and B's column j ----
//
// Element-wise distributions draw every element as the per-case generator does. The others put
// their structure on what a row and a column share: the product slot k (its leading exponents,
// the cancelling pairs, the lead term), so that every element of the tile carries it.

struct TileRef {
  std::uint32_t* a;  // M×K row-major
  std::uint32_t* b;  // K×N column-major: column j at j·K
  std::uint32_t* c;  // M×N row-major
  int m, n, k;
};

template <class Draw>
void fill_elementwise(const Instruction& in, TileRef x, Draw&& draw) {
  for (int e = 0; e < x.m * x.k; ++e) x.a[e] = draw(in.a_type);
  for (int e = 0; e < x.n * x.k; ++e) x.b[e] = draw(in.b_type);
  for (int e = 0; e < x.m * x.n; ++e) x.c[e] = draw(in.c_type);
}

void tile_normal(const Instruction& in, Rng& rng, TileRef x) {
  fill_elementwise(in, x, [&](Format f) { return normal_bits(f, rng); });
}

void tile_randbits(const Instruction& in, Rng& rng, TileRef x) {
  fill_elementwise(in, x, [&](Format f) { return random_finite(f, rng); });
}

void tile_special(const Instruction& in, Rng& rng, TileRef x) {
  fill_elementwise(in, x, [&](Format f) { return rng.chance(1, 8) ? special_value(f, rng) : normal_bits(f, rng); });
}

// Slot k's products lead at e_k (the lead term's slot at `lead`, the others 5..30 below it); the
// lead exponent is split between A's column k and B's row k once, so every element sees it.
void tile_spread(const Instruction& in, Rng& rng, TileRef x) {
  const FormatSpec &sa = spec(in.a_type), &sb = spec(in.b_type), &sc = spec(in.c_type), &sd = spec(in.d_type);
  const int lo = std::max({sa.emin() + sb.emin(), sc.emin(), sd.emin()});
  const int hi = std::max(lo, std::min({sa.emax() + sb.emax() - 1, sc.emax() - 1, sd.emax() - 6}));
  const int lead = rng.range(std::min(lo + 30, hi), hi);
  const int lead_slot = rng.chance(1, 4) ? x.k : static_cast<int>(rng.below(x.k));  // x.k: C
  for (int k = 0; k < x.k; ++k) {
    const auto [ea, eb] = split_lead(in, k == lead_slot ? lead : lead - rng.range(5, 30), rng);
    for (int i = 0; i < x.m; ++i) x.a[i * x.k + k] = random_at(in.a_type, rng.coin(), ea, rng);
    for (int j = 0; j < x.n; ++j) x.b[j * x.k + k] = random_at(in.b_type, rng.coin(), eb, rng);
  }
  for (int e = 0; e < x.m * x.n; ++e) {
    const int c_lead = lead_slot == x.k ? lead : lead - rng.range(5, 30);
    x.c[e] = random_at(in.c_type, rng.coin(), c_lead, rng);
  }
}

// Pairs of slots cancel in every element: A's column j = -A's column i, B's row j = B's row i
// (each element nudged by ±1 ulp with p = 1/4); C(i, j) = -(its sum), summed in doubles (the
// products are exact there; the sum may round, which only moves C by an ulp, as the nudge does).
void tile_cancel(const Instruction& in, Rng& rng, TileRef x) {
  tile_normal(in, rng, x);
  cancelling_pairs(x.k, rng, [&](int i, int j, auto& step) {
    for (int r = 0; r < x.m; ++r)
      x.a[r * x.k + j] = nudge(in.a_type, x.a[r * x.k + i] ^ sign_mask(in.a_type), step());
    for (int col = 0; col < x.n; ++col) x.b[col * x.k + j] = nudge(in.b_type, x.b[col * x.k + i], step());
  });
  thread_local std::vector<double> av, bv;
  av.resize(static_cast<std::size_t>(x.m * x.k));
  bv.resize(static_cast<std::size_t>(x.n * x.k));
  for (int e = 0; e < x.m * x.k; ++e) av[e] = value_of(in.a_type, x.a[e]);
  for (int e = 0; e < x.n * x.k; ++e) bv[e] = value_of(in.b_type, x.b[e]);
  for (int i = 0; i < x.m; ++i)
    for (int j = 0; j < x.n; ++j) {
      double sum = 0;
      for (int k = 0; k < x.k; ++k) sum += av[i * x.k + k] * bv[j * x.k + k];
      std::uint32_t& c = x.c[i * x.n + j];
      c = sum == 0 ? zero_bits(in.c_type, false) : bits_of(in.c_type, -sum);
      if (rng.coin()) c = nudge(in.c_type, c, rng.coin() ? 1 : -1);
    }
}

// Per slot k, one factor tiny for the whole tile (the same side in A's column and B's row); the
// other either tiny too or sized so that the products land near the bottom of D's range.
void tile_subnorm(const Instruction& in, Rng& rng, TileRef x) {
  const FormatSpec& sd = spec(in.d_type);
  for (int k = 0; k < x.k; ++k) {
    const bool a_tiny = rng.coin(), both_tiny = rng.coin();
    const Format tiny_f = a_tiny ? in.a_type : in.b_type, other_f = a_tiny ? in.b_type : in.a_type;
    const std::uint32_t probe = tiny(tiny_f, rng);
    const int tiny_lead = decode(tiny_f, probe).is_zero() ? spec(tiny_f).emin() : lead_of(tiny_f, probe);
    const int other_lead = rng.range(sd.emin() - sd.frac_bits - 2, sd.emin() + 2) - tiny_lead;
    auto draw = [&](bool tiny_side) -> std::uint32_t {
      const Format f = tiny_side ? tiny_f : other_f;
      if (tiny_side) {
        const int lead = tiny_lead + static_cast<int>(rng.below(2));
        return random_at(f, rng.coin(), lead, rng);
      }
      if (both_tiny || other_lead < lowest_lead(f)) return tiny(f, rng);
      return random_at(f, rng.coin(), other_lead, rng);
    };
    for (int i = 0; i < x.m; ++i) x.a[i * x.k + k] = draw(a_tiny);
    for (int j = 0; j < x.n; ++j) x.b[j * x.k + k] = draw(!a_tiny);
  }
  for (int e = 0; e < x.m * x.n; ++e) x.c[e] = rng.chance(1, 8) ? zero_bits(in.c_type, rng.coin()) : tiny(in.c_type, rng);
}

// bits · (-1)^flip · 2^scale when that is exact in f (NaN, Inf and zeros only take the sign);
// nullopt when it is not.
std::optional<std::uint32_t> scaled_exactly(Format f, std::uint32_t bits, bool flip, int scale) {
  const Decoded d = decode(f, bits);
  const std::uint32_t flipped = flip ? bits ^ sign_mask(f) : bits;
  if (scale == 0 || d.is_zero() || d.is_nan() || d.is_inf()) return flipped;
  const double v = std::ldexp(value_of(f, flipped), scale);
  const std::uint32_t out = bits_of(f, v);
  if (!finite_pattern(f, out) || value_of(f, out) != v) return std::nullopt;
  return out;
}

// `lines` rows of A (or columns of B), each the K values of `base` times a random sign and a
// power of two 2^-3..2^3 (2^0 where that is not exact for every element of the line).
void spread_lines(Format f, const std::uint32_t* base, int k, std::uint32_t* out, int lines, Rng& rng, int* signs,
                  int* scales) {
  for (int r = 0; r < lines; ++r) {
    const bool flip = rng.coin();
    int scale = rng.range(-3, 3);
    for (int attempt = 0; attempt < 2; ++attempt) {
      bool exact = true;
      for (int kk = 0; kk < k && exact; ++kk) {
        const auto v = scaled_exactly(f, base[kk], flip, scale);
        if (v) out[r * k + kk] = *v;
        exact = v.has_value();
      }
      if (exact) break;
      scale = 0;  // always exact
    }
    signs[r] = flip;
    scales[r] = scale;
  }
}

// One boundary case per tile, spread over the tile by a sign and a power of two per row of A
// (σ_i, α_i) and per column of B (τ_j, β_j), and C(i, j) scaled by both: element (i, j) is the
// case times ±2^(α_i+β_j), on the same relative boundary (truncation, rounding, signed zero)
// wherever C scales exactly; near it otherwise, and near the absolute ones (overflow, underflow).
void tile_boundary_scaled(const Instruction& in, const DatapathParams& model, Rng& rng, TileRef x) {
  std::array<std::uint32_t, 64> a0{}, b0{};
  std::uint32_t c0 = 0;
  fill_boundary(in, model, rng, CaseRef{a0.data(), b0.data(), &c0, x.k});
  std::array<int, 256> row_sign{}, row_scale{}, col_sign{}, col_scale{};
  spread_lines(in.a_type, a0.data(), x.k, x.a, x.m, rng, row_sign.data(), row_scale.data());
  spread_lines(in.b_type, b0.data(), x.k, x.b, x.n, rng, col_sign.data(), col_scale.data());
  for (int i = 0; i < x.m; ++i)
    for (int j = 0; j < x.n; ++j) {
      const bool flip = row_sign[i] != col_sign[j];
      const auto v = scaled_exactly(in.c_type, c0, flip, row_scale[i] + col_scale[j]);
      x.c[i * x.n + j] = v ? *v : *scaled_exactly(in.c_type, c0, flip, 0);
    }
}

// A boundary case per row: B's rows at three slots are fixed for the tile (a lead factor and two
// powers of two), and every row of A completes them to its own case, with its own lead and its own
// F' = F-1, F, F+1 (`alignment`: a term at the last bit F' keeps below the lead, plus one further
// down), or its own half ulp or ulp of D below the lead plus a sticky term (`rounding`). Columns
// then take a sign and a power of two each, which moves every term of the element alike. So a
// 64-row tile holds 64 boundary cases, not one.
void tile_boundary_rows(const Instruction& in, const DatapathParams& model, Rng& rng, TileRef x, bool alignment) {
  std::fill(x.a, x.a + x.m * x.k, zero_bits(in.a_type, false));
  std::fill(x.c, x.c + x.m * x.n, zero_bits(in.c_type, false));
  std::array<std::uint32_t, 64> b0{};
  std::fill(b0.begin(), b0.begin() + x.k, zero_bits(in.b_type, false));
  const FormatSpec& sd = spec(in.d_type);
  const Format seen_a = model.unpack_format.value_or(in.a_type), seen_b = model.unpack_format.value_or(in.b_type);
  const auto s = slots(x.k, rng);
  const int F = std::min(model.frac_bits, 60);
  // B's three factors, split so that A's factors stay in range for leads about 2^0.
  const int small = alignment ? -F : -sd.frac_bits - 1, sticky = alignment ? small - 3 : -sd.frac_bits - 7;
  const int eb0 = split_lead(in, 0, rng).second, eb1 = split_lead(in, small, rng).second;
  const int eb2 = split_lead(in, sticky, rng).second;
  const std::uint32_t low_bits = rng.coin() ? 0u : static_cast<std::uint32_t>(rng.bits());
  b0[s[0]] = with_lead(in.b_type, rng.coin(), eb0, low_bits);
  b0[s[1]] = with_lead(in.b_type, rng.coin(), eb1, 0);
  if (x.k > 2) b0[s[2]] = with_lead(in.b_type, rng.coin(), eb2, 0);
  const bool b0_neg = decode(in.b_type, b0[s[0]]).sign, b1_neg = decode(in.b_type, b0[s[1]]).sign;
  for (int i = 0; i < x.m; ++i) {
    std::uint32_t* row = x.a + i * x.k;
    const int lead = rng.range(-2, 2);
    const bool lead_negative = rng.coin();
    row[s[0]] = with_lead(in.a_type, lead_negative != b0_neg, lead - eb0, static_cast<std::uint32_t>(rng.bits()));
    const bool small_negative = rng.chance(3, 4) != lead_negative;  // mostly against the lead: a borrow
    int t = 0;
    if (alignment) {
      const int top = nominal(in.a_type, seen_a, row[s[0]]) + nominal(in.b_type, seen_b, b0[s[0]]);
      t = top - (F + rng.range(-1, 1));
    } else {
      t = lead - sd.frac_bits - rng.range(0, 1);
    }
    row[s[1]] = with_lead(in.a_type, small_negative != b1_neg, t - eb1, 0);
    if (x.k > 2 && rng.coin()) {
      const int below = alignment ? t - rng.range(1, 4) : lead - sd.frac_bits - rng.range(2, 12);
      row[s[2]] = with_lead(in.a_type, rng.coin(), below - eb2, 0);
    }
  }
  std::array<int, 256> col_sign{}, col_scale{};
  spread_lines(in.b_type, b0.data(), x.k, x.b, x.n, rng, col_sign.data(), col_scale.data());
}

// Per tile: with p = 1/5 each, a case per row at the alignment or the rounding boundary
// (tile_boundary_rows); otherwise one case of any kind spread over the tile (tile_boundary_scaled).
void tile_boundary(const Instruction& in, const DatapathParams& model, Rng& rng, TileRef x) {
  const auto kind = rng.below(5);
  if (kind < 2) return tile_boundary_rows(in, model, rng, x, kind == 0);
  tile_boundary_scaled(in, model, rng, x);
}

int dist_index(std::string_view dist) {
  for (std::size_t i = 0; i < kDists.size(); ++i)
    if (dist == kDists[i].name) return static_cast<int>(i);
  std::string valid;
  for (const DistInfo& d : kDists) valid += (valid.empty() ? "" : ", ") + std::string(d.name);
  throw std::invalid_argument("unknown distribution '" + std::string(dist) + "'; valid: " + valid);
}

}  // namespace

std::vector<std::string> distribution_names() {
  std::vector<std::string> v;
  for (const DistInfo& d : kDists) v.emplace_back(d.name);
  return v;
}

std::string_view distribution_description(std::string_view dist) { return kDists[dist_index(dist)].description; }

void generate(const Instruction& in, const DatapathParams& model, std::string_view dist, std::uint64_t seed,
              std::size_t count, std::uint32_t* a, std::uint32_t* b, std::uint32_t* c) {
  const int which = dist_index(dist);
  if (in.k <= 0 || in.k > 64) throw std::invalid_argument("fuzz::generate: instruction " + in.name + " has K outside 1..64");
  if (in.integer()) return detail::integer_cases(in, which, seed, count, a, b, c);
  Rng rng(seed);
  std::optional<ExactSum> exact;
  if (which == 3) exact.emplace(in);
  const std::size_t k = static_cast<std::size_t>(in.k);
  for (std::size_t t = 0; t < count; ++t) {
    const CaseRef x{a + t * k, b + t * k, c + t, in.k};
    switch (which) {
      case 0: fill_normal(in, rng, x); break;
      case 1: fill_randbits(in, rng, x); break;
      case 2: fill_spread(in, rng, x); break;
      case 3: fill_cancel(in, rng, x, *exact); break;
      case 4: fill_special(in, rng, x); break;
      case 5: fill_subnorm(in, rng, x); break;
      default: fill_boundary(in, model, rng, x); break;
    }
  }
}

std::uint64_t batch_seed(std::uint64_t seed, std::string_view instruction, std::string_view dist,
                         std::uint64_t batch) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the names, then mixed with seed and batch
  for (char ch : instruction) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  h = (h ^ '/') * 1099511628211ull;
  for (char ch : dist) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  std::uint64_t x = h ^ seed;
  x = splitmix64(x) ^ batch;
  return splitmix64(x);
}

}  // namespace tcnum::fuzz

namespace tcnum::fuzz {

void generate_tiles(const Instruction& in, const DatapathParams& model, std::string_view dist, std::uint64_t seed,
                    std::size_t tiles, std::uint32_t* a, std::uint32_t* b, std::uint32_t* c) {
  const int which = dist_index(dist);
  if (in.k <= 0 || in.k > 64 || in.m <= 0 || in.m > 256 || in.n <= 0 || in.n > 256)
    throw std::invalid_argument("fuzz::generate_tiles: instruction " + in.name + " has M, N outside 1..256 or K outside 1..64");
  if (in.integer()) return detail::integer_tiles(in, which, seed, tiles, a, b, c);
  Rng rng(seed);
  const auto M = static_cast<std::size_t>(in.m), N = static_cast<std::size_t>(in.n), K = static_cast<std::size_t>(in.k);
  for (std::size_t t = 0; t < tiles; ++t) {
    const TileRef x{a + t * M * K, b + t * N * K, c + t * M * N, in.m, in.n, in.k};
    switch (which) {
      case 0: tile_normal(in, rng, x); break;
      case 1: tile_randbits(in, rng, x); break;
      case 2: tile_spread(in, rng, x); break;
      case 3: tile_cancel(in, rng, x); break;
      case 4: tile_special(in, rng, x); break;
      case 5: tile_subnorm(in, rng, x); break;
      default: tile_boundary(in, model, rng, x); break;
    }
  }
}

}  // namespace tcnum::fuzz

namespace tcnum::fuzz {

std::vector<Case> generate_cases(const Instruction& in, const DatapathParams& model, std::string_view dist,
                                 std::size_t count, std::uint64_t seed) {
  const auto K = static_cast<std::size_t>(in.k);
  std::vector<std::uint32_t> a(count * K), b(count * K), c(count);
  generate(in, model, dist, seed, count, a.data(), b.data(), c.data());
  std::vector<Case> cases(count);
  for (std::size_t t = 0; t < count; ++t) {
    cases[t].a.assign(a.begin() + static_cast<std::ptrdiff_t>(t * K), a.begin() + static_cast<std::ptrdiff_t>((t + 1) * K));
    cases[t].b.assign(b.begin() + static_cast<std::ptrdiff_t>(t * K), b.begin() + static_cast<std::ptrdiff_t>((t + 1) * K));
    cases[t].c = c[t];
  }
  return cases;
}

}  // namespace tcnum::fuzz
