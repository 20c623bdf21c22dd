// What both generator families share (tcnum/fuzz/generators.hpp, and the frozen corpus
// generators of the reference layer): the distributions by name and one line each (the same
// names and intent, not the same bits), and the exponent arithmetic of splitting a product into
// factors, which draws nothing. Private to emu/.
#pragma once
#include <algorithm>

#include "tcnum/core/format.hpp"
#include "tcnum/core/instruction.hpp"

namespace tcnum::detail {

struct DistInfo {
  const char* name;
  const char* description;
};

// The distributions whose description both families share (each has its own `normal`).
inline constexpr DistInfo kRandbitsDist{
    "randbits", "uniform random finite bit patterns (subnormals, ±0 included; tf32: random low 13 bits)"};
inline constexpr DistInfo kSpreadDist{
    "spread", "one lead term, the other products and C 2^-5..2^-30 below it: alignment truncation"};
inline constexpr DistInfo kCancelDist{"cancel", "products in pairs a_i b_i ≈ -a_j b_j, C ≈ -sum: massive cancellation"};
inline constexpr DistInfo kSpecialDist{
    "special", "normal, each element replaced with p=1/8 by ±0, ±Inf, NaN, ±max, ±min subnormal, ±min normal"};
inline constexpr DistInfo kSubnormDist{"subnorm", "subnormal/tiny factors, products near the bottom of D's range, tiny C"};

// The lowest leading-bit weight of f's nonzero values (its smallest subnormal's).
inline int lowest_lead(Format f) { return spec(f).emin() - spec(f).frac_bits; }

// A product leading at 2^t split into A's and B's factors: t clamped to what A×B can reach, and
// the range [lo, hi] of A's leading weight, normal factors preferred (lo > hi cannot be met with
// both normal: then the subnormal range).
struct LeadSplit {
  int t, lo, hi;
};
inline LeadSplit lead_split(const Instruction& in, int t) {
  const FormatSpec &sa = spec(in.a_type), &sb = spec(in.b_type);
  t = std::clamp(t, lowest_lead(in.a_type) + lowest_lead(in.b_type), sa.emax() + sb.emax());
  int lo = std::max(sa.emin(), t - sb.emax()), hi = std::min(sa.emax(), t - sb.emin());
  if (lo > hi) {  // some factor has to be subnormal
    lo = std::max(lowest_lead(in.a_type), t - sb.emax());
    hi = std::min(sa.emax(), t - lowest_lead(in.b_type));
  }
  return {t, lo, hi};
}

}  // namespace tcnum::detail
