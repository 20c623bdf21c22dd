// Exact reference arithmetic on MPFR/GMP, written independently of the emulator.
//
// Everything here is a second, deliberately simple implementation of what the
// emulator does cleverly: its own table of format layouts, its own decode, the
// exact value of a dot product as a GMP fixed-point sum, and correct rounding done
// by MPFR (mpfr_set / mpfr_check_range / mpfr_subnormalize under the format's
// emin/emax). Tests compare the emulator against it; error studies use it as truth.
//
// Semantics (IEEE 754-like, as NVIDIA's conversions and the "exact" model):
//  * Values: the exact real c + sum_k a_k*b_k, no intermediate rounding at all.
//  * NaN: any NaN operand, Inf*0, or +Inf and -Inf among the addends -> NaN.
//  * An exact zero sum is +0, unless every addend (C and each product, whose sign is
//    the XOR of its factors' signs) is a zero of sign minus, then -0 (IEEE 754 §6.3,
//    for both rounding modes here: neither is roundTowardNegative).
//  * Rounding into a format: correct rounding with the format's precision, exponent
//    range and gradual underflow. Overflow: round-to-nearest-even gives ±Inf,
//    round-toward-zero gives ±max finite; with `satfinite` both give ±max finite, and
//    an infinite value gives ±max finite too (PTX cvt .satfinite). e4m3 has no Inf:
//    where another format would give ±Inf it gives the NaN pattern S.1111.111 (sign
//    kept). Overflow is judged as IEEE does, after rounding with unbounded exponent:
//    e4m3 464 rounds (tie, even) to 448, anything above 464 overflows.
//  * NaN results: the pattern with sign 0 and every exponent and fraction bit set
//    (0x7fffffff, 0x7fff, 0x7f, tf32 0x7fffe000) — NVIDIA's canonical NaN.
//  * Raw bits: only the format's storage bits count (fp16: the low 16 bits of the
//    uint32); tf32 ignores the low 13 bits of its 32-bit register.
//
// Functions taking mpfr_ptr outputs set that variable's precision themselves (it must
// have been initialised); MPFR's exponent range is saved and restored around every
// call that narrows it.
#pragma once
#include <cstdint>  // before mpfr.h: enables MPFR's intmax_t functions
#include <mpfr.h>

#include <span>
#include <string>

#include "tcnum/core/format.hpp"

namespace tcnum {

// RAII holder for one mpfr_t (default precision 64 bits), usable wherever MPFR wants
// an mpfr_ptr / mpfr_srcptr.
class MpfrValue {
 public:
  explicit MpfrValue(mpfr_prec_t prec = 64) { mpfr_init2(v_, prec); }
  ~MpfrValue() { mpfr_clear(v_); }
  MpfrValue(const MpfrValue&) = delete;
  MpfrValue& operator=(const MpfrValue&) = delete;
  mpfr_ptr get() { return v_; }
  mpfr_srcptr get() const { return v_; }
  operator mpfr_ptr() { return v_; }
  operator mpfr_srcptr() const { return v_; }

 private:
  mpfr_t v_;
};

// The value of `bits` in format f, exactly (NaN, ±Inf, ±0 included). `out`'s precision
// is set to 32 bits, enough for every format.
void mpfr_set_bits(mpfr_ptr out, Format f, std::uint32_t bits);

// Correct rounding of x into f (see the semantics above); returns f's raw bits.
std::uint32_t mpfr_round_bits(Format f, mpfr_srcptr x, Rounding mode, bool satfinite = false);
std::uint32_t mpfr_round_bits(Format f, double x, Rounding mode, bool satfinite = false);

// The exact value of c + sum_k a_k*b_k (a.size() == b.size(), else std::invalid_argument).
// `out`'s precision is raised to hold it exactly.
void exact_dot(mpfr_ptr out, Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
               std::span<const std::uint32_t> b, std::uint32_t c);

// Block scaling: product k is multiplied by a[k / block] * b[k / block] (raw `format` bits).
struct ScaleVectors {
  Format format = Format::ue8m0;
  int block = 32;
  std::span<const std::uint32_t> a, b;
};

// The exact value of c + sum_k a_k*b_k*sa_(k/block)*sb_(k/block); a NaN scale gives NaN.
void exact_dot(mpfr_ptr out, Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
               std::span<const std::uint32_t> b, std::uint32_t c, const ScaleVectors& scales);

// exact_dot correctly rounded into `out` with `mode`: the one rounding an ideal
// tensor core would do. Returns out's raw bits.
std::uint32_t exact_dot_rounded(Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
                                std::span<const std::uint32_t> b, std::uint32_t c, Format out, Rounding mode,
                                bool satfinite = false);
std::uint32_t exact_dot_rounded(Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
                                std::span<const std::uint32_t> b, std::uint32_t c, const ScaleVectors& scales,
                                Format out, Rounding mode, bool satfinite = false);

// exact_dot correctly rounded to double (nearest even; no product or sum of these
// formats leaves double's range).
double exact_dot_double(Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
                        std::span<const std::uint32_t> b, std::uint32_t c);

// exact_dot as decimal text: significant_digits == 0 gives the exact expansion
// (every dyadic rational has a finite one), else that many digits in %e style.
std::string exact_dot_decimal(Format a_fmt, Format b_fmt, Format c_fmt, std::span<const std::uint32_t> a,
                              std::span<const std::uint32_t> b, std::uint32_t c, int significant_digits = 0);

// Helpers for error studies.
// Decimal text of x: exact when significant_digits == 0 ("nan", "inf", "-inf", "-0" for specials).
std::string mpfr_to_decimal(mpfr_srcptr x, int significant_digits = 0);
// x rounded to nearest-even double (overflow to ±Inf).
double mpfr_to_double(mpfr_srcptr x);
// |approx - exact| / |exact|, evaluated in MPFR and rounded to double. Conventions:
// both NaN, equal infinities, or both zero -> 0; otherwise a NaN, infinity or a zero
// exact value -> +Inf.
double relative_error(double approx, mpfr_srcptr exact);
// The same for a value given as raw bits of f.
double relative_error(Format f, std::uint32_t bits, mpfr_srcptr exact);
// |value(bits) - exact| in units of f's ulp at `exact` (ulp = 2^(max(floor(log2|exact|),
// emin) - frac_bits); exact zero: the smallest subnormal). Same special conventions.
double ulp_error(Format f, std::uint32_t bits, mpfr_srcptr exact);

}  // namespace tcnum
