// Element level: one output element d = c + sum_k a_k*b_k of one MMA instruction.
#pragma once
#include <cstdint>
#include <span>

#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum {

// a, b: the K raw elements of one row of A and one column of B (in.a_type, in.b_type);
// c: raw bits of C (in.c_type). Returns D's raw bits (in.d_type).
std::uint32_t mma_element(const DatapathParams& p, const Instruction& in, std::span<const std::uint32_t> a,
                          std::span<const std::uint32_t> b, std::uint32_t c);

inline std::uint32_t mma_element(const Model& m, const Instruction& in, std::span<const std::uint32_t> a,
                                 std::span<const std::uint32_t> b, std::uint32_t c) {
  return mma_element(m.params_for(in), in, a, b, c);
}

// Block-scaled instructions (in.block_scaled()): also the in.scales_per_row() scales of A's row
// and of B's column, raw in.scale_type bits (ue8m0 or ue4m3).
std::uint32_t mma_element(const Model& m, const Instruction& in, std::span<const std::uint32_t> a,
                          std::span<const std::uint32_t> b, std::uint32_t c, std::span<const std::uint32_t> scale_a,
                          std::span<const std::uint32_t> scale_b);

// Instruction level: one M×N×K tile. A: M×K row-major, B: K×N column-major (column n's K
// elements contiguous, as the device probes and a Case hold them; docs/architecture.md, "B's
// layout"), C and D: M×N row-major; raw bits in uint32s.
void mma_tile(const Model& m, const Instruction& in, const std::uint32_t* a, const std::uint32_t* b,
              const std::uint32_t* c, std::uint32_t* d);

}  // namespace tcnum
