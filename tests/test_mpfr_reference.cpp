// The MPFR reference itself, on hand-worked cases whose answers follow from IEEE 754
// and the format definitions (the reference is the yardstick of the other tests).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "tcnum/reference/mpfr_reference.hpp"

using namespace tcnum;

namespace {

constexpr Rounding RNE = Rounding::nearest_even;
constexpr Rounding RZ = Rounding::toward_zero;

// fp32 bits of 2^e (normal range).
std::uint32_t f32_pow2(int e) { return static_cast<std::uint32_t>(e + 127) << 23; }

std::uint32_t dot(Format ab, std::vector<std::uint32_t> a, std::vector<std::uint32_t> b, std::uint32_t c,
                  Format out, Rounding mode, bool sat = false) {
  return exact_dot_rounded(ab, ab, Format::fp32, a, b, c, out, mode, sat);
}

}  // namespace

TEST(MpfrReference, TiesToEvenAndStickyBits) {
  // 1 + 2^-24: a tie in fp32, goes to the even 1.0.
  EXPECT_EQ(dot(Format::fp16, {0x3c00}, {0x3c00}, f32_pow2(-24), Format::fp32, RNE), 0x3f800000u);
  // 1 + 2^-24 + 2^-47 (C = 2^-24 (1 + 2^-23)): above the tie.
  EXPECT_EQ(dot(Format::fp16, {0x3c00}, {0x3c00}, f32_pow2(-24) | 1, Format::fp32, RNE), 0x3f800001u);
  EXPECT_EQ(dot(Format::fp16, {0x3c00}, {0x3c00}, f32_pow2(-24) | 1, Format::fp32, RZ), 0x3f800000u);
  // 1 + 3*2^-24: a tie between 1+2^-23 (odd) and 1+2^-22: up.
  EXPECT_EQ(dot(Format::fp16, {0x3c00}, {0x3c00}, 0x34400000u, Format::fp32, RNE), 0x3f800002u);
  // bf16 directly from doubles.
  EXPECT_EQ(mpfr_round_bits(Format::bf16, 1.0 + std::ldexp(1.0, -8), RNE), 0x3f80u);
  EXPECT_EQ(mpfr_round_bits(Format::bf16, 1.0 + 3 * std::ldexp(1.0, -8), RNE), 0x3f82u);
  EXPECT_EQ(mpfr_round_bits(Format::bf16, -(1.0 + 3 * std::ldexp(1.0, -8)), RZ), 0xbf81u);
}

TEST(MpfrReference, Overflow) {
  // 65504 + 16 = 65520: halfway from max (odd significand) to 2^16: Inf; RZ: max.
  EXPECT_EQ(dot(Format::fp16, {0x7bff}, {0x3c00}, 0x41800000u, Format::fp16, RNE), 0x7c00u);
  EXPECT_EQ(dot(Format::fp16, {0x7bff}, {0x3c00}, 0x41800000u, Format::fp16, RZ), 0x7bffu);
  EXPECT_EQ(dot(Format::fp16, {0x7bff}, {0x3c00}, 0x41800000u, Format::fp16, RNE, true), 0x7bffu);
  EXPECT_EQ(dot(Format::fp16, {0x7bff}, {0x3c00}, 0x41700000u, Format::fp16, RNE), 0x7bffu);  // 65519
  EXPECT_EQ(dot(Format::fp16, {0xfbff}, {0x3c00}, 0xc1800000u, Format::fp16, RNE), 0xfc00u);
  // e4m3: 464 ties to 448; 464.5 overflows to the NaN pattern, or saturates.
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, 0x43e80000u, Format::e4m3, RNE), 0x7eu);
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, 0x43e84000u, Format::e4m3, RNE), 0x7fu);
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, 0xc3e84000u, Format::e4m3, RNE), 0xffu);
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, 0x43e84000u, Format::e4m3, RNE, true), 0x7eu);
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, 0x43e84000u, Format::e4m3, RZ), 0x7eu);
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, 0xc4000000u, Format::e4m3, RZ), 0xfeu);  // -512
  // e5m2: 61440 ties from 57344 (odd) up to 65536: Inf.
  EXPECT_EQ(mpfr_round_bits(Format::e5m2, 61440.0, RNE), 0x7cu);
  EXPECT_EQ(mpfr_round_bits(Format::e5m2, 61439.0, RNE), 0x7bu);
}

TEST(MpfrReference, Subnormals) {
  // fp16's smallest subnormal is 2^-24; 2^-25 is a tie with 0: even (0).
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, f32_pow2(-25), Format::fp16, RNE), 0x0000u);
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, 0x33400000u, Format::fp16, RNE), 0x0001u);  // 0.75 * 2^-24
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, 0x33400000u, Format::fp16, RZ), 0x0000u);
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, 0xb3400000u, Format::fp16, RNE), 0x8001u);
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, 0xb3400000u, Format::fp16, RZ), 0x8000u);  // -0
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, 0xb0800000u, Format::fp16, RNE), 0x8000u);  // -2^-30: -0
  // 3 * 2^-25 = 1.5 ulp: tie between 1 and 2 ulps: even (2).
  EXPECT_EQ(dot(Format::fp16, {0}, {0}, 0x33c00000u, Format::fp16, RNE), 0x0002u);
  // 2^-25 + 2^-55: a double-rounding trap (rounding to 11 bits first makes it a tie).
  EXPECT_EQ(exact_dot_rounded(Format::fp32, Format::fp32, Format::fp32, std::vector<std::uint32_t>{0x3f800000u},
                              std::vector<std::uint32_t>{f32_pow2(-55)}, f32_pow2(-25), Format::fp16, RNE),
            0x0001u);
  EXPECT_EQ(exact_dot_rounded(Format::fp32, Format::fp32, Format::fp32, std::vector<std::uint32_t>{0xbf800000u},
                              std::vector<std::uint32_t>{f32_pow2(-55)}, f32_pow2(-25), Format::fp16, RNE),
            0x0000u);
  // fp32 subnormal result from bf16 products: 2^-70 * 2^-70 = 2^-140 = 2^9 * 2^-149.
  EXPECT_EQ(dot(Format::bf16, {0x1c80}, {0x1c80}, 0, Format::fp32, RNE), 0x00000200u);
  // The smallest product of two fp32 subnormals (2^-298), summed exactly with +/-2^254.
  const std::vector<std::uint32_t> a{0x7f000000u, 0xff000000u, 1u}, b{0x7f000000u, 0x7f000000u, 1u};
  EXPECT_EQ(exact_dot_double(Format::fp32, Format::fp32, Format::fp32, a, b, 0), std::ldexp(1.0, -298));
  EXPECT_EQ(exact_dot_rounded(Format::fp32, Format::fp32, Format::fp32, a, b, 0, Format::fp32, RNE), 0u);
}

TEST(MpfrReference, ZeroSigns) {
  // Every addend -0: -0. Any +0 addend, or an exact cancellation: +0, in both modes.
  EXPECT_EQ(dot(Format::fp16, {0x8000}, {0x3c00}, 0x80000000u, Format::fp32, RNE), 0x80000000u);
  EXPECT_EQ(dot(Format::fp16, {0x8000}, {0x3c00}, 0x80000000u, Format::fp32, RZ), 0x80000000u);
  EXPECT_EQ(dot(Format::fp16, {0x8000}, {0x3c00}, 0x00000000u, Format::fp32, RNE), 0x00000000u);
  EXPECT_EQ(dot(Format::fp16, {0x8000}, {0x8000}, 0x80000000u, Format::fp32, RNE), 0x00000000u);
  EXPECT_EQ(dot(Format::fp16, {0x3c00}, {0x3c00}, 0xbf800000u, Format::fp32, RNE), 0x00000000u);
  EXPECT_EQ(dot(Format::fp16, {0x3c00}, {0x3c00}, 0xbf800000u, Format::fp32, RZ), 0x00000000u);
  EXPECT_EQ(dot(Format::fp16, {0x3c00, 0xbc00}, {0x3c00, 0x3c00}, 0x80000000u, Format::fp16, RZ), 0x0000u);
}

TEST(MpfrReference, NaNAndInfinity) {
  const std::uint32_t nan32 = 0x7fffffffu;
  EXPECT_EQ(dot(Format::fp16, {0x7c00}, {0x0000}, 0, Format::fp32, RNE), nan32);              // Inf * 0
  EXPECT_EQ(dot(Format::fp16, {0x7c00, 0x7c00}, {0x3c00, 0xbc00}, 0, Format::fp32, RNE), nan32);  // Inf - Inf
  EXPECT_EQ(dot(Format::fp16, {0x7c00}, {0x3c00}, 0xff800000u, Format::fp32, RNE), nan32);
  EXPECT_EQ(dot(Format::fp16, {0x7c00}, {0x3c00}, 0x7f800000u, Format::fp32, RNE), 0x7f800000u);
  EXPECT_EQ(dot(Format::fp16, {0x7c00}, {0xbc00}, 0, Format::fp32, RZ), 0xff800000u);  // Inf stays Inf
  EXPECT_EQ(dot(Format::fp16, {0x7c00}, {0x3c00}, 0, Format::fp32, RNE, true), 0x7f7fffffu);
  EXPECT_EQ(dot(Format::fp16, {0x3c00}, {0x3c00}, 0xffc00001u, Format::fp16, RNE), 0x7fffu);  // NaN C
  EXPECT_EQ(dot(Format::fp16, {0x7e01}, {0x0000}, 0, Format::fp16, RNE), 0x7fffu);  // NaN * 0
  EXPECT_EQ(exact_dot_rounded(Format::e4m3, Format::e5m2, Format::fp32, std::vector<std::uint32_t>{0xff},
                              std::vector<std::uint32_t>{0x3c}, 0, Format::fp32, RNE),
            nan32);
  EXPECT_EQ(mpfr_round_bits(Format::tf32, std::nan(""), RNE), 0x7fffe000u);
  EXPECT_EQ(mpfr_round_bits(Format::e4m3, HUGE_VAL, RNE), 0x7fu);
  EXPECT_EQ(mpfr_round_bits(Format::e4m3, -HUGE_VAL, RNE, true), 0xfeu);
}

TEST(MpfrReference, Tf32IgnoresLowBitsAndDecimalIsExact) {
  EXPECT_EQ(exact_dot_rounded(Format::tf32, Format::tf32, Format::fp32, std::vector<std::uint32_t>{0x3f801fffu},
                              std::vector<std::uint32_t>{0x3f800000u}, 0, Format::fp32, RNE),
            0x3f800000u);
  const std::vector<std::uint32_t> one{0x3c00}, tiny{0x0001};  // fp16 1.0, 2^-24
  EXPECT_EQ(exact_dot_decimal(Format::fp16, Format::fp16, Format::fp32, one, tiny, 0),
            "0.000000059604644775390625");
  EXPECT_EQ(exact_dot_decimal(Format::fp16, Format::fp16, Format::fp32, one, one, 0x40000000u), "3");
  EXPECT_EQ(exact_dot_decimal(Format::fp16, Format::fp16, Format::fp32, one, one, 0xbfc00000u), "-0.5");
  EXPECT_EQ(exact_dot_decimal(Format::fp16, Format::fp16, Format::fp32, one, one, 0xbfc00000u, 3), "-5.00e-01");
  EXPECT_EQ(exact_dot_decimal(Format::fp16, Format::fp16, Format::fp32, std::vector<std::uint32_t>{0x7c00}, one,
                              0xff800000u),
            "nan");
}

TEST(MpfrReference, ErrorHelpers) {
  // Exact value 1 + 2^-25 (fp32 inputs): 1.0 is off by 2^-25, a quarter of fp32's ulp at 1.
  MpfrValue exact;
  const std::vector<std::uint32_t> a{0x3f800000u, 0x3f800000u}, b{0x3f800000u, f32_pow2(-25)};
  exact_dot(exact, Format::fp32, Format::fp32, Format::fp32, a, b, 0);
  EXPECT_DOUBLE_EQ(ulp_error(Format::fp32, 0x3f800000u, exact), 0.25);
  EXPECT_DOUBLE_EQ(relative_error(1.0, exact), std::ldexp(1.0, -25) / (1 + std::ldexp(1.0, -25)));
  EXPECT_DOUBLE_EQ(relative_error(Format::fp32, 0x3f800000u, exact), std::ldexp(1.0, -25) / (1 + std::ldexp(1.0, -25)));
  EXPECT_EQ(mpfr_to_double(exact), 1.0 + std::ldexp(1.0, -25));
  MpfrValue zero;
  mpfr_set_zero(zero, 1);
  EXPECT_EQ(relative_error(0.0, zero), 0.0);
  EXPECT_EQ(relative_error(1e-300, zero), HUGE_VAL);
  EXPECT_DOUBLE_EQ(ulp_error(Format::fp16, 0x0001, zero), 1.0);  // one smallest subnormal
  EXPECT_THROW(exact_dot(exact, Format::fp32, Format::fp32, Format::fp32, a, std::vector<std::uint32_t>{1}, 0),
               std::invalid_argument);
}
