// Reveal: find the schedule (tcnum/core/schedule.hpp) a black-box GEMM follows.
//
// The black box computes D = A·B (C = +0) for one instruction's types: A M×K and B K×N row-major
// raw bits (in.a_type, in.b_type; for a tf32 instruction the f32 bits, which the box may round
// its own way), D M×N row-major raw bits of in.d_type. reveal_schedule runs it on input sets of
// the library input generator "tcnum-irwin12-v1" (library_inputs.hpp), in both distributions
// ("normal" N(0,1) and "wide" N(0,1)·2^U(−E,E), which exposes alignment), then tries candidate
// schedules on tcnum::gemm in order of how many choices they change from the default:
//   split_k 1..max_split, slice_rule balanced_steps / whole_tiles / interleaved_tiles,
//   tile_k among {in.k, 16, 32, 64, 128} (multiples of in.k), partial_tile last / first,
//   the partials added sequentially or as a pairwise tree (neighbours level by level, an odd
//   last one going up alone), and, for a tf32 instruction, tf32_operands truncate /
//   nearest_even / nearest_away.
// Candidates that resolve to the same k-steps, reduction and tf32 rounding for this K are tried
// once (the spelling with the fewest changes). The answer is the first candidate that
// reproduces every output bit of every input set, or none — with the best candidate and how
// many output elements it matched: never a guess.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/schedule.hpp"

namespace tcnum {

// (A bits, B bits) -> D bits, sizes as above. It may throw; reveal_schedule passes that on.
using GemmBlackBox =
    std::function<std::vector<std::uint32_t>(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b)>;

struct RevealOptions {
  int max_split = 8;        // split_k 1..max_split (1..256)
  std::uint64_t seed = 1;   // input set i of each distribution uses generator seed `seed + i`
  int input_sets = 2;       // input sets per distribution (1..16)
  int threads = 1;          // tcnum::gemm's worker threads per candidate (0: every core)
};

struct RevealResult {
  std::optional<Schedule> schedule;  // the schedule found; empty: no candidate fits
  Schedule best;                     // the candidate that matched most (the found one if any)
  std::size_t best_matched = 0;      // its matching output elements, over every input set
  std::size_t total = 0;             // output elements compared per candidate: sets × 2 × M × N
  std::size_t tried = 0;             // candidates run
  std::size_t candidates = 0;        // distinct candidates for this instruction and K
};

// The distinct candidates for `in` and K, in the order reveal_schedule tries them (the default
// schedule first). Throws std::invalid_argument on K < 1 or max_split outside 1..256.
std::vector<Schedule> reveal_candidates(const Instruction& in, int k, int max_split);

// The schedule of `black_box` for instruction `in` at M×N×K, candidates computed on `model`.
// Throws std::invalid_argument on sizes < 1 (or M·N·K above 2^34), a block-scaled instruction,
// options out of range, or a black box that returns other than M·N values.
RevealResult reveal_schedule(const Model& model, const GemmBlackBox& black_box, const Instruction& in, int m, int n,
                             int k, const RevealOptions& opt = {});

}  // namespace tcnum
