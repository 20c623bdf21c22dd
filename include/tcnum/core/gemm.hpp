// GEMM level: any M×N×K computed as the device would with tiles of one instruction.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "tcnum/core/datapath.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/schedule.hpp"

namespace tcnum {

struct GemmOptions {
  // Order in which the K/in.k k-steps feed the accumulator; empty = ascending (0, 1, 2, ...).
  // Must be a permutation of 0..steps-1.
  std::vector<int> k_order;
  // Split-K: the k-steps (in k_order) are cut into split_k contiguous slices; slice 0 starts
  // from C, the others from +0; the partial results are then reduced in slice order
  // (((p0 + p1) + p2) + ...) with IEEE fp32 round-to-nearest additions, as a CUDA-core
  // reduction kernel does; the sum is finally rounded to D's format (RNE) if D is f16.
  int split_k = 1;
  // The whole schedule (tcnum/core/schedule.hpp): slices, k-tiles, promotion, the reduction
  // tree, where C enters, tf32 operand rounding. When given, k_order and split_k must stay at
  // their defaults (the schedule has its own).
  std::optional<Schedule> schedule;
  // Worker threads: 0 = every core (std::thread::hardware_concurrency(), or TCNUM_THREADS from
  // the environment); results never depend on it.
  int threads = 0;
  // The fast kernel (with the reference for the lanes it hands back) or the reference datapath
  // for every element: the same bits (tcnum/core/datapath.hpp).
  using Path = Datapath;
  Path path = Datapath::fast;
};

// Raw bits, one element per uint32: A M×K row-major (in.a_type), B K×N row-major
// (in.b_type), C M×N row-major (in.c_type). Returns D M×N row-major (in.d_type).
// K is padded with zeros to a multiple of in.k. Throws std::invalid_argument on bad sizes/options.
std::vector<std::uint32_t> gemm(const Model& model, const Instruction& in, int m, int n, int k,
                                const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                const std::vector<std::uint32_t>& c, const GemmOptions& opt = {});

// Block-scaled instructions (in.block_scaled()): their scale tensors, raw in.scale_type bits.
// a: M × (K / in.scale_block) row-major (row i's scales along K); b: (K / in.scale_block) × N
// row-major (column j's scales down K), as the PTX ISA's SA[i][k/V] and SB[k/V][j].
struct BlockScales {
  std::vector<std::uint32_t> a, b;
};

// gemm for a block-scaled instruction: K must be a multiple of in.k (no padding of scaled
// operands). The built-in rules run the fast kernel: one term per product with power-of-two
// scales (mxf8f6f4, ue8m0) with each scale folded into its operand's exponent plane; scaled
// groups (mxf4, mxf4nvf4) as fixed-point FP4 operands times their scales' significands.
std::vector<std::uint32_t> gemm(const Model& model, const Instruction& in, int m, int n, int k,
                                const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                const std::vector<std::uint32_t>& c, const BlockScales& scales,
                                const GemmOptions& opt = {});

}  // namespace tcnum
