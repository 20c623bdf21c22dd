// Block scales for fuzz campaigns on block-scaled instructions (kind::mxf8f6f4, mxf4, mxf4nvf4):
// the scale vectors of every row of A and column of B of whole tiles, drawn per distribution
// (the same names as generators.hpp), reproducibly (splitmix64, integer sampling only):
//  normal    2^e, e uniform in [-4, 4] (ue4m3: a uniform 3-bit significand too)
//  randbits  any non-NaN pattern of the scale format (every exponent, 2^-127 and 2^127 included)
//  spread    extreme exponents: ue8m0 2^-127..2^-110 or 2^110..2^127; ue4m3 its smallest
//            (subnormal) and largest binades, so products overflow or vanish after scaling
//  cancel    as normal, one scale for all the blocks of a row (column): pairs still cancel
//  special   as normal, each scale with p = 1/8 NaN, the largest, the smallest (ue8m0 0x00 =
//            2^-127, ue4m3 0x01) or zero (ue4m3 0x00; ue8m0 has no zero: the smallest)
//  subnorm   the smallest scales: ue8m0 2^-127..2^-120, ue4m3 zero or subnormal
//  boundary  as normal, each scale with p = 1/16 the largest or the smallest
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tcnum/core/instruction.hpp"

namespace tcnum::fuzz {

// `tiles` tiles of `in` (block-scaled): scale_a holds tiles × M × S (row i's S = in.scales_per_row()
// scales contiguous), scale_b tiles × N × S (column j's). Throws std::invalid_argument for an
// instruction that is not block-scaled or an unknown distribution.
void generate_scales(const Instruction& in, std::string_view dist, std::uint64_t seed, std::size_t tiles,
                     std::uint32_t* scale_a, std::uint32_t* scale_b);

}  // namespace tcnum::fuzz
