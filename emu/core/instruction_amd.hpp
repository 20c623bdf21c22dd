// AMD's MFMA instructions for the catalog (instruction.cpp): names, shapes, types, gfx targets.
#pragma once
#include <vector>

#include "tcnum/core/instruction.hpp"

namespace tcnum::detail {

// The gfx targets as parse_arch numbers them.
inline constexpr int kGfx908 = 908, kGfx90a = 910, kGfx942 = 942;

void add_amd_mfma(std::vector<Instruction>& all);

}  // namespace tcnum::detail
