// The largest magnitude a scaled group (scale_group > 1) can reach before alignment: `group`
// products of A's and B's largest values, in units of both formats' smallest subnormals, times
// both scales' largest significands. The reference datapath holds it in 63 bits, the fast
// kernel's float lanes in 24; plans past the first are refused, past the second run the reference.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "tcnum/core/format.hpp"
#include "tcnum/core/instruction.hpp"

namespace tcnum::detail {

// The exponent of f's smallest subnormal: the unit of its values as fixed-point integers.
inline int smallest_subnormal_exponent(Format f) { return spec(f).emin() - spec(f).frac_bits; }

inline double scaled_group_bound(Format a, Format b, Format scale, int group) {
  auto largest_fixed = [](Format f) {
    return std::ldexp(to_double(f, max_finite_bits(f, false)), -smallest_subnormal_exponent(f));
  };
  const double scale_sig = std::ldexp(1.0, spec(scale).frac_bits + 1) - 1;
  return group * largest_fixed(a) * largest_fixed(b) * scale_sig * scale_sig;
}

// Refuses a scale_group whose groups the reference cannot sum exactly (e5m2 x e5m2 groups
// span 68 bits): a clear error when the plan is made, not one in the middle of a GEMM.
inline void check_scaled_group_range(const Instruction& in, int group) {
  if (group > 1 && scaled_group_bound(in.a_type, in.b_type, in.scale_type, group) >= std::ldexp(1.0, 63))
    throw std::invalid_argument(in.name + ": scale_group " + std::to_string(group) + " with " + std::string(name_of(in.a_type)) +
                                " x " + std::string(name_of(in.b_type)) + ": a group's exact sum could exceed 63 bits");
}

}  // namespace tcnum::detail
