// Published probe recipes: input vectors with a verdict rule, run against a black box that
// evaluates one output element d = c + sum_k a_k*b_k of an MMA instruction.
//
// The same recipe runs on any tcnum::BlackBox (tcnum/core/black_box.hpp): the emulator, the exact reference or a GPU,
// so numprobe's feature discovery can reuse it. Every recipe names its paper and section;
// docs/models.md lists which verdict each paper reports for which GPU.
//
// Sources:
//   Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor cores",
//     PeerJ Comput. Sci. 7:e330 (2021), test suite sections A-D (the authors' code:
//     github.com/north-numerical-computing/tensor-cores-numerical-behavior).
//   Khattak, Mikaitis, "Generalized methodology for determining numerical features of hardware
//     floating-point matrix multipliers: Part I", IEEE HPEC 2025 (the authors' code:
//     github.com/faiziktk/IEEE_HPEC2025_block_FMA_tests, nvidia-tests.cu, features 1-8), used
//     again in Khattak, Mikaitis, "Accurate models of NVIDIA tensor cores", arXiv 2512.07004.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tcnum/core/black_box.hpp"
#include "tcnum/core/case.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace tcnum {

namespace recipes {

// One evaluation a recipe made, kept for reports.
// An Observation (the case and what the black box returned) with what it tests.
struct Probe : Observation {
  std::string what;  // e.g. "c = 1, a*b = [2^-24, 2^-24]"
  std::optional<std::uint32_t> expected;  // what the recipe's pass rule wants, where it has one
};

// The outcome of one recipe on one instruction.
struct RecipeVerdict {
  std::string recipe;      // stable id, e.g. "fasi2021.D1.extra_alignment_bits"
  std::string source;      // paper and section
  bool applicable = true;  // false: the instruction cannot carry the recipe's inputs (see note)
  bool passed = false;     // the recipe's own pass rule (what the authors' suite prints as [PASS])
  std::string verdict;     // label: "toward_zero", "late", "supported", "none", ...
  int value = -1;          // a measured number (extra bits, FMA size, kept bits), -1 if none
  bool lower_bound = false;  // value is only a lower bound (e.g. the FMA size reached K)
  std::string note;
  std::vector<Probe> probes;
};

// ---------------------------------------------------------------------------------------
// Fasi, Higham, Mikaitis, Pranesh 2021. Their suite has GPU-specific vectors where the
// hardware differed; `Variant` picks the vectors of the V100 file or of the T4/A100 files.
enum class FasiVariant : std::uint8_t { volta, turing_ampere };
// The variant whose vectors fit `in`: volta for Volta's m8n8k4, else turing_ampere.
FasiVariant fasi_variant(const Instruction& in);

// A. Support for subnormal numbers.
RecipeVerdict fasi_subnormal_inputs(const BlackBox& f, const Instruction& in);    // A: min subnormal * 2^p
RecipeVerdict fasi_subnormal_c(const BlackBox& f, const Instruction& in);         // A: fp32 subnormal C in, out
RecipeVerdict fasi_subnormal_outputs(const BlackBox& f, const Instruction& in);   // A: results in D's subnormal range
// B. Accuracy of the dot products.
RecipeVerdict fasi_exact_products(const BlackBox& f, const Instruction& in);      // B: (1-u)^2 kept exactly
RecipeVerdict fasi_exact_products_fp16_out(const BlackBox& f, const Instruction& in);  // B: binary16 mode
RecipeVerdict fasi_accumulation_width(const BlackBox& f, const Instruction& in, FasiVariant v);  // B: "accumulated in binary32"
RecipeVerdict fasi_sum_from_largest(const BlackBox& f, const Instruction& in, FasiVariant v);   // B: alignment on the largest
// C. Rounding modes.
RecipeVerdict fasi_rounding_fp32_out(const BlackBox& f, const Instruction& in);   // C: round-down +, round-up -
RecipeVerdict fasi_rounding_fp16_out(const BlackBox& f, const Instruction& in);   // C: binary16 mode to nearest
// D. Features of the accumulator.
RecipeVerdict fasi_extra_alignment_bits(const BlackBox& f, const Instruction& in, FasiVariant v);  // D1
RecipeVerdict fasi_normalization_addition(const BlackBox& f, const Instruction& in);  // D2
RecipeVerdict fasi_normalization_subtraction(const BlackBox& f, const Instruction& in, FasiVariant v);  // D3
RecipeVerdict fasi_carry_out_bits(const BlackBox& f, const Instruction& in);   // D4
RecipeVerdict fasi_monotonicity(const BlackBox& f, const Instruction& in, FasiVariant v);  // D5

// ---------------------------------------------------------------------------------------
// Khattak & Mikaitis, HPEC 2025 ("generalized test vectors"). p_out = 24 (fp32 D) unless noted.
RecipeVerdict km_extra_alignment_bits(const BlackBox& f, const Instruction& in);   // feature 1: value 0, 1 or 2 (=2: >= 2)
RecipeVerdict km_fma_size(const BlackBox& f, const Instruction& in);               // feature 3: value = FMA size
RecipeVerdict km_extra_carry_bits(const BlackBox& f, const Instruction& in);       // feature 2: value = necb
RecipeVerdict km_normalisation_pattern(const BlackBox& f, const Instruction& in);  // feature 4: "late" / "immediate_*"
RecipeVerdict km_output_rounding(const BlackBox& f, const Instruction& in);        // features 5 (fp32 D), 6 (fp16 D)
RecipeVerdict km_alignment_rounding(const BlackBox& f, const Instruction& in, int neab);      // feature 7
RecipeVerdict km_multi_block_rounding(const BlackBox& f, const Instruction& in, int fma_size);  // feature 8

// ---------------------------------------------------------------------------------------
// tcnum's generalisations (not published vectors): they measure the same quantities over any
// input format, including fp8, by scaling the vectors into the formats' ranges.

// F, the fraction bits kept below the largest nominal exponent: value = F (needs fp32 D; an
// e8m13 block result also works). Products 2^E and -2^(E-t): the small one survives iff t <= F.
RecipeVerdict probe_kept_fraction_bits(const BlackBox& f, const Instruction& in);
// Kb, the products fused per block: value = Kb. C = -2^E, a0*b0 = 2^E, a_j*b_j = 2^(E-s) with
// s beyond any F: the small product survives iff it is not in the first block.
RecipeVerdict probe_block_size(const BlackBox& f, const Instruction& in);

// All recipes that apply to `in` (Fasi with `v`, KM, tcnum), in a stable order.
std::vector<RecipeVerdict> run_all(const BlackBox& f, const Instruction& in, FasiVariant v);

}  // namespace recipes
}  // namespace tcnum
