// Exact reference on MPFR/GMP: its own layout table and decode, a GMP fixed-point sum,
// MPFR for rounding. Shares nothing with format.cpp or datapath.cpp on purpose.
#include "tcnum/reference/mpfr_reference.hpp"

#include <gmp.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace tcnum {
namespace {

// The formats' layouts, restated from their definitions (IEEE 754 binary32/16, bfloat16,
// NVIDIA TF32 in the top 19 bits of a register, OCP FP8 E4M3 "fn" and E5M2, OCP MX v1.0 FP6
// E2M3/E3M2, FP4 E2M1 and the E8M0 scale, NVFP4's unsigned E4M3 scale).
struct Layout {
  // all-ones exponent = Inf/NaN; only S.1..1.1..1 NaN; none; fnuz: only 1.0..0.0..0 (the -0 pattern) NaN
  enum Specials { ieee, nan_all_ones, none, fnuz };
  int storage_bits;
  int shift;      // position of the fields' bit 0 in the register
  int exp_bits;
  int frac_bits;
  int bias;
  Specials specials;
  bool is_signed = true;
  bool has_zero = true;  // E8M0: field 0 is 2^-127
  int emin() const { return has_zero ? 1 - bias : -bias; }
  // Largest biased exponent of a finite value.
  int max_field() const {
    return specials == ieee || (specials == nan_all_ones && frac_bits == 0) ? (1 << exp_bits) - 2
                                                                             : (1 << exp_bits) - 1;
  }
  int emax() const { return max_field() - bias; }
  // Largest fraction field at max_field(): e4m3's top binade ends one below its NaN.
  std::uint32_t max_frac() const {
    const std::uint32_t all = (1u << frac_bits) - 1u;
    return specials == nan_all_ones && frac_bits > 0 ? all - 1u : all;  // fnuz: all
  }
};

Layout layout(Format f) {
  switch (f) {
    case Format::fp32: return {32, 0, 8, 23, 127, Layout::ieee};
    case Format::fp16: return {16, 0, 5, 10, 15, Layout::ieee};
    case Format::bf16: return {16, 0, 8, 7, 127, Layout::ieee};
    case Format::tf32: return {32, 13, 8, 10, 127, Layout::ieee};
    case Format::e4m3: return {8, 0, 4, 3, 7, Layout::nan_all_ones};
    case Format::e5m2: return {8, 0, 5, 2, 15, Layout::ieee};
    case Format::e2m1: return {4, 0, 2, 1, 1, Layout::none};
    case Format::e2m3: return {6, 0, 2, 3, 1, Layout::none};
    case Format::e3m2: return {6, 0, 3, 2, 3, Layout::none};
    case Format::ue8m0: return {8, 0, 8, 0, 127, Layout::nan_all_ones, false, false};
    case Format::ue4m3: return {8, 0, 4, 3, 7, Layout::nan_all_ones, false};
    case Format::s8:  // integer MMA is exact: integer_mma.hpp, no reference rounding
    case Format::u8:
    case Format::s4:
    case Format::u4:
    case Format::s32: break;
    case Format::e4m3fnuz: return {8, 0, 4, 3, 8, Layout::fnuz};
    case Format::e5m2fnuz: return {8, 0, 5, 2, 16, Layout::fnuz};
  }
  throw std::invalid_argument("mpfr_reference: " + std::string(name_of(f)) + " is not a floating-point format");
}

std::uint32_t pack(const Layout& l, bool sign, std::uint32_t biased, std::uint32_t frac) {
  sign = sign && !(l.specials == Layout::fnuz && biased == 0 && frac == 0);  // FNUZ has no -0
  const std::uint32_t r = (static_cast<std::uint32_t>(sign && l.is_signed) << (l.exp_bits + l.frac_bits)) |
                          (biased << l.frac_bits) | frac;
  return r << l.shift;
}

std::uint32_t all_ones(int n) { return (1u << n) - 1u; }

std::uint32_t max_bits(const Layout& l, bool sign) {
  return pack(l, sign, static_cast<std::uint32_t>(l.max_field()), l.max_frac());
}
// NaN: the all-ones pattern; formats without NaN convert it to +max (CUDA's cvt to FP4/FP6).
std::uint32_t nan_bits(const Layout& l) {
  if (l.specials == Layout::fnuz) return 1u << (l.exp_bits + l.frac_bits);  // the -0 pattern
  return l.specials == Layout::none ? max_bits(l, false) : pack(l, false, all_ones(l.exp_bits), all_ones(l.frac_bits));
}
// What "±Inf" becomes in f: Inf, the NaN pattern with the sign kept (e4m3), or ±max (FP4/FP6).
std::uint32_t inf_bits(const Layout& l, bool sign) {
  if (l.specials == Layout::none) return max_bits(l, sign);
  if (l.specials == Layout::fnuz) return nan_bits(l);  // no Inf
  return l.specials == Layout::ieee ? pack(l, sign, all_ones(l.exp_bits), 0)
                                    : pack(l, sign, all_ones(l.exp_bits), all_ones(l.frac_bits));
}

struct RefValue {
  enum Kind { zero, finite, inf, nan } kind = zero;
  bool sign = false;
  std::uint64_t sig = 0;  // finite: value = ±sig * 2^exp
  long exp = 0;
};

RefValue ref_decode(Format f, std::uint32_t bits) {
  const Layout l = layout(f);
  const std::uint32_t storage = l.storage_bits == 32 ? bits : bits & all_ones(l.storage_bits);
  const std::uint32_t r = storage >> l.shift;
  const std::uint32_t frac = r & all_ones(l.frac_bits);
  const std::uint32_t e = (r >> l.frac_bits) & all_ones(l.exp_bits);
  RefValue v;
  v.sign = l.is_signed && ((r >> (l.exp_bits + l.frac_bits)) & 1u);
  if (l.specials == Layout::fnuz && v.sign && e == 0 && frac == 0) {
    v.kind = RefValue::nan;
    return v;
  }
  if (e == all_ones(l.exp_bits) && l.specials != Layout::none && l.specials != Layout::fnuz) {
    if (l.specials == Layout::ieee) {
      v.kind = frac == 0 ? RefValue::inf : RefValue::nan;
      return v;
    }
    if (frac == all_ones(l.frac_bits)) {
      v.kind = RefValue::nan;
      return v;
    }
  }
  if (e == 0 && frac == 0 && l.has_zero) return v;  // ±0
  v.kind = RefValue::finite;
  if (e == 0 && l.has_zero) {  // subnormal: frac * 2^(emin - frac_bits)
    v.sig = frac;
    v.exp = l.emin() - l.frac_bits;
  } else {
    v.sig = frac | (1u << l.frac_bits);
    v.exp = static_cast<long>(e) - l.bias - l.frac_bits;
  }
  return v;
}

// Restores MPFR's exponent range on scope exit.
struct RangeGuard {
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  ~RangeGuard() {
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
  }
};

struct Mpz {
  mpz_t v;
  Mpz() { mpz_init(v); }
  ~Mpz() { mpz_clear(v); }
  Mpz(const Mpz&) = delete;
  Mpz& operator=(const Mpz&) = delete;
};

// Packs a finite, nonzero value already rounded into l's grid and range (consumes y).
std::uint32_t pack_rounded(const Layout& l, mpfr_ptr y) {
  const bool sign = mpfr_signbit(y) != 0;
  const long lead = static_cast<long>(mpfr_get_exp(y)) - 1;  // y = 0.1xxx * 2^E: leading bit weight 2^(E-1)
  const long quantum = std::max<long>(lead, l.emin()) - l.frac_bits;
  mpfr_abs(y, y, MPFR_RNDN);
  mpfr_mul_2si(y, y, -quantum, MPFR_RNDN);  // exact: an integer < 2^(frac_bits+1)
  if (!mpfr_integer_p(y)) throw std::logic_error("mpfr_reference: rounded value off the grid");
  const auto sig = static_cast<std::uint32_t>(mpfr_get_ui(y, MPFR_RNDN));
  if (sig >> l.frac_bits == 0) return pack(l, sign, 0, sig);  // subnormal
  return pack(l, sign, static_cast<std::uint32_t>(lead + l.bias), sig & all_ones(l.frac_bits));
}

struct Inputs {
  bool nan = false, pos_inf = false, neg_inf = false;
  bool any_finite_nonzero = false;
  bool all_zeros_negative = true;
  std::vector<RefValue> terms;  // finite nonzero addends
};

// x * y as a RefValue (NaN, Inf, zero, or exact finite).
RefValue ref_product(const RefValue& x, const RefValue& y) {
  RefValue p;
  p.sign = x.sign != y.sign;
  if (x.kind == RefValue::nan || y.kind == RefValue::nan) {
    p.kind = RefValue::nan;
  } else if (x.kind == RefValue::inf || y.kind == RefValue::inf) {
    p.kind = (x.kind == RefValue::zero || y.kind == RefValue::zero) ? RefValue::nan : RefValue::inf;
  } else if (x.kind == RefValue::zero || y.kind == RefValue::zero) {
    p.kind = RefValue::zero;
  } else {
    p.kind = RefValue::finite;
    p.sig = x.sig * y.sig;
    p.exp = x.exp + y.exp;
  }
  return p;
}

void collect(Inputs& in, Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
             std::span<const std::uint32_t> b, std::uint32_t c, const ScaleVectors* scales = nullptr) {
  if (a.size() != b.size()) throw std::invalid_argument("exact_dot: A and B differ in length");
  if (scales && (scales->block <= 0 || scales->a.size() * scales->block != a.size() ||
                 scales->b.size() * scales->block != a.size()))
    throw std::invalid_argument("exact_dot: scale vectors do not cover K");
  auto add = [&](const RefValue& v) {
    switch (v.kind) {
      case RefValue::nan: in.nan = true; break;
      case RefValue::inf: (v.sign ? in.neg_inf : in.pos_inf) = true; break;
      case RefValue::zero: in.all_zeros_negative = in.all_zeros_negative && v.sign; break;
      case RefValue::finite:
        in.any_finite_nonzero = true;
        in.all_zeros_negative = false;
        in.terms.push_back(v);
        break;
    }
  };
  add(ref_decode(c_fmt, c));
  for (std::size_t k = 0; k < a.size(); ++k) {
    RefValue p = ref_product(ref_decode(a_fmt, a[k]), ref_decode(b_fmt, b[k]));  // sig <= 48 bits
    if (scales) {  // scales are at most 4 significant bits each
      const std::size_t s = k / static_cast<std::size_t>(scales->block);
      p = ref_product(p, ref_product(ref_decode(scales->format, scales->a[s]), ref_decode(scales->format, scales->b[s])));
    }
    add(p);
  }
}

}  // namespace

void mpfr_set_bits(mpfr_ptr out, Format f, std::uint32_t bits) {
  const RefValue v = ref_decode(f, bits);
  mpfr_set_prec(out, 32);
  switch (v.kind) {
    case RefValue::nan: mpfr_set_nan(out); return;
    case RefValue::inf: mpfr_set_inf(out, v.sign ? -1 : 1); return;
    case RefValue::zero: mpfr_set_zero(out, v.sign ? -1 : 1); return;
    case RefValue::finite:
      mpfr_set_ui_2exp(out, static_cast<unsigned long>(v.sig), v.exp, MPFR_RNDN);  // exact
      if (v.sign) mpfr_neg(out, out, MPFR_RNDN);
      return;
  }
}

std::uint32_t mpfr_round_bits(Format f, mpfr_srcptr x, Rounding mode, bool satfinite) {
  const Layout l = layout(f);
  if (mpfr_nan_p(x)) return nan_bits(l);
  const bool sign = mpfr_signbit(x) != 0;
  if (mpfr_inf_p(x)) return satfinite ? max_bits(l, sign) : inf_bits(l, sign);
  if (mpfr_zero_p(x)) return pack(l, sign, 0, 0);  // E8M0 has no zero: its smallest value

  const mpfr_rnd_t rnd = mode == Rounding::nearest_even ? MPFR_RNDN : MPFR_RNDZ;
  // MPFR's convention: y = 0.1b..b * 2^E with precision p = frac_bits + 1. The format's
  // smallest subnormal 2^(emin - frac_bits) has E = emin - frac_bits + 1, its largest
  // binade E = emax + 1 (e4m3: the binade of 448 also holds 480, which the check below
  // treats as overflow).
  thread_local MpfrValue y(2);
  mpfr_set_prec(y, l.frac_bits + 1);
  int t = mpfr_set(y, x, rnd);  // unbounded exponent, default range
  {
    RangeGuard guard;
    mpfr_set_emin(l.emin() - l.frac_bits + 1);
    mpfr_set_emax(l.emax() + 1);
    t = mpfr_check_range(y, t, rnd);
    t = mpfr_subnormalize(y, t, rnd);
  }
  if (mpfr_zero_p(y)) return pack(l, sign, 0, 0);
  bool overflow = mpfr_inf_p(y);
  {  // the largest finite value is max_frac's significand in the top binade (e4m3: 448)
    const double max = std::ldexp(static_cast<double>(l.max_frac() | (1u << l.frac_bits)), l.emax() - l.frac_bits);
    overflow = overflow || std::fabs(mpfr_get_d(y, MPFR_RNDN)) > max;  // y is exact in double
  }
  if (overflow)
    return (satfinite || mode == Rounding::toward_zero) ? max_bits(l, sign) : inf_bits(l, sign);
  return pack_rounded(l, y);
}

std::uint32_t mpfr_round_bits(Format f, double x, Rounding mode, bool satfinite) {
  thread_local MpfrValue v(53);
  mpfr_set_d(v, x, MPFR_RNDN);  // exact
  return mpfr_round_bits(f, v, mode, satfinite);
}

namespace {
void exact_sum(mpfr_ptr out, const Inputs& in);
}

void exact_dot(mpfr_ptr out, Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
               std::span<const std::uint32_t> b, std::uint32_t c) {
  Inputs in;
  collect(in, a_fmt, b_fmt, c_fmt, a, b, c);
  exact_sum(out, in);
}

void exact_dot(mpfr_ptr out, Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
               std::span<const std::uint32_t> b, std::uint32_t c, const ScaleVectors& scales) {
  Inputs in;
  collect(in, a_fmt, b_fmt, c_fmt, a, b, c, &scales);
  exact_sum(out, in);
}

std::uint32_t exact_dot_rounded(Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
                                std::span<const std::uint32_t> b, std::uint32_t c, const ScaleVectors& scales,
                                Format out, Rounding mode, bool satfinite) {
  MpfrValue v;
  exact_dot(v, a_fmt, b_fmt, c_fmt, a, b, c, scales);
  return mpfr_round_bits(out, v, mode, satfinite);
}

namespace {
// The exact sum of collected inputs (IEEE specials, +0 for an exact cancellation).
void exact_sum(mpfr_ptr out, const Inputs& in) {
  if (in.nan || (in.pos_inf && in.neg_inf)) {
    mpfr_set_prec(out, 32);
    mpfr_set_nan(out);
    return;
  }
  if (in.pos_inf || in.neg_inf) {
    mpfr_set_prec(out, 32);
    mpfr_set_inf(out, in.neg_inf ? -1 : 1);
    return;
  }
  if (in.terms.empty()) {
    mpfr_set_prec(out, 32);
    mpfr_set_zero(out, in.all_zeros_negative ? -1 : 1);
    return;
  }
  long lo = in.terms.front().exp;
  for (const RefValue& v : in.terms) lo = std::min(lo, v.exp);
  Mpz sum, term;
  for (const RefValue& v : in.terms) {
    mpz_set_ui(term.v, static_cast<unsigned long>(v.sig));
    mpz_mul_2exp(term.v, term.v, static_cast<mp_bitcnt_t>(v.exp - lo));
    if (v.sign)
      mpz_sub(sum.v, sum.v, term.v);
    else
      mpz_add(sum.v, sum.v, term.v);
  }
  if (mpz_sgn(sum.v) == 0) {  // exact cancellation of nonzero terms: +0
    mpfr_set_prec(out, 32);
    mpfr_set_zero(out, 1);
    return;
  }
  const auto bits = static_cast<mpfr_prec_t>(mpz_sizeinbase(sum.v, 2));
  mpfr_set_prec(out, std::max<mpfr_prec_t>(bits, 2));
  if (mpfr_set_z_2exp(out, sum.v, lo, MPFR_RNDN) != 0) throw std::logic_error("exact_dot: inexact");
}
}  // namespace

std::uint32_t exact_dot_rounded(Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
                                std::span<const std::uint32_t> b, std::uint32_t c, Format out, Rounding mode,
                                bool satfinite) {
  MpfrValue v;
  exact_dot(v, a_fmt, b_fmt, c_fmt, a, b, c);
  return mpfr_round_bits(out, v, mode, satfinite);
}

double exact_dot_double(Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
                        std::span<const std::uint32_t> b, std::uint32_t c) {
  MpfrValue v;
  exact_dot(v, a_fmt, b_fmt, c_fmt, a, b, c);
  return mpfr_to_double(v);
}

std::string exact_dot_decimal(Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
                              std::span<const std::uint32_t> b, std::uint32_t c, int significant_digits) {
  MpfrValue v;
  exact_dot(v, a_fmt, b_fmt, c_fmt, a, b, c);
  return mpfr_to_decimal(v, significant_digits);
}

std::string mpfr_to_decimal(mpfr_srcptr x, int significant_digits) {
  if (mpfr_nan_p(x)) return "nan";
  const bool neg = mpfr_signbit(x) != 0;
  if (mpfr_inf_p(x)) return neg ? "-inf" : "inf";
  if (mpfr_zero_p(x)) return neg ? "-0" : "0";
  if (significant_digits > 0) {
    char* s = nullptr;
    if (mpfr_asprintf(&s, "%.*Re", significant_digits - 1, x) < 0 || !s)
      throw std::runtime_error("mpfr_to_decimal: mpfr_asprintf failed");
    std::string r(s);
    mpfr_free_str(s);
    return r;
  }
  // Exact: x = z * 2^e; for e < 0, x = z * 5^-e / 10^-e.
  Mpz z;
  const mpfr_exp_t e = mpfr_get_z_2exp(z.v, x);
  mpz_abs(z.v, z.v);
  long point = 0;  // decimal digits after the point
  if (e >= 0) {
    mpz_mul_2exp(z.v, z.v, static_cast<mp_bitcnt_t>(e));
  } else {
    Mpz five;
    mpz_ui_pow_ui(five.v, 5, static_cast<unsigned long>(-e));
    mpz_mul(z.v, z.v, five.v);
    point = -e;
  }
  std::string digits(mpz_sizeinbase(z.v, 10) + 2, '\0');
  mpz_get_str(digits.data(), 10, z.v);
  digits.resize(std::char_traits<char>::length(digits.c_str()));
  if (point > 0) {
    const auto p = static_cast<std::size_t>(point);
    if (digits.size() <= p) digits = std::string(p + 1 - digits.size(), '0') + digits;
    std::string frac = digits.substr(digits.size() - p);
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    digits = digits.substr(0, digits.size() - p) + (frac.empty() ? "" : "." + frac);
  }
  return neg ? "-" + digits : digits;
}

double mpfr_to_double(mpfr_srcptr x) { return mpfr_get_d(x, MPFR_RNDN); }

double relative_error(double approx, mpfr_srcptr exact) {
  MpfrValue a(53);
  mpfr_set_d(a, approx, MPFR_RNDN);
  const bool a_nan = mpfr_nan_p(a), e_nan = mpfr_nan_p(exact);
  if (a_nan || e_nan) return a_nan && e_nan ? 0.0 : HUGE_VAL;
  if (mpfr_inf_p(a) || mpfr_inf_p(exact)) return mpfr_equal_p(a, exact) ? 0.0 : HUGE_VAL;
  if (mpfr_zero_p(exact)) return mpfr_zero_p(a) ? 0.0 : HUGE_VAL;
  MpfrValue d(128);
  mpfr_sub(d, a, exact, MPFR_RNDN);
  mpfr_div(d, d, exact, MPFR_RNDN);
  mpfr_abs(d, d, MPFR_RNDN);
  return mpfr_get_d(d, MPFR_RNDN);
}

double relative_error(Format f, std::uint32_t bits, mpfr_srcptr exact) {
  MpfrValue a(32);
  mpfr_set_bits(a, f, bits);
  return relative_error(mpfr_get_d(a, MPFR_RNDN), exact);  // exact: every format fits a double
}

double ulp_error(Format f, std::uint32_t bits, mpfr_srcptr exact) {
  const Layout l = layout(f);
  MpfrValue a(32);
  mpfr_set_bits(a, f, bits);
  const bool a_nan = mpfr_nan_p(a), e_nan = mpfr_nan_p(exact);
  if (a_nan || e_nan) return a_nan && e_nan ? 0.0 : HUGE_VAL;
  if (mpfr_inf_p(a) || mpfr_inf_p(exact)) return mpfr_equal_p(a, exact) ? 0.0 : HUGE_VAL;
  long lead = l.emin();
  if (!mpfr_zero_p(exact)) lead = std::max<long>(static_cast<long>(mpfr_get_exp(exact)) - 1, l.emin());
  MpfrValue d(128);
  mpfr_sub(d, a, exact, MPFR_RNDN);
  mpfr_abs(d, d, MPFR_RNDN);
  mpfr_mul_2si(d, d, -(lead - l.frac_bits), MPFR_RNDN);
  return mpfr_get_d(d, MPFR_RNDN);
}

}  // namespace tcnum
