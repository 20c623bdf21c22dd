// One output element d = c + sum_k a_k*b_k of one MMA instruction, for a model and an
// instruction: thin wrappers over compile_plan and mma_element (tcnum/core/plan.hpp), which
// take a plan and say which datapath computes (Datapath). They are for a few elements (numprobe
// check, the docs, short tests); a caller with many compiles its plan once and calls
// mma_element, mma_batch or mma_tiles on it.
#pragma once
#include <cstdint>
#include <span>

#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum {

// a, b: the K raw elements of one row of A and one column of B (in.a_type, in.b_type);
// c: raw bits of C (in.c_type). Returns D's raw bits (in.d_type). The plan is compiled once per
// thread and kept while the same (params, instruction) repeat.
std::uint32_t mma_element(const DatapathParams& p, const Instruction& in, std::span<const std::uint32_t> a,
                          std::span<const std::uint32_t> b, std::uint32_t c);

inline std::uint32_t mma_element(const Model& m, const Instruction& in, std::span<const std::uint32_t> a,
                                 std::span<const std::uint32_t> b, std::uint32_t c) {
  return mma_element(m.params_for(in), in, a, b, c);
}

// Block-scaled instructions (in.block_scaled()): also the in.scales_per_row() scales of A's row
// and of B's column, raw in.scale_type bits (ue8m0 or ue4m3). The reference datapath.
std::uint32_t mma_element(const DatapathParams& p, const Instruction& in, std::span<const std::uint32_t> a,
                          std::span<const std::uint32_t> b, std::uint32_t c, std::span<const std::uint32_t> scale_a,
                          std::span<const std::uint32_t> scale_b);

inline std::uint32_t mma_element(const Model& m, const Instruction& in, std::span<const std::uint32_t> a,
                                 std::span<const std::uint32_t> b, std::uint32_t c,
                                 std::span<const std::uint32_t> scale_a, std::span<const std::uint32_t> scale_b) {
  return mma_element(m.params_for(in), in, a, b, c, scale_a, scale_b);
}

}  // namespace tcnum
