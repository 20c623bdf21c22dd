// Running sm_120a's kind:: mma.sync forms on an RTX 50xx (sm120_runner.cpp), and their layout
// self-check. Operands as tcnum::device::run_tiles takes them, plus the block scales.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tcnum/core/instruction.hpp"

namespace tcnum::sm120 {

// tiles × (A M×K row-major, B [n][k], C M×N row-major, scale_a M × S, scale_b N × S with
// S = in.scales_per_row(), empty when 0) -> tiles × D M×N row-major; raw bits in uint32s.
std::vector<std::uint32_t> run_tiles(const Instruction& in, int tiles, const std::vector<std::uint32_t>& a,
                                     const std::vector<std::uint32_t>& b, const std::vector<std::uint32_t>& c,
                                     const std::vector<std::uint32_t>& scale_a, const std::vector<std::uint32_t>& scale_b,
                                     int device = 0);

// Small integers and power-of-two scales with exact results: "" when every element is right,
// else a report (the first eight wrong elements). Nothing recorded from `in` is trusted before.
std::string self_check(const Instruction& in, int device = 0);

}  // namespace tcnum::sm120
