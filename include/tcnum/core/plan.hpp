// A compiled plan per (model parameters, instruction): everything in DatapathParams resolved
// once (product schedule, blocks, where C enters, floors, block formats, rounding), so that
// mma_element, mma_tile, gemm and replay read the plan instead of the rules. A kernel test that
// checks many tiles compiles its plan once.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

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

// One block of the fast program: an addend plus the products at schedule positions
// [first, last), aligned, truncated, summed exactly and rounded into `target`.
struct PlanBlock {
  enum class Addend : std::uint8_t { c, previous, zero };
  Addend addend = Addend::c;
  int first = 0, last = 0;
  Format target = Format::fp32;  // fp32 or fp16
  int target_frac_bits = 23;     // fraction bits kept (a block_result_frac_bits cut, or the format's)
  bool nearest_even = false;     // else toward zero
  // Bit t set where the instruction's product t (its k index, before scheduling) is in this
  // block; 0 for K > 64. A single element lays its products out in k order and picks each
  // block's by this mask.
  std::uint64_t members = 0;
};

struct MmaPlan {
  Instruction instruction;
  DatapathParams params;
  std::vector<int> schedule;  // product_schedule(params, instruction.k)

  // The fast integer kernel applies (see docs/benchmarks.md, "fast path"); otherwise every
  // element takes the reference datapath and `reference_only` says why.
  bool fast = false;
  std::string reference_only;
  std::vector<PlanBlock> blocks;
  bool c_added_after = false;   // AddendEntry::ieee_add: D = RNE(C + chain result)
  Format a_seen = Format::fp16, b_seen = Format::fp16;  // operand formats after unpack_format
  int product_shift = 0;        // F minus the fraction bits of a product
  bool sum_fits_int32 = false;  // a block's aligned terms plus C's always fit int32 (no overflow check)
  // A block's aligned terms could exceed int32 (K = 32 fp8/FP6/FP4 with 25 kept bits): the
  // 16-lane step sums them in int32 and hands back the lanes whose float sum of the products
  // comes near 2^31 (rare: the bound needs nearly all products at the block's top exponent and
  // significand); a single element sums its lanes in double, scaled groups in 64-bit lanes.
  bool wide_sum = false;
  // Block-scaled (scales enter through the planes, which only gemm builds with scales;
  // mma_element, mma_batch and mma_tiles, which take none, give such a plan to the reference):
  // with one term per product (scale_group 1) and scales without significand bits (ue8m0),
  // each scale is folded into its operand's exponent plane (scales_in_exponents); with scaled
  // groups (scale_group > 1) each operand is held as a fixed-point integer times its scale's
  // significand and carries its scale's exponent alone (scaled_groups): a group's exact sum is
  // a float sum of its products, aligned by group_shift + the two scales' exponents - emax.
  bool scales_in_exponents = false;
  bool scaled_groups = false;
  int group_shift = 0;  // F + both operands' fixed-point units' exponents - both scales' fraction bits
  int align_floor = 0;          // the alignment-exponent floor, or kNoFloor
  static constexpr int kNoFloor = -(1 << 24);
  // The fast kernel's single-element function for these formats and K, resolved by compile_plan
  // for the instruction set dispatched on this machine (null where the plan is not fast).
  bool (*element_kernel)(const MmaPlan&, const std::uint32_t* a, const std::uint32_t* b, std::uint32_t c,
                         std::uint32_t& d) = nullptr;
};

// Validates the parameters for the instruction (throws std::invalid_argument, naming it).
MmaPlan compile_plan(const DatapathParams& p, const Instruction& in);
inline MmaPlan compile_plan(const Model& m, const Instruction& in) { return compile_plan(m.params_for(in), in); }

// One output element through the plan: the fast kernel where it applies, else the reference.
std::uint32_t mma_element(const MmaPlan& plan, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                          std::uint32_t c);
// The fast kernel alone for one element: D into d, or false (d untouched) where the element
// needs the reference (a plan that is not fast, NaN/Inf, a result that is not a normal number,
// ...). mma_element is this, then the reference where it says false.
bool mma_element_fast(const MmaPlan& plan, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                      std::uint32_t c, std::uint32_t& d);

// `count` independent elements: a and b hold count×k raw elements (case t at t·k), c and d count.
// Returns how many of them the fast kernel handed to the reference (all of them when the plan
// is not fast).
std::size_t mma_batch(const MmaPlan& plan, std::size_t count, const std::uint32_t* a, const std::uint32_t* b,
               const std::uint32_t* c, std::uint32_t* d);

// `tiles` whole tiles of the instruction, every output element computed: a holds tiles × M×K
// (row-major), b tiles × K×N column-major (column j of B at j·K, as every tile-level call and
// the probes take it), c and d tiles × M×N row-major. Element (i, j) of a tile equals mma_element of A's row
// i, B's column j and C(i, j); rows and columns are decoded once per tile. Returns how many
// elements took the reference.
std::size_t mma_tiles(const MmaPlan& plan, std::size_t tiles, const std::uint32_t* a, const std::uint32_t* b,
                      const std::uint32_t* c, std::uint32_t* d);

// A block-scaled instruction's element: scale_a holds the in.scales_per_row() scales of A's row,
// scale_b those of B's column (raw in.scale_type bits). Always the reference datapath.
std::uint32_t mma_element(const MmaPlan& plan, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                          std::uint32_t c, std::span<const std::uint32_t> scale_a, std::span<const std::uint32_t> scale_b);

// The reference datapath (the scalar oracle the fast kernel is tested against): the same
// function as mma_element, computed term by term with exact wide sums.
std::uint32_t mma_element_reference(const DatapathParams& p, const Instruction& in, std::span<const std::uint32_t> a,
                                    std::span<const std::uint32_t> b, std::uint32_t c);
// The same with the scale vectors of a block-scaled instruction (empty spans otherwise).
std::uint32_t mma_element_reference(const DatapathParams& p, const Instruction& in, std::span<const std::uint32_t> a,
                                    std::span<const std::uint32_t> b, std::uint32_t c,
                                    std::span<const std::uint32_t> scale_a, std::span<const std::uint32_t> scale_b);
// The same datapath (one implementation) reading the plan's product schedule instead of
// rebuilding it: the path of every element the fast kernel hands back.
std::uint32_t mma_element_reference(const MmaPlan& plan, std::span<const std::uint32_t> a,
                                    std::span<const std::uint32_t> b, std::uint32_t c,
                                    std::span<const std::uint32_t> scale_a = {},
                                    std::span<const std::uint32_t> scale_b = {});

// The instruction set the fast kernel was dispatched to on this machine: on x86, "avx512",
// "avx2" or "baseline" (SSE2), and TCNUM_SIMD=baseline|avx2|avx512 in the environment caps it (a
// request above what the CPU has is ignored); elsewhere "portable" (the compiler's own vectors).
const char* simd_path();
// What the CPU offers, independent of TCNUM_SIMD.
const char* simd_best_available();

}  // namespace tcnum
