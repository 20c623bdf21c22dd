// Formats: every pattern of e4m3, e5m2, f16, bf16 and the 2^19 meaningful tf32 patterns,
// decoded and re-encoded, and encode() against MPFR's correct rounding at every halfway
// point between neighbours (and the neighbours of those), at the range ends, and at
// random doubles. fp32 is sampled. Expectations come from MPFR or the format definitions.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tcnum/core/format.hpp"
#include "tcnum/reference/mpfr_reference.hpp"
#include "test_support.hpp"

using namespace tcnum;
using tcnum::test::describe;
using tcnum::test::hex;
using tcnum::test::meaningful;
using tcnum::test::meaningful_count;

namespace {

constexpr Format kAll[] = {Format::fp32, Format::fp16, Format::bf16, Format::tf32, Format::e4m3, Format::e5m2,
                           Format::e2m1, Format::e2m3, Format::e3m2, Format::ue8m0, Format::ue4m3};
constexpr Format kExhaustive[] = {Format::e4m3, Format::e5m2, Format::fp16, Format::bf16, Format::tf32,
                                  Format::e2m1, Format::e2m3, Format::e3m2, Format::ue8m0, Format::ue4m3};

struct Mode {
  Rounding rounding;
  bool satfinite;
};
constexpr Mode kModes[] = {{Rounding::nearest_even, false},
                           {Rounding::nearest_even, true},
                           {Rounding::toward_zero, false},
                           {Rounding::toward_zero, true}};


const char* mode_name(const Mode& m) {
  if (m.rounding == Rounding::nearest_even) return m.satfinite ? "RNE satfinite" : "RNE";
  return m.satfinite ? "RZ satfinite" : "RZ";
}

// Stops a loop's reports after a few failures.
struct FailureBudget {
  int left = 8;
  bool report() { return left-- > 0; }
  bool ok() const { return left == 8; }
};

// The reference value of a pattern as a double (exact: every format fits).
double ref_double(Format f, std::uint32_t bits, MpfrValue& tmp) {
  mpfr_set_bits(tmp, f, bits);
  return mpfr_get_d(tmp, MPFR_RNDN);
}

bool same_double(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// Checks decode()/to_double() of one pattern against MPFR's reading of it.
void check_decode(Format f, std::uint32_t bits, MpfrValue& tmp, FailureBudget& budget) {
  const double ref = ref_double(f, bits, tmp);
  const double got = to_double(f, bits);
  const Decoded d = decode(f, bits);
  bool ok = same_double(got, ref);
  if (std::isnan(ref)) ok = ok && d.kind == Decoded::Kind::nan;
  else if (std::isinf(ref)) ok = ok && d.kind == Decoded::Kind::inf && d.sign == std::signbit(ref);
  else if (ref == 0) ok = ok && d.kind == Decoded::Kind::zero && d.sign == std::signbit(ref);
  else {
    const FormatSpec& s = spec(f);
    const double v = std::ldexp(static_cast<double>(d.significand), d.exponent);
    const bool normal = !s.has_zero || std::fabs(ref) >= std::ldexp(1.0, s.emin());
    ok = ok && d.kind == Decoded::Kind::finite && d.sign == std::signbit(ref) && v == std::fabs(ref) &&
         d.significand < (std::uint64_t{2} << s.frac_bits) &&
         (normal ? d.significand >= (std::uint64_t{1} << s.frac_bits)
                 : d.exponent == s.emin() - s.frac_bits);
  }
  if (!ok && budget.report())
    ADD_FAILURE() << name_of(f) << " " << hex(bits) << ": to_double " << describe(got) << ", MPFR " << describe(ref)
                  << ", decoded sig " << d.significand << " exp " << d.exponent;
}

void check_encode(Format f, double x, const Mode& m, FailureBudget& budget) {
  const std::uint32_t want = mpfr_round_bits(f, x, m.rounding, m.satfinite);
  const std::uint32_t got = encode(f, x, m.rounding, m.satfinite);
  if (got != want && budget.report())
    ADD_FAILURE() << name_of(f) << " " << mode_name(m) << " encode(" << describe(x) << ") = " << hex(got)
                  << ", MPFR says " << hex(want);
}

// Doubles that probe every rounding decision of f: each representable positive value,
// the midpoint to its successor and the doubles next to both; the overflow threshold
// and underflow points and their neighbours; both signs. For fp32, a sample of pairs.
std::vector<double> probe_points(Format f) {
  MpfrValue tmp(32);
  std::vector<double> pos;
  auto around = [&](double v) {
    pos.push_back(v);
    pos.push_back(std::nextafter(v, 0.0));
    pos.push_back(std::nextafter(v, HUGE_VAL));
  };
  auto pair_points = [&](std::uint32_t lo_bits, std::uint32_t hi_bits) {
    const double lo = ref_double(f, lo_bits, tmp), hi = ref_double(f, hi_bits, tmp);
    around(lo);
    around(lo + (hi - lo) / 2);  // exact: at most 25 significant bits
  };
  const std::uint32_t max_bits = max_finite_bits(f, false);
  const std::uint32_t step = 1u << test::field_shift(f);
  if (f == Format::fp32) {
    std::mt19937_64 rng(0x5eed0f32);
    for (int i = 0; i < (1 << 16); ++i) {
      const auto b = static_cast<std::uint32_t>(rng() % max_bits);
      pair_points(b, b + 1);
    }
    for (std::uint32_t b = 0; b < 512; ++b) pair_points(b, b + 1);                       // subnormals
    for (std::uint32_t b = 0x00800000u - 256; b < 0x00800000u + 256; ++b) pair_points(b, b + 1);  // min normal
    for (std::uint32_t b = max_bits - 256; b < max_bits; ++b) pair_points(b, b + 1);
  } else {
    for (std::uint32_t b = 0; b < max_bits; b += step) pair_points(b, b + step);
  }
  const double max = ref_double(f, max_bits, tmp);
  const double max_ulp = max - ref_double(f, max_bits - step, tmp);
  const double min_sub = ref_double(f, spec(f).has_zero ? step : 0, tmp);  // ue8m0: 2^-127
  around(max);
  around(max + max_ulp / 2);  // overflow threshold (a tie)
  around(max + max_ulp);
  around(2 * max);
  around(min_sub / 2);
  around(min_sub / 4);
  around(min_sub * 0.75);
  pos.push_back(DBL_MAX);
  pos.push_back(DBL_TRUE_MIN);
  pos.push_back(DBL_MIN);
  pos.push_back(HUGE_VAL);
  pos.push_back(0.0);
  std::vector<double> all;
  all.reserve(pos.size() * 2);
  for (double v : pos) {
    all.push_back(v);
    all.push_back(-v);
  }
  return all;
}

// Random doubles: random 64-bit patterns, random floats, and random significands at
// exponents in and around f's range (these carry sticky bits below the midpoints).
std::vector<double> random_points(Format f, int n) {
  std::mt19937_64 rng(0xd0b1e5 + static_cast<unsigned>(f));
  const FormatSpec& s = spec(f);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    std::uint64_t r = rng();
    double d;
    std::memcpy(&d, &r, sizeof d);
    v.push_back(d);
    const auto r32 = static_cast<std::uint32_t>(rng());
    float fl;
    std::memcpy(&fl, &r32, sizeof fl);
    v.push_back(fl);
    const int e = s.emin() - s.frac_bits - 3 + static_cast<int>(rng() % (s.emax() - s.emin() + s.frac_bits + 7));
    const double m = 1.0 + static_cast<double>(rng() >> 12) * 0x1p-52;
    v.push_back((rng() & 1 ? -1 : 1) * std::ldexp(m, e));
  }
  return v;
}

}  // namespace

TEST(FormatSpec, MatchesTheFormatDefinitions) {
  struct Def {
    Format f;
    int storage, exp_bits, frac_bits, bias;
    bool has_inf;
  };
  const Def defs[] = {{Format::fp32, 32, 8, 23, 127, true}, {Format::fp16, 16, 5, 10, 15, true},
                      {Format::bf16, 16, 8, 7, 127, true},  {Format::tf32, 32, 8, 10, 127, true},
                      {Format::e4m3, 8, 4, 3, 7, false},    {Format::e5m2, 8, 5, 2, 15, true},
                      {Format::e2m1, 4, 2, 1, 1, false},    {Format::e2m3, 6, 2, 3, 1, false},
                      {Format::e3m2, 6, 3, 2, 3, false},    {Format::ue8m0, 8, 8, 0, 127, false},
                      {Format::ue4m3, 8, 4, 3, 7, false}};
  for (const Def& d : defs) {
    const FormatSpec& s = spec(d.f);
    EXPECT_EQ(s.storage_bits, d.storage) << name_of(d.f);
    EXPECT_EQ(s.exp_bits, d.exp_bits) << name_of(d.f);
    EXPECT_EQ(s.frac_bits, d.frac_bits) << name_of(d.f);
    EXPECT_EQ(s.bias, d.bias) << name_of(d.f);
    EXPECT_EQ(s.has_inf, d.has_inf) << name_of(d.f);
    EXPECT_EQ(parse_format(name_of(d.f)), d.f);
  }
  EXPECT_EQ(storage_mask(Format::fp16), 0xffffu);
  EXPECT_EQ(storage_mask(Format::e4m3), 0xffu);
  EXPECT_EQ(storage_mask(Format::fp32), 0xffffffffu);
}

TEST(FormatSpecials, E4m3HasMax448NoInfAndOneNaNPattern) {
  EXPECT_EQ(to_double(Format::e4m3, 0x7e), 448.0);
  EXPECT_EQ(to_double(Format::e4m3, 0xfe), -448.0);
  EXPECT_TRUE(decode(Format::e4m3, 0x7f).is_nan());
  EXPECT_TRUE(decode(Format::e4m3, 0xff).is_nan());
  for (std::uint32_t b = 0; b < 256; ++b) {
    EXPECT_FALSE(decode(Format::e4m3, b).is_inf()) << hex(b);
    if ((b & 0x7f) != 0x7f) {
      EXPECT_FALSE(decode(Format::e4m3, b).is_nan()) << hex(b);
    }
  }
  EXPECT_EQ(to_double(Format::e4m3, 0x78), 256.0);  // S.1111.000 is a number
  EXPECT_EQ(to_double(Format::e4m3, 0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(max_finite_bits(Format::e4m3, false), 0x7eu);
  EXPECT_EQ(infinity_bits(Format::e4m3, true), 0xffu);  // "Inf" is the NaN pattern
  EXPECT_EQ(encode(Format::e4m3, 464.0), 0x7eu);        // tie between 448 and (480): even
  EXPECT_EQ(encode(Format::e4m3, std::nextafter(464.0, 500.0)), 0x7fu);
  EXPECT_EQ(encode(Format::e4m3, -1e6), 0xffu);
  EXPECT_EQ(encode(Format::e4m3, 1e6, Rounding::nearest_even, true), 0x7eu);
  EXPECT_EQ(encode(Format::e4m3, -1e6, Rounding::toward_zero), 0xfeu);
  EXPECT_EQ(encode(Format::e4m3, HUGE_VAL, Rounding::nearest_even, true), 0x7eu);
  EXPECT_EQ(encode(Format::e4m3, HUGE_VAL), 0x7fu);
  EXPECT_EQ(encode(Format::e5m2, 57344.0), 0x7bu);
  EXPECT_EQ(encode(Format::e5m2, 61440.0), 0x7cu);  // tie between 57344 (odd) and 65536: overflow
  EXPECT_EQ(encode(Format::e5m2, 61439.0), 0x7bu);
}

// The OCP MX v1.0 tables (section 5.3): every value of FP4 E2M1, and the ends of FP6 E2M3/E3M2.
TEST(FormatSpecials, Fp4AndFp6AreTheOcpFormatsWithoutInfOrNaN) {
  const double e2m1[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  for (std::uint32_t b = 0; b < 16; ++b) {
    EXPECT_EQ(to_double(Format::e2m1, b), (b & 8 ? -1 : 1) * e2m1[b & 7]) << hex(b);
    EXPECT_EQ(to_double(Format::e2m1, b | 0xf0u), to_double(Format::e2m1, b)) << "only 4 bits are read";
  }
  EXPECT_EQ(to_double(Format::e2m3, 0x1f), 7.5);
  EXPECT_EQ(to_double(Format::e2m3, 0x01), 0.125);
  EXPECT_EQ(to_double(Format::e2m3, 0x3f), -7.5);
  EXPECT_EQ(to_double(Format::e3m2, 0x1f), 28.0);
  EXPECT_EQ(to_double(Format::e3m2, 0x01), 0.0625);
  EXPECT_EQ(to_double(Format::e3m2, 0x04), 0.25);  // min normal 2^-2
  for (Format f : {Format::e2m1, Format::e2m3, Format::e3m2})
    for (std::uint32_t b = 0; b < (1u << spec(f).storage_bits); ++b) {
      EXPECT_FALSE(decode(f, b).is_nan() || decode(f, b).is_inf()) << name_of(f) << " " << hex(b);
    }
  // cvt.rn.satfinite: overflow and Inf saturate, NaN becomes +max (CUDA 13 cuda_fp4.hpp/cuda_fp6.hpp).
  EXPECT_EQ(encode(Format::e2m1, 5.0), 0x6u);   // tie between 4 (even) and 6
  EXPECT_EQ(encode(Format::e2m1, 7.0), 0x7u);   // beyond max, RNE would go up: saturates
  EXPECT_EQ(encode(Format::e2m1, -1e30), 0xfu);
  EXPECT_EQ(encode(Format::e2m1, HUGE_VAL), 0x7u);
  EXPECT_EQ(encode(Format::e2m1, std::nan("")), 0x7u);
  EXPECT_EQ(encode(Format::e2m1, 0.25), 0x0u);  // tie between 0 and 0.5: even
  EXPECT_EQ(encode(Format::e2m1, -0.26), 0x9u);
  EXPECT_EQ(encode(Format::e3m2, 1e9), 0x1fu);
  EXPECT_EQ(encode(Format::e2m3, -8.0), 0x3fu);
}

TEST(FormatSpecials, ScaleFormatsUe8m0AndUe4m3) {
  EXPECT_EQ(to_double(Format::ue8m0, 0x7f), 1.0);
  EXPECT_EQ(to_double(Format::ue8m0, 0x00), std::ldexp(1.0, -127));  // no zero
  EXPECT_EQ(to_double(Format::ue8m0, 0xfe), std::ldexp(1.0, 127));
  EXPECT_TRUE(decode(Format::ue8m0, 0xff).is_nan());
  for (std::uint32_t b = 0; b < 255; ++b) {
    EXPECT_EQ(to_double(Format::ue8m0, b), std::ldexp(1.0, static_cast<int>(b) - 127)) << hex(b);
  }
  EXPECT_EQ(max_finite_bits(Format::ue8m0, false), 0xfeu);
  EXPECT_EQ(canonical_nan(Format::ue8m0), 0xffu);
  EXPECT_EQ(encode(Format::ue8m0, 3.0, Rounding::toward_zero), 0x80u);   // 2^1
  EXPECT_EQ(encode(Format::ue8m0, -3.0, Rounding::toward_zero), 0x80u);  // no sign: |x|
  EXPECT_EQ(encode(Format::ue8m0, 0.0, Rounding::toward_zero), 0x00u);   // no zero: the smallest
  EXPECT_EQ(encode(Format::ue8m0, HUGE_VAL, Rounding::toward_zero), 0xffu);
  EXPECT_EQ(encode(Format::ue8m0, HUGE_VAL, Rounding::toward_zero, true), 0xfeu);
  // ue4m3: e4m3 without its sign bit; bit 7 is not read.
  for (std::uint32_t b = 0; b < 128; ++b) {
    if (b == 0x7f) continue;
    EXPECT_EQ(to_double(Format::ue4m3, b), to_double(Format::e4m3, b)) << hex(b);
    EXPECT_EQ(to_double(Format::ue4m3, b | 0x80u), to_double(Format::e4m3, b)) << hex(b);
  }
  EXPECT_TRUE(decode(Format::ue4m3, 0x7f).is_nan());
  EXPECT_EQ(encode(Format::ue4m3, -2.0), 0x40u);
  EXPECT_EQ(encode(Format::ue4m3, 1e6, Rounding::nearest_even, true), 0x7eu);
}

TEST(FormatSpecials, CanonicalNaNInfAndSignedZero) {
  // NVIDIA's canonical NaN: sign 0, every exponent and fraction bit set.
  const std::pair<Format, std::uint32_t> nans[] = {{Format::fp32, 0x7fffffffu}, {Format::fp16, 0x7fffu},
                                                   {Format::bf16, 0x7fffu},     {Format::tf32, 0x7fffe000u},
                                                   {Format::e4m3, 0x7fu},       {Format::e5m2, 0x7fu}};
  for (const auto& [f, nan] : nans) {
    EXPECT_EQ(canonical_nan(f), nan) << name_of(f);
    for (const Mode& m : kModes) {
      EXPECT_EQ(encode(f, std::nan(""), m.rounding, m.satfinite), nan) << name_of(f);
      EXPECT_EQ(encode(f, -std::nan(""), m.rounding, m.satfinite), nan) << name_of(f);
    }
  }
  const std::pair<Format, std::uint32_t> infs[] = {{Format::fp32, 0x7f800000u}, {Format::fp16, 0x7c00u},
                                                   {Format::bf16, 0x7f80u},     {Format::tf32, 0x7f800000u},
                                                   {Format::e5m2, 0x7cu}};
  for (const auto& [f, inf] : infs) {
    EXPECT_EQ(encode(f, HUGE_VAL), inf) << name_of(f);
    EXPECT_EQ(encode(f, HUGE_VAL, Rounding::toward_zero), inf) << name_of(f);  // Inf converts exactly
    EXPECT_TRUE(decode(f, inf).is_inf());
    EXPECT_EQ(to_double(f, inf), HUGE_VAL);
  }
  const std::pair<Format, std::uint32_t> neg_zero[] = {{Format::fp32, 0x80000000u}, {Format::fp16, 0x8000u},
                                                       {Format::bf16, 0x8000u},     {Format::tf32, 0x80000000u},
                                                       {Format::e4m3, 0x80u},       {Format::e5m2, 0x80u}};
  for (const auto& [f, nz] : neg_zero) {
    for (const Mode& m : kModes) EXPECT_EQ(encode(f, -0.0, m.rounding, m.satfinite), nz) << name_of(f);
    EXPECT_TRUE(std::signbit(to_double(f, nz)));
    EXPECT_EQ(to_double(f, nz), 0.0);
    // A negative value below half the smallest subnormal rounds to -0.
    EXPECT_EQ(encode(f, -DBL_TRUE_MIN), nz) << name_of(f);
    EXPECT_EQ(encode(f, -DBL_TRUE_MIN, Rounding::toward_zero), nz) << name_of(f);
  }
}

TEST(FormatsExhaustive, DecodeMatchesMpfr) {
  MpfrValue tmp(32);
  for (Format f : kExhaustive) {
    FailureBudget budget;
    for (std::uint64_t i = 0; i < meaningful_count(f); ++i) check_decode(f, meaningful(f, i), tmp, budget);
    EXPECT_TRUE(budget.ok()) << name_of(f);
  }
}

TEST(FormatsExhaustive, Tf32IgnoresTheLow13Bits) {
  std::mt19937_64 rng(13);
  FailureBudget budget;
  for (std::uint64_t i = 0; i < meaningful_count(Format::tf32); ++i) {
    const std::uint32_t p = meaningful(Format::tf32, i);
    const double v = to_double(Format::tf32, p);
    const Decoded d = decode(Format::tf32, p);
    for (std::uint32_t low : {1u, 0x1000u, 0x1fffu, static_cast<std::uint32_t>(rng() & 0x1fffu)}) {
      const Decoded e = decode(Format::tf32, p | low);
      if ((!same_double(to_double(Format::tf32, p | low), v) || e.kind != d.kind || e.sign != d.sign ||
           e.significand != d.significand || e.exponent != d.exponent) &&
          budget.report())
        ADD_FAILURE() << "tf32 " << hex(p) << " vs " << hex(p | low);
    }
  }
  EXPECT_TRUE(budget.ok());
}

TEST(FormatsSampled, Fp32DecodeMatchesMpfr) {
  MpfrValue tmp(32);
  FailureBudget budget;
  std::mt19937_64 rng(32);
  for (int i = 0; i < (1 << 20); ++i) check_decode(Format::fp32, static_cast<std::uint32_t>(rng()), tmp, budget);
  for (std::uint32_t p : test::special_patterns(Format::fp32)) check_decode(Format::fp32, p, tmp, budget);
  for (std::uint32_t b = 0; b < 4096; ++b) check_decode(Format::fp32, b, tmp, budget);
  EXPECT_TRUE(budget.ok());
}

TEST(FormatsExhaustive, EncodeOfEveryValueRoundTrips) {
  for (Format f : kAll) {
    FailureBudget budget;
    std::mt19937_64 rng(7);
    const std::uint64_t n = f == Format::fp32 ? (1u << 20) : meaningful_count(f);
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint32_t bits = f == Format::fp32 ? static_cast<std::uint32_t>(rng()) : meaningful(f, i);
      const Decoded d = decode(f, bits);
      if (d.is_nan()) continue;
      const double x = to_double(f, bits);
      for (const Mode& m : kModes) {
        const std::uint32_t want = d.is_inf() && m.satfinite ? max_finite_bits(f, d.sign) : bits;
        const std::uint32_t got = encode(f, x, m.rounding, m.satfinite);
        if (got != want && budget.report())
          ADD_FAILURE() << name_of(f) << " " << mode_name(m) << ": " << hex(bits) << " -> " << describe(x) << " -> "
                        << hex(got);
      }
    }
    EXPECT_TRUE(budget.ok()) << name_of(f);
  }
}

// Every point in both rounding modes; satfinite too for the 8/16-bit formats. For the
// 32-bit ones (2^18 tf32 midpoints) satfinite is checked where it can matter — from the
// top binade up, where values overflow — and on every 16th point elsewhere.
TEST(FormatsExhaustive, EncodeMatchesMpfrAtEveryMidpoint) {
  for (Format f : kAll) {
    FailureBudget budget;
    const std::vector<double> pts = probe_points(f);
    const bool wide = spec(f).storage_bits == 32;
    const double top_binade = std::ldexp(1.0, spec(f).emax());
    for (const Mode& m : kModes)
      for (std::size_t i = 0; i < pts.size(); ++i)
        if (!m.satfinite || !wide || i % 16 == 0 || !(std::fabs(pts[i]) < top_binade))
          check_encode(f, pts[i], m, budget);
    EXPECT_TRUE(budget.ok()) << name_of(f) << " (" << pts.size() << " points)";
  }
}

TEST(FormatsSampled, EncodeMatchesMpfrOnRandomDoubles) {
  for (Format f : kAll) {
    FailureBudget budget;
    const std::vector<double> pts = random_points(f, 1 << 14);
    for (const Mode& m : kModes)
      for (double x : pts) check_encode(f, x, m, budget);
    EXPECT_TRUE(budget.ok()) << name_of(f);
  }
}
