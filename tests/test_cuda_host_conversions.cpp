// tcnum's decode/encode against the CUDA toolkit's host-side conversions (cuda_fp16.h,
// cuda_bf16.h, cuda_fp8.h compiled by the host compiler): every bit pattern decoded,
// and float/double -> half, bfloat16, fp8 (RNE; RZ where CUDA has it; fp8 with
// __NV_SATFINITE and __NV_NOSAT) at every midpoint, its neighbours and random values.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <vector>

#include "tcnum/core/format.hpp"

#include "test_support.hpp"

using namespace tcnum;
using tcnum::test::describe;
using tcnum::test::hex;

namespace {


bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

float half_to_float(std::uint32_t bits) {
  __half_raw r;
  r.x = static_cast<unsigned short>(bits);
  return __half2float(__half(r));
}
float bf16_to_float(std::uint32_t bits) {
  __nv_bfloat16_raw r;
  r.x = static_cast<unsigned short>(bits);
  return __bfloat162float(__nv_bfloat16(r));
}
float fp8_to_float(std::uint32_t bits, __nv_fp8_interpretation_t kind) {
  const __half_raw h = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(bits), kind);
  return half_to_float(h.x);
}
std::uint32_t raw(__half h) { return static_cast<__half_raw>(h).x; }
std::uint32_t raw(__nv_bfloat16 h) { return static_cast<__nv_bfloat16_raw>(h).x; }

// Floats probing every rounding decision of f: all its values, the midpoints between
// neighbours, the floats next to both, the overflow threshold, random floats.
std::vector<float> probe_floats(Format f) {
  std::vector<float> v;
  const std::uint32_t max = max_finite_bits(f, false);
  auto around = [&](double x) {
    const auto fx = static_cast<float>(x);  // exact for the points built here
    v.push_back(fx);
    v.push_back(std::nextafter(fx, 0.0f));
    v.push_back(std::nextafter(fx, HUGE_VALF));
  };
  for (std::uint32_t b = 0; b < max; ++b) {
    const double lo = to_double(f, b), hi = to_double(f, b + 1);
    around(lo);
    around(lo + (hi - lo) / 2);
  }
  const double top = to_double(f, max), ulp = top - to_double(f, max - 1);
  around(top);
  around(top + ulp / 2);
  around(top + ulp);
  around(to_double(f, 1) / 2);
  std::mt19937_64 rng(0xc0da + static_cast<unsigned>(f));
  for (int i = 0; i < (1 << 16); ++i) {
    const auto r = static_cast<std::uint32_t>(rng());
    float x;
    std::memcpy(&x, &r, sizeof x);
    v.push_back(x);
    // Random significands near f's range (sticky bits below the midpoints).
    const FormatSpec& s = spec(f);
    const int e = s.emin() - s.frac_bits - 2 + static_cast<int>(rng() % (s.emax() - s.emin() + s.frac_bits + 5));
    v.push_back(std::ldexp(1.0f + static_cast<float>(rng() >> 41) * 0x1p-23f, e));
  }
  for (float x : {HUGE_VALF, FLT_MAX, FLT_MIN, FLT_TRUE_MIN, 0.0f, std::nanf("")}) v.push_back(x);
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  return v;
}

std::vector<double> probe_doubles(Format f) {
  std::vector<double> v;
  for (float x : probe_floats(f)) v.push_back(x);
  std::mt19937_64 rng(0xdb1 + static_cast<unsigned>(f));
  for (int i = 0; i < (1 << 16); ++i) {
    const std::uint64_t r = rng();
    double x;
    std::memcpy(&x, &r, sizeof x);
    v.push_back(x);
    const FormatSpec& s = spec(f);
    const int e = s.emin() - s.frac_bits - 2 + static_cast<int>(rng() % (s.emax() - s.emin() + s.frac_bits + 5));
    v.push_back((r & 1 ? -1 : 1) * std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52, e));
  }
  return v;
}

template <class X>
void compare_encode(const char* what, Format f, const std::vector<X>& xs, Rounding mode, bool sat,
                    const std::function<std::uint32_t(X)>& cuda) {
  int failures = 0;
  for (X x : xs) {
    const std::uint32_t want = cuda(x);
    const std::uint32_t got = encode(f, static_cast<double>(x), mode, sat);
    // NaN in: CUDA's double paths keep the NaN's sign (and for e5m2 its payload); tcnum
    // writes the canonical NaN, as the hardware does. Both must be NaN patterns.
    const bool nan_ok = std::isnan(x) && decode(f, want).is_nan() && got == canonical_nan(f);
    if (got != want && !nan_ok && failures++ < 8)
      ADD_FAILURE() << what << "(" << describe(static_cast<double>(x)) << "): CUDA " << hex(want) << ", tcnum "
                    << hex(got);
  }
  EXPECT_EQ(failures, 0) << what << " over " << xs.size() << " values";
}

void compare_decode(const char* what, Format f, std::uint32_t patterns, const std::function<float(std::uint32_t)>& cuda) {
  int failures = 0;
  for (std::uint32_t b = 0; b < patterns; ++b) {
    const double want = cuda(b), got = to_double(f, b);
    if (!same(want, got) && failures++ < 8)
      ADD_FAILURE() << what << "(" << hex(b) << "): CUDA " << describe(want) << ", tcnum " << describe(got);
  }
  EXPECT_EQ(failures, 0) << what;
}

}  // namespace

TEST(CudaHost, HalfDecodeEveryPattern) { compare_decode("__half2float", Format::fp16, 1u << 16, half_to_float); }

TEST(CudaHost, Bfloat16DecodeEveryPattern) {
  compare_decode("__bfloat162float", Format::bf16, 1u << 16, bf16_to_float);
}

TEST(CudaHost, Fp8DecodeEveryPattern) {
  compare_decode("fp8 e4m3 -> half -> float", Format::e4m3, 256,
                 [](std::uint32_t b) { return fp8_to_float(b, __NV_E4M3); });
  compare_decode("fp8 e5m2 -> half -> float", Format::e5m2, 256,
                 [](std::uint32_t b) { return fp8_to_float(b, __NV_E5M2); });
}

TEST(CudaHost, FloatToHalf) {
  const std::vector<float> xs = probe_floats(Format::fp16);
  compare_encode<float>("__float2half_rn", Format::fp16, xs, Rounding::nearest_even, false,
                        [](float x) { return raw(__float2half_rn(x)); });
  compare_encode<float>("__float2half_rz", Format::fp16, xs, Rounding::toward_zero, false,
                        [](float x) { return raw(__float2half_rz(x)); });
  compare_encode<double>("__double2half", Format::fp16, probe_doubles(Format::fp16), Rounding::nearest_even, false,
                         [](double x) { return raw(__double2half(x)); });
}

TEST(CudaHost, FloatToBfloat16) {
  const std::vector<float> xs = probe_floats(Format::bf16);
  compare_encode<float>("__float2bfloat16_rn", Format::bf16, xs, Rounding::nearest_even, false,
                        [](float x) { return raw(__float2bfloat16_rn(x)); });
  compare_encode<float>("__float2bfloat16_rz", Format::bf16, xs, Rounding::toward_zero, false,
                        [](float x) { return raw(__float2bfloat16_rz(x)); });
  compare_encode<double>("__double2bfloat16", Format::bf16, probe_doubles(Format::bf16), Rounding::nearest_even,
                         false, [](double x) { return raw(__double2bfloat16(x)); });
}

TEST(CudaHost, FloatAndDoubleToFp8) {
  const std::pair<Format, __nv_fp8_interpretation_t> kinds[] = {{Format::e4m3, __NV_E4M3}, {Format::e5m2, __NV_E5M2}};
  for (const auto& [f, kind] : kinds) {
    const std::vector<float> xs = probe_floats(f);
    const std::vector<double> ds = probe_doubles(f);
    for (bool sat : {false, true}) {
      const __nv_saturation_t s = sat ? __NV_SATFINITE : __NV_NOSAT;
      compare_encode<float>(sat ? "__nv_cvt_float_to_fp8 satfinite" : "__nv_cvt_float_to_fp8 nosat", f, xs,
                            Rounding::nearest_even, sat,
                            [&](float x) { return __nv_cvt_float_to_fp8(x, s, kind); });
      compare_encode<double>(sat ? "__nv_cvt_double_to_fp8 satfinite" : "__nv_cvt_double_to_fp8 nosat", f, ds,
                             Rounding::nearest_even, sat,
                             [&](double x) { return __nv_cvt_double_to_fp8(x, s, kind); });
    }
  }
}
