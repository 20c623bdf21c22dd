// Running sm_100a's block-scaled tcgen05.mma on a B200 (tcgen05_runner.cpp), and its layout
// self-check. Operands as tcnum::device::run_tiles takes them, plus the block scales.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tcnum/core/instruction.hpp"

namespace tcnum::tcgen05 {

// tiles × (A M×K row-major, B [n][k], C M×N row-major f32, scale_a M × S, scale_b N × S with
// S = in.scales_per_row()) -> tiles × D M×N row-major f32 bits. Throws std::invalid_argument
// outside the probe's scope (tcgen05_layout.hpp: supported()).
std::vector<std::uint32_t> run_tiles(const Instruction& in, int tiles, const std::vector<std::uint32_t>& a,
                                     const std::vector<std::uint32_t>& b, const std::vector<std::uint32_t>& c,
                                     const std::vector<std::uint32_t>& scale_a, const std::vector<std::uint32_t>& scale_b,
                                     int device = 0);

// Small integers and power-of-two scales with exact results: "" when every element is right, else
// a report. Nothing recorded from `in` is trusted before it passed.
std::string self_check(const Instruction& in, int device = 0);

}  // namespace tcnum::tcgen05
