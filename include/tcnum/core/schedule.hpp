// A GEMM schedule: what a kernel does around its MMA instruction, as data.
//
// tcnum::gemm computes each output element as chains of instruction k-steps. A schedule says
//   * how K is cut into slices (split-K): a count (balanced k-steps, or whole k-tiles per
//     slice with a short last slice, as cuBLAS's split-K kernels do) or explicit boundaries;
//   * how each slice is cut into k-steps: in k-tiles of tile_k, with the partial tile first
//     (CUTLASS 2.x) or last (zero padding at the end), each tile in instruction steps of in.k;
//   * promotion: within a slice, a tensor-core chain of `promotion` k-steps is added into an
//     fp32 accumulator (CUDA-core FADD), as CUTLASS's and cuBLASLt's FP8 kernels do;
//   * the reduction of the slices' partials: sequential in slice order, or an explicit binary
//     tree, with fp32 or D-format additions; where C enters (as slice 0's MMA C, or added
//     after the reduction);
//   * K padded with zeros first (k_padded), where a framework pads before it slices;
//   * regions of D with a schedule of their own (segment-K: only some output tiles split);
//   * how f32 operands become tf32 (truncated, as the instruction reads them, or rounded to
//     nearest even first, as cuBLAS's TF32 kernels do).
// GemmOptions{k_order, split_k} are special cases (schedule_from_options).
//
// A schedule is K-independent unless it names explicit boundaries; resolve_schedule() turns it
// into the explicit k-steps of one call (ResolvedSchedule), which the GEMM driver interprets.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tcnum/core/instruction.hpp"

namespace tcnum {

struct GemmOptions;

// How split_k slices are sized when no explicit boundaries are given.
enum class SliceRule : std::uint8_t {
  balanced_steps,  // steps/S k-steps each, the first steps % S one longer (tcnum's split_k)
  whole_tiles,     // ceil(K / (S·g))·g of K each, g = slice_align (default tile_k), the last
                   // slice short: cuBLAS splitK (g = its k-tile), CUTLASS 2.x (g = 128 bits of A)
  interleaved_tiles,  // k-tiles dealt round robin: slice s takes tiles s, s + S, s + 2S, ... in
                      // ascending k (cuBLASLt algo 63, sm80_xmma split-K); the last tile partial
};
enum class PartialTile : std::uint8_t { last, first };
// The format partials are stored in, and additions of the reduction round to: fp32, the
// instruction's D, or a narrower output type (cuBLAS's split-K with bf16/f16 output).
enum class ReductionFormat : std::uint8_t { fp32, d, fp16, bf16 };
// Where C enters: as the first chain's MMA C; added in fp32 to slice 0's partial before the
// reduction (a serial split-K kernel's first epilogue, β·C with β = 1); or added in fp32 after
// the reduction.
enum class CEntry : std::uint8_t { first_slice, first_partial, after_reduction };
// f32 operands of a tf32 instruction: truncated (what the instruction does with f32 bits), rounded
// to nearest even (cuBLAS's TF32 kernels), or to nearest with ties away from zero (cvt.rna.tf32.f32:
// XLA's Triton GEMM fusions at default precision).
enum class Tf32Operands : std::uint8_t { truncate, nearest_even, nearest_away };

struct ScheduleRegion;

struct Schedule {
  // --- slices -----------------------------------------------------------------------------
  int split_k = 1;                                 // slice count (ignored with slice_bounds)
  SliceRule slice_rule = SliceRule::balanced_steps;
  std::vector<int> slice_bounds;                   // explicit: 0 = b0 < b1 < ... < bS = K
  int slice_align = 0;                             // whole_tiles' granule in k; 0 = tile_k
  // K padded with zeros to this length before it is cut (XLA's split-K rewrite pads K to
  // S·k_per_split, so its last slice's k-tiles start where a full slice's would); 0 = K.
  int k_padded = 0;
  // --- k-steps inside a slice ---------------------------------------------------------------
  int tile_k = 0;                                  // the kernel's k-tile, a multiple of in.k; 0 = in.k
  PartialTile partial = PartialTile::last;
  std::vector<int> k_order;                        // permutation of the k-steps (one ascending tiling only)
  // Which logical k fills each k-slot of a k-tile: slot t of every tile of `tile_k` takes k offset
  // tile_k_order[t] (a permutation of 0..tile_k-1; K a multiple of tile_k). Empty: in order.
  // Triton's MMAv2 with fp8 operands upcast to f16 (kWidth 4) deals the pairs of a 32-wide tile
  // over its two k16 instructions: [0, 1, 4, 5, ..., 28, 29, 2, 3, 6, 7, ..., 30, 31].
  std::vector<int> tile_k_order;
  // --- accumulation ---------------------------------------------------------------------------
  int promotion = 0;                               // k-steps per chain before an fp32 add; 0 = never
  // Postfix program over the slices' partials: s >= 0 pushes partial s, -1 pops two and pushes
  // their sum (first popped is the right operand). Empty: sequential (((p0 + p1) + p2) + ...).
  std::vector<int> reduction_tree;
  ReductionFormat reduction_format = ReductionFormat::fp32;
  // Each slice's partial is rounded to this format before the reduction (a workspace or an
  // output of that type); fp32: unchanged.
  ReductionFormat partial_format = ReductionFormat::fp32;
  // Serial split-K (CUTLASS 2.x semaphores): slice 0 writes its partial, rounded to
  // reduction_format, and each next slice adds its fp32 partial to what is written, rounding
  // again. Needs the sequential reduction (no tree).
  bool serial = false;
  CEntry c_entry = CEntry::first_slice;
  // With C after the reduction: the reduced sum is rounded to this format before C is added
  // (cuBLAS's split-K reduction writes D in the output type, then its bias epilogue adds).
  ReductionFormat sum_format = ReductionFormat::fp32;
  Tf32Operands tf32_operands = Tf32Operands::truncate;
  // Free text: where the schedule comes from (a library plan's provenance); not interpreted.
  std::string note;
  // --- output tiles -------------------------------------------------------------------------
  // Rectangles of D that run a schedule of their own (cuBLAS's segment-K kernels split only
  // some output tiles); the rest of D runs this one. Disjoint, inside D, one level deep.
  std::vector<ScheduleRegion> regions;

  bool operator==(const Schedule&) const = default;
};

// Rows [row_begin, row_end) and columns [col_begin, col_end) of D, and their schedule.
struct ScheduleRegion {
  int row_begin = 0, row_end = 0, col_begin = 0, col_end = 0;
  Schedule schedule;
  bool operator==(const ScheduleRegion&) const = default;
};

// One instruction k-step: source k in [begin, begin + length), zero-padded up to in.k.
struct KStep {
  int begin = 0;
  int length = 0;
  bool operator==(const KStep&) const = default;
};

// A schedule made explicit for one call: the k-steps of every slice in the order they run, the
// reduction as a postfix program over the slices (never empty: the sequential one written
// out), and the schedule it came from (its accumulation fields apply as they are).
struct ResolvedSchedule {
  std::vector<std::vector<KStep>> slices;
  std::vector<int> reduction_program;
  Schedule source;
};

// The schedule GemmOptions{k_order, split_k} has always meant.
Schedule schedule_from_options(const GemmOptions& opt);

// Explicit k-steps for K and instruction `in`. Throws std::invalid_argument naming the field
// on anything inconsistent (bounds not increasing or not ending at K, tile_k not a multiple of
// in.k, k_order not a permutation, a tree that is not a binary tree over every slice once, ...).
ResolvedSchedule resolve_schedule(const Schedule& s, const Instruction& in, int k);
// resolve_schedule's checks alone, in time and memory independent of K (for calls with an empty D).
void check_schedule(const Schedule& s, const Instruction& in, int k);

// JSON (docs/libraries.md, "The schedule language"). parse_schedule throws
// std::invalid_argument naming the key on unknown keys, duplicate keys, wrong types or values.
Schedule parse_schedule(const std::string& json_text);
std::string schedule_to_json(const Schedule& s);

// tf32 bits rounded to nearest even at tf32's precision (10 fraction bits; NaN and Inf kept).
std::uint32_t round_tf32(std::uint32_t f32_bits);
// tf32 bits rounded to nearest, ties away from zero (PTX cvt.rna.tf32.f32; NaN and Inf kept).
std::uint32_t round_tf32_away(std::uint32_t f32_bits);

}  // namespace tcnum
