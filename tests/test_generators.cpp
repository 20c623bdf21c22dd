// Generators: reproducibility, validity of every pattern, and the property each
// distribution promises in include/tcnum/reference/frozen_corpus_generators.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcnum/core/format.hpp"
#include "tcnum/reference/frozen_corpus_generators.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/reference/mpfr_reference.hpp"
#include "test_support.hpp"

using namespace tcnum;
using namespace tcnum::reference::frozen_v1;  // the frozen corpus generators' own tests

namespace {

// NVIDIA's type combinations: these laws are of the reference generators that record NVIDIA
// corpora (AMD's MFMAs draw from the fuzz generators: tests/test_amd_mfma.cpp, and K = 1 forms
// cannot hold cancelling pairs).
const std::vector<Instruction>& combos() {
  static const std::vector<Instruction> v = [] {
    std::vector<Instruction> out;
    for (const Instruction& in : test::distinct_type_combinations())
      if (in.family != Family::mfma) out.push_back(in);
    return out;
  }();
  return v;
}

bool same(const std::vector<Case>& x, const std::vector<Case>& y) {
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i].a != y[i].a || x[i].b != y[i].b || x[i].c != y[i].c) return false;
  return true;
}

bool subnormal(Format f, std::uint32_t bits) {
  const Decoded d = decode(f, bits);
  return d.kind == Decoded::Kind::finite && d.significand < (std::uint64_t{1} << spec(f).frac_bits);
}

// log2 of |value| of a finite nonzero pattern (leading bit's exponent).
int lead_exp(Format f, std::uint32_t bits) {
  MpfrValue v(32);
  mpfr_set_bits(v, f, bits);
  return static_cast<int>(mpfr_get_exp(v)) - 1;
}

// Leading-bit exponent of the exact product (nonzero factors).
int product_exp(Format fa, std::uint32_t a, Format fb, std::uint32_t b) {
  MpfrValue x(64), y(32);
  mpfr_set_bits(x, fa, a);
  mpfr_set_bits(y, fb, b);
  mpfr_mul(x, x, y, MPFR_RNDN);
  return static_cast<int>(mpfr_get_exp(x)) - 1;
}

// Every pattern uses only its format's storage bits; tf32's low 13 bits are zero unless allowed.
void expect_valid(Format f, std::uint32_t bits, bool tf32_low_allowed, bool specials_allowed, const std::string& where) {
  EXPECT_EQ(bits & ~storage_mask(f), 0u) << where;
  if (f == Format::tf32 && !tf32_low_allowed) {
    EXPECT_EQ(bits & 0x1fffu, 0u) << where;
  }
  if (!specials_allowed) {
    const Decoded d = decode(f, bits);
    EXPECT_FALSE(d.is_nan() || d.is_inf()) << where << " " << std::hex << bits;
  }
}

}  // namespace

TEST(Generators, NamesAndUnknownDistribution) {
  const std::vector<std::string> names = distribution_names();
  const std::vector<std::string> want = {"normal", "randbits", "spread", "cancel", "special", "subnorm"};
  EXPECT_EQ(names, want);
  const Instruction in = parse_instruction("mma.m16n8k16.f32.f16.f16.f32");
  try {
    generate(in, "gaussian", 1, 1);
    ADD_FAILURE() << "no exception for an unknown distribution";
  } catch (const std::invalid_argument& e) {
    for (const std::string& n : names) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
  }
  EXPECT_THROW(distribution_description("gaussian"), std::invalid_argument);
  for (const std::string& n : names) EXPECT_FALSE(distribution_description(n).empty());
}

TEST(Generators, SameSeedSameOutputAndPrefixStable) {
  for (const Instruction& in : combos())
    for (const std::string& dist : distribution_names()) {
      const auto x = generate(in, dist, 12, 99);
      const auto y = generate(in, dist, 12, 99);
      EXPECT_TRUE(same(x, y)) << in.name << " " << dist;
      ASSERT_EQ(x.size(), 12u);
      for (const Case& g : x) {
        EXPECT_EQ(g.a.size(), static_cast<std::size_t>(in.k));
        EXPECT_EQ(g.b.size(), static_cast<std::size_t>(in.k));
      }
      auto prefix = generate(in, dist, 5, 99);
      EXPECT_TRUE(same(prefix, std::vector<Case>(x.begin(), x.begin() + 5))) << in.name << " " << dist;
      EXPECT_FALSE(same(x, generate(in, dist, 12, 100))) << in.name << " " << dist;
      EXPECT_TRUE(generate(in, dist, 0, 99).empty());
    }
}

TEST(Generators, DependOnlyOnTypesAndK) {
  // Same types and K, different shapes and families.
  const Instruction x = parse_instruction("wgmma.m64n8k16.f32.f16.f16");
  const Instruction y = parse_instruction("wgmma.m64n256k16.f32.f16.f16");
  const Instruction z = parse_instruction("tcgen05.mma.m128n64k16.f32.f16.f16");
  for (const std::string& dist : distribution_names()) {
    EXPECT_TRUE(same(generate(x, dist, 8, 5), generate(y, dist, 8, 5))) << dist;
    EXPECT_TRUE(same(generate(x, dist, 8, 5), generate(z, dist, 8, 5))) << dist;
  }
}

TEST(Generators, EveryPatternIsValidForItsFormat) {
  for (const Instruction& in : combos())
    for (const std::string& dist : distribution_names()) {
      const bool specials = dist == "special", low = dist == "randbits";
      for (const Case& g : generate(in, dist, 50, 3)) {
        const std::string where = in.name + " " + dist;
        for (auto v : g.a) expect_valid(in.a_type, v, low, specials, where + " a");
        for (auto v : g.b) expect_valid(in.b_type, v, low, specials, where + " b");
        expect_valid(in.c_type, g.c, low, specials, where + " c");
      }
    }
}

TEST(Generators, NormalLooksLikeStandardNormal) {
  // fp16 and C fp32: mean ~ 0, variance ~ 1, |x| < 7, both signs; fixed seed, so not flaky.
  const Instruction in = parse_instruction("mma.m16n8k16.f32.f16.f16.f32");
  double sum = 0, sum2 = 0;
  int n = 0, neg = 0, over1 = 0;
  for (const Case& g : generate(in, "normal", 500, 11)) {
    std::vector<double> xs;
    for (auto v : g.a) xs.push_back(to_double(Format::fp16, v));
    for (auto v : g.b) xs.push_back(to_double(Format::fp16, v));
    xs.push_back(to_double(Format::fp32, g.c));
    for (double x : xs) {
      sum += x, sum2 += x * x, ++n;
      neg += x < 0;
      over1 += std::fabs(x) > 1;
      EXPECT_LT(std::fabs(x), 7.0);
    }
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(var, 1.0, 0.05);
  EXPECT_NEAR(static_cast<double>(neg) / n, 0.5, 0.03);
  EXPECT_NEAR(static_cast<double>(over1) / n, 0.3173, 0.03);  // P(|N(0,1)| > 1)
  // Tails (the ziggurat's wedges and base strip): P(|x| > 2) = 0.0455, P(|x| > 3) = 0.0027.
  const Instruction wide = parse_instruction("mma.m8n8k4.f32.f16.f16.f32");
  int over2 = 0, over3 = 0, m = 0;
  for (const Case& g : generate(wide, "normal", 20000, 13)) {
    const double x = to_double(Format::fp32, g.c);
    over2 += std::fabs(x) > 2;
    over3 += std::fabs(x) > 3;
    ++m;
  }
  EXPECT_NEAR(static_cast<double>(over2) / m, 0.0455, 0.006);
  EXPECT_NEAR(static_cast<double>(over3) / m, 0.0027, 0.0015);
  // The values are roundings to the format: fp32 C carries more than fp16's bits.
  std::set<std::uint32_t> low_bits;
  for (const Case& g : generate(in, "normal", 50, 12)) low_bits.insert(g.c & 0x1fffu);
  EXPECT_GT(low_bits.size(), 40u);
}

TEST(Generators, RandbitsCoversEveryExponentSubnormalsAndTf32LowBits) {
  for (const Instruction& in : combos()) {
    std::set<std::uint32_t> exps;
    int sub = 0, tf32_low = 0, neg = 0;
    const auto cases = generate(in, "randbits", 400, 21);
    for (const Case& g : cases)
      for (auto v : g.a) {
        const FormatSpec& s = spec(in.a_type);
        const std::uint32_t r = v >> (in.a_type == Format::tf32 ? 13 : 0);
        exps.insert((r >> s.frac_bits) & test::ones(s.exp_bits));
        sub += subnormal(in.a_type, v);
        neg += (r >> (s.exp_bits + s.frac_bits)) & 1;
        tf32_low += (v & 0x1fffu) != 0;
      }
    const FormatSpec& s = spec(in.a_type);
    const std::size_t finite_exps = s.has_inf ? test::ones(s.exp_bits) : test::ones(s.exp_bits) + 1;
    const std::size_t n = cases.size() * in.k;
    if (n >= 40u * finite_exps) {
      EXPECT_EQ(exps.size(), finite_exps) << in.name;  // fields 0 .. all-ones-1
    }
    if (s.exp_bits <= 5) {
      EXPECT_GT(sub, 0) << in.name;
    }
    EXPECT_NEAR(static_cast<double>(neg) / n, 0.5, 0.1) << in.name;
    if (in.a_type == Format::tf32) {
      EXPECT_GT(tf32_low, static_cast<int>(n / 2)) << in.name;
    }
  }
}

TEST(Generators, SpreadPutsOneLeadTermAboveTheRest) {
  for (const Instruction& in : combos()) {
    int wide = 0, total = 0, c_lead = 0;
    for (const Case& g : generate(in, "spread", 100, 31)) {
      std::vector<int> e;  // exponents of the nonzero terms; C last
      for (int k = 0; k < in.k; ++k)
        if (!decode(in.a_type, g.a[k]).is_zero() && !decode(in.b_type, g.b[k]).is_zero())
          e.push_back(product_exp(in.a_type, g.a[k], in.b_type, g.b[k]));
      ASSERT_EQ(e.size(), static_cast<std::size_t>(in.k)) << in.name << ": zero factor";
      ASSERT_FALSE(decode(in.c_type, g.c).is_zero()) << in.name;
      e.push_back(lead_exp(in.c_type, g.c));
      std::vector<int> sorted = e;
      std::sort(sorted.rbegin(), sorted.rend());
      // One term leads; every other one is at least 2^3 below it (2^-5 apart, less one
      // for a product's significand carry and one for rounding into the format).
      EXPECT_GE(sorted[0] - sorted[1], 3) << in.name;
      wide += sorted.front() - sorted.back() >= 20;
      c_lead += e.back() == sorted[0];
      ++total;
    }
    EXPECT_GT(wide, total / 2) << in.name;
    EXPECT_GT(c_lead, total / 10) << in.name;  // C leads with probability 1/4
    EXPECT_LT(c_lead, total / 2) << in.name;
  }
}

TEST(Generators, CancelNearlyCancels) {
  for (const Instruction& in : combos()) {
    const int prec = std::min(spec(in.a_type).frac_bits, spec(in.b_type).frac_bits);
    int small = 0, total = 0;
    for (const Case& g : generate(in, "cancel", 100, 41)) {
      // |c + sum a b| against sum |a b|, both exact.
      MpfrValue r, mag;
      exact_dot(r, in.a_type, in.b_type, in.c_type, g.a, g.b, g.c);
      std::vector<std::uint32_t> abs_a = g.a, abs_b = g.b;
      const std::uint32_t sa = 1u << (spec(in.a_type).exp_bits + spec(in.a_type).frac_bits + test::field_shift(in.a_type));
      const std::uint32_t sb = 1u << (spec(in.b_type).exp_bits + spec(in.b_type).frac_bits + test::field_shift(in.b_type));
      for (auto& v : abs_a) v &= ~sa;
      for (auto& v : abs_b) v &= ~sb;
      exact_dot(mag, in.a_type, in.b_type, in.c_type, abs_a, abs_b, zero_bits(in.c_type, false));
      const double ratio = std::fabs(mpfr_to_double(r)) / mpfr_to_double(mag);
      small += ratio <= std::ldexp(1.0, 3 - prec);  // a few ulps of the inputs
      ++total;
      // Products come in pairs of equal magnitude and opposite sign, up to the nudges.
      int negative = 0;
      for (int k = 0; k < in.k; ++k) {
        const bool na = decode(in.a_type, g.a[k]).sign, nb = decode(in.b_type, g.b[k]).sign;
        negative += na != nb;
      }
      EXPECT_EQ(negative * 2, in.k) << in.name;
    }
    EXPECT_GE(small, total * 9 / 10) << in.name;
  }
}

TEST(Generators, SpecialContainsEveryKindOfSpecial) {
  for (const Instruction& in : combos()) {
    const std::vector<Case> cases = generate(in, "special", 1600, 51);
    for (int side = 0; side < 3; ++side) {  // A, B (first 400 cases), C (all)
      const Format f = side == 0 ? in.a_type : side == 1 ? in.b_type : in.c_type;
      bool nan = false, pinf = false, ninf = false, pz = false, nz = false, max = false, min_sub = false,
           min_norm = false;
      int finite = 0, total = 0;
      const FormatSpec& s = spec(f);
      const std::uint32_t max_pattern =  // largest finite: below Inf, or e4m3's S.1111.110
          s.has_inf ? test::pattern(f, false, test::ones(s.exp_bits) - 1, test::ones(s.frac_bits))
                    : test::pattern(f, false, test::ones(s.exp_bits), test::ones(s.frac_bits) - 1);
      for (std::size_t i = 0; i < (side == 2 ? cases.size() : 400u); ++i) {
        const Case& g = cases[i];
        std::vector<std::uint32_t> vs = side == 0 ? g.a : side == 1 ? g.b : std::vector<std::uint32_t>{g.c};
        for (std::uint32_t v : vs) {
          const Decoded d = decode(f, v);
          nan |= d.is_nan();
          pinf |= d.is_inf() && !d.sign;
          ninf |= d.is_inf() && d.sign;
          pz |= d.is_zero() && !d.sign;
          nz |= d.is_zero() && d.sign;
          max |= (v & ~(1u << (spec(f).storage_bits - 1))) == max_pattern;
          min_sub |= (v & ~(1u << (spec(f).storage_bits - 1))) == (1u << test::field_shift(f));
          min_norm |= (v & ~(1u << (spec(f).storage_bits - 1))) == test::pattern(f, false, 1, 0);
          finite += d.kind == Decoded::Kind::finite;
          ++total;
        }
      }
      const std::string where = in.name + " side " + std::to_string(side);
      EXPECT_TRUE(nan && pz && nz && max && min_sub && min_norm) << where;
      if (spec(f).has_inf) {
        EXPECT_TRUE(pinf && ninf) << where;
      }
      EXPECT_GT(finite, total * 3 / 4) << where;  // mostly normal values
    }
  }
}

TEST(Generators, SubnormHasSubnormalsTinyCAndProductsNearTheBottom) {
  for (const Instruction& in : combos()) {
    int sub = 0, elems = 0, near_bottom = 0, products = 0;
    const FormatSpec &sc = spec(in.c_type), &sd = spec(in.d_type);
    for (const Case& g : generate(in, "subnorm", 100, 61)) {
      for (int k = 0; k < in.k; ++k) {
        sub += subnormal(in.a_type, g.a[k]) + subnormal(in.b_type, g.b[k]);
        elems += 2;
        ASSERT_FALSE(decode(in.a_type, g.a[k]).is_zero() || decode(in.b_type, g.b[k]).is_zero()) << in.name;
        near_bottom += product_exp(in.a_type, g.a[k], in.b_type, g.b[k]) <= sd.emin() + 3;
        ++products;
      }
      if (!decode(in.c_type, g.c).is_zero()) {
        EXPECT_LT(lead_exp(in.c_type, g.c), sc.emin() + 4) << in.name;
      }
    }
    EXPECT_GT(sub, elems / 5) << in.name;
    // Where the inputs can reach D's bottom at all, a good share of products lands there.
    const int lowest = spec(in.a_type).emin() - spec(in.a_type).frac_bits + spec(in.b_type).emin() -
                       spec(in.b_type).frac_bits;
    if (lowest <= sd.emin()) {
      EXPECT_GT(near_bottom, products / 4) << in.name;
    }
  }
}
