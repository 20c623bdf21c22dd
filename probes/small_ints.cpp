// Self-contained codec for the layout self-check (see runner_internal.hpp).
#include <cmath>
#include <limits>
#include <stdexcept>

#include "runner_internal.hpp"

namespace tcnum::device::detail {
namespace {

struct Layout {
  int width, exp_bits, frac_bits, bias;
  bool has_inf;
};

Layout layout_of(Format f) {
  switch (f) {
    case Format::fp32:
    case Format::tf32: return {32, 8, 23, 127, true};  // tf32 lives in an fp32 register
    case Format::fp16: return {16, 5, 10, 15, true};
    case Format::bf16: return {16, 8, 7, 127, true};
    case Format::e4m3: return {8, 4, 3, 7, false};
    case Format::e5m2: return {8, 5, 2, 15, true};
    // The Blackwell formats and scales have no Hopper probe (probes/blackwell has its own check).
    case Format::e2m1:
    case Format::e2m3:
    case Format::e3m2:
    case Format::ue8m0:
    case Format::ue4m3:
    case Format::s8:  // integers: integer_bits / integer_of below
    case Format::u8:
    case Format::s4:
    case Format::u4:
    case Format::s32: break;
    case Format::e4m3fnuz:  // AMD's formats: no NVIDIA probe
    case Format::e5m2fnuz: break;
  }
  throw std::logic_error("small_ints: no layout self-check for this format");
}

// Integer formats: two's complement (s8/s4/s32) or unsigned (u8/u4) in the storage bits.
int integer_width(Format f) {
  switch (f) {
    case Format::s8:
    case Format::u8: return 8;
    case Format::s4:
    case Format::u4: return 4;
    case Format::s32: return 32;
    default: return 0;
  }
}

bool integer_signed(Format f) { return f == Format::s8 || f == Format::s4 || f == Format::s32; }

}  // namespace

std::uint32_t small_int_bits(Format f, int v) {
  if (const int w = integer_width(f)) {
    if (v < 0 && !integer_signed(f)) throw std::logic_error("small_int_bits: negative integer for an unsigned format");
    return static_cast<std::uint32_t>(v) & (w == 32 ? 0xffffffffu : (1u << w) - 1u);
  }
  const Layout l = layout_of(f);
  if (v == 0) return 0;
  const std::uint32_t sign = v < 0 ? 1u << (l.width - 1) : 0u;
  const auto u = static_cast<std::uint32_t>(v < 0 ? -static_cast<long long>(v) : v);
  int e = 31;
  while (!(u >> e & 1u)) --e;
  const int max_exp = (1 << l.exp_bits) - (l.has_inf ? 2 : 1) - l.bias;
  if (e > l.frac_bits || e > max_exp) throw std::logic_error("small_int_bits: integer not exact in format");
  const std::uint32_t frac = (u << (l.frac_bits - e)) & ((1u << l.frac_bits) - 1u);
  return sign | static_cast<std::uint32_t>(e + l.bias) << l.frac_bits | frac;
}

double bits_value(Format f, std::uint32_t bits) {
  if (const int w = integer_width(f)) {
    const std::uint32_t r = w == 32 ? bits : bits & ((1u << w) - 1u);
    const bool neg = integer_signed(f) && (r >> (w - 1)) & 1u;
    return neg ? static_cast<double>(r) - std::ldexp(1.0, w) : static_cast<double>(r);
  }
  const Layout l = layout_of(f);
  const bool neg = (bits >> (l.width - 1)) & 1u;
  const std::uint32_t ef = (bits >> l.frac_bits) & ((1u << l.exp_bits) - 1u);
  const std::uint32_t frac = bits & ((1u << l.frac_bits) - 1u);
  const std::uint32_t ef_max = (1u << l.exp_bits) - 1u;
  double mag;
  if (l.has_inf && ef == ef_max) {
    mag = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (!l.has_inf && ef == ef_max && frac == (1u << l.frac_bits) - 1u) {
    mag = std::numeric_limits<double>::quiet_NaN();  // e4m3: only S.1111.111 is NaN
  } else if (ef == 0) {
    mag = std::ldexp(static_cast<double>(frac), 1 - l.bias - l.frac_bits);
  } else {
    mag = std::ldexp(static_cast<double>(frac | 1u << l.frac_bits), static_cast<int>(ef) - l.bias - l.frac_bits);
  }
  return neg ? -mag : mag;
}

}  // namespace tcnum::device::detail
