// One validated GEMM call with its resolved schedule (internal to the GEMM driver): the k-steps
// in the order they run, the chains they form, one k-step on the reference datapath, and the
// reduction of an element's chain results (gemm_reduction.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "tcnum/core/gemm.hpp"
#include "tcnum/core/plan.hpp"
#include "tcnum/core/schedule.hpp"

namespace tcnum::detail {

// A tensor-core chain: k-steps [begin, end) of the flattened step list, each step's D the next
// step's C; from_c: its first step takes the call's C (in.c_type), else it starts from +0.
struct Chain {
  int begin = 0, end = 0, slice = 0;
  bool from_c = false;
};

struct GemmCall {
  const Instruction& in;
  Instruction chained;  // steps after a chain's first: C is the running D, in D's type
  const DatapathParams& params;
  std::size_t M = 0, N = 0, K = 0, ik = 0;
  const std::uint32_t *a = nullptr, *b = nullptr, *c = nullptr;  // A, B after tf32 rounding if asked
  const BlockScales* scales = nullptr;
  std::size_t scales_per_k = 0;           // K / in.scale_block
  std::vector<std::uint32_t> scale_bt;    // B's scales transposed: column j's contiguous
  ResolvedSchedule schedule;
  std::vector<KStep> steps;  // every slice's k-steps, slice after slice, in run order
  std::vector<Chain> chains;  // in step order; a slice's chains are consecutive
  std::uint32_t a_zero = 0, b_zero = 0, d_zero = 0;
  int threads = 0;

  GemmCall(const Instruction& instruction, const DatapathParams& p) : in(instruction), chained(instruction), params(p) {
    chained.c_type = instruction.d_type;
  }
  // D after one k-step (position t of `steps`) for element (i, j), from `acc`.
  std::uint32_t reference_step(std::size_t i, std::size_t j, int t, bool from_c, std::uint32_t acc) const;
  // D's bits from the element's chain results (one per chain, in order) and its C.
  std::uint32_t combine(const std::uint32_t* chain_results, std::uint32_t c_bits) const;
  // True when D is the single chain's result as it stands (no slices, no promotion, C inside).
  bool single_chain() const {
    return chains.size() == 1 && schedule.source.c_entry == CEntry::first_slice && !schedule.source.serial &&
           (schedule.source.partial_format == ReductionFormat::fp32 || schedule.source.partial_format == ReductionFormat::d);
  }
};

// The pool's worker count for `requested`, capped where threads would cost more than they save.
int thread_count(int requested, std::size_t tasks, std::size_t calls);

// The fast engine (gemm_fast.cpp): D for every element through the compiled plans.
void run_fast(const GemmCall& call, const MmaPlan& first, const MmaPlan& rest, std::uint32_t* d);

// gemm for a schedule with regions (gemm_regions.cpp): D, then each region's own schedule.
std::vector<std::uint32_t> gemm_by_regions(const Model& model, const Instruction& in, int m, int n, int k,
                                           const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                                           const std::vector<std::uint32_t>& c, const GemmOptions& opt);

}  // namespace tcnum::detail
