// A compiled plan per (model parameters, instruction): everything in DatapathParams resolved
// once (product schedule, blocks, where C enters, floors, block formats, rounding), so that
// the element, batch and tile calls, gemm and replay read the plan instead of the rules. A
// kernel test that checks many tiles compiles its plan once.
//
// The public contract: compile_plan; MmaPlan's instruction, params, fast and reference_only;
// the product order of a model (product_schedule, block_length, product_blocks); and the three
// calls below that compute elements (mma_element, mma_batch, mma_tiles), each through the fast
// kernel or the reference datapath (Datapath) with the same bits. MmaPlan also carries the fast
// kernel's program (its base detail::FastProgram, tcnum/core/detail/fast_program.hpp): internal,
// it changes with the kernel.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tcnum/core/datapath.hpp"
#include "tcnum/core/detail/fast_program.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum {

// The product order of the datapath: pass by pass (k_passes chained sub-MMAs taking the products
// k with (k / pass_interleave) % k_passes == pass), in ascending k within a pass. Element j of the
// result is the k index of the j-th product fed to the adder; consecutive blocks of
// block_size (capped at the pass length) are cut from it.
std::vector<int> product_schedule(const DatapathParams& p, int k);
// Products per block: block_size capped at the pass length (the whole pass when block_size <= 0).
int block_length(const DatapathParams& p, int k);
// The block of every product index (blocks numbered in feed order): product_schedule cut into
// blocks of block_length.
std::vector<int> product_blocks(const DatapathParams& p, int k);

struct MmaPlan : detail::FastProgram {
  Instruction instruction;
  DatapathParams params;
  // The fast integer kernel applies (see docs/benchmarks.md, "fast path"); otherwise every
  // element takes the reference datapath and `reference_only` says why.
  bool fast = false;
  std::string reference_only;
};

// Validates the parameters for the instruction (throws std::invalid_argument, naming it).
MmaPlan compile_plan(const DatapathParams& p, const Instruction& in);
inline MmaPlan compile_plan(const Model& m, const Instruction& in) { return compile_plan(m.params_for(in), in); }

// One output element: a and b the K raw elements of A's row and B's column, c raw C.
std::uint32_t mma_element(const MmaPlan& plan, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                          std::uint32_t c, Datapath path = Datapath::fast);
// A block-scaled instruction's element: scale_a holds the in.scales_per_row() scales of A's row,
// scale_b those of B's column (raw in.scale_type bits). Always the reference datapath (the fast
// kernel takes scales only in gemm's planes).
std::uint32_t mma_element(const MmaPlan& plan, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                          std::uint32_t c, std::span<const std::uint32_t> scale_a, std::span<const std::uint32_t> scale_b,
                          Datapath path = Datapath::fast);

// `count` independent elements: a and b hold count×k raw elements (case t at t·k), c and d count.
// Returns how many of them took the reference (all of them when the plan is not fast or the
// path is `reference`).
std::size_t mma_batch(const MmaPlan& plan, std::size_t count, const std::uint32_t* a, const std::uint32_t* b,
                      const std::uint32_t* c, std::uint32_t* d, Datapath path = Datapath::fast);

// `tiles` whole tiles of the instruction, every output element computed: a holds tiles × M×K
// (row-major), b tiles × K×N column-major (column j of B at j·K, as every tile-level call and
// the probes take it), c and d tiles × M×N row-major. Element (i, j) of a tile equals mma_element of A's row
// i, B's column j and C(i, j); rows and columns are decoded once per tile. Returns how many
// elements took the reference.
std::size_t mma_tiles(const MmaPlan& plan, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                      const std::uint32_t* c, std::uint32_t* d, Datapath path = Datapath::fast);

}  // namespace tcnum
