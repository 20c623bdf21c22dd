// The fast kernel's program: what compile_plan derives for the kernel from a model and an
// instruction (emu/core/plan.cpp), and what only the kernel reads (emu/core/fast_kernel*,
// gemm_fast.cpp, plan_tiles.cpp). Not part of the API: it changes with the kernel. MmaPlan
// carries it (tcnum/core/plan.hpp); white-box tests of the kernel read it here.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "tcnum/core/format.hpp"

namespace tcnum {
struct MmaPlan;
}

namespace tcnum::detail {

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

struct FastProgram {
  std::vector<int> schedule;  // product_schedule(params, instruction.k)
  std::vector<PlanBlock> blocks;
  bool c_added_after = false;   // AddendEntry::ieee_add: D = RNE(C + chain result)
  Format a_seen = Format::fp16, b_seen = Format::fp16;  // operand formats after unpack_format
  int product_shift = 0;        // F minus the fraction bits of a product
  bool sum_fits_int32 = false;  // a block's aligned terms plus C's always fit int32 (no overflow check)
  // A block's aligned terms could exceed int32 (K = 32 fp8/FP6/FP4 with 25 kept bits): the
  // 16-lane step sums them in int32 runs of wide_run products (each run's sum provably fits) and
  // joins the runs with overflow flags, handing back the rare lane whose sum passes int32 (it
  // needs nearly all products at the block's top exponent and significand); a single element
  // sums its lanes in double, scaled groups in 64-bit lanes.
  bool wide_sum = false;
  int wide_run = 0;  // products per int32 partial sum of a wide_sum block
  // Block-scaled (scales enter through the planes, which only gemm builds with scales; the
  // element, batch and tile calls, which take none, give such a plan to the reference): with
  // one term per product (scale_group 1) and scales without significand bits (ue8m0), each
  // scale is folded into its operand's exponent plane (scales_in_exponents); with scaled groups
  // (scale_group > 1) each operand is held as a fixed-point integer times its scale's
  // significand and carries its scale's exponent alone (scaled_groups): a group's exact sum is
  // a float sum of its products, aligned by group_shift + the two scales' exponents - emax.
  bool scales_in_exponents = false;
  bool scaled_groups = false;
  int group_shift = 0;  // F + both operands' fixed-point units' exponents - both scales' fraction bits
  int align_floor = 0;  // the alignment-exponent floor, or kNoFloor
  static constexpr int kNoFloor = -(1 << 24);
  // The kernel's single-element function for these formats and K, resolved by compile_plan for
  // the instruction set dispatched on this machine (null where the plan is not fast).
  bool (*element_kernel)(const MmaPlan&, const std::uint32_t* a, const std::uint32_t* b, std::uint32_t c,
                         std::uint32_t& d) = nullptr;
};

// The fast kernel alone for one element: D into d, or false (d untouched) where the element
// needs the reference (a plan that is not fast, NaN/Inf, a result that is not a normal number,
// ...). mma_element(plan, ...) is this, then the reference where it says false.
bool fast_element_only(const MmaPlan& plan, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                       std::uint32_t c, std::uint32_t& d);

}  // namespace tcnum::detail
