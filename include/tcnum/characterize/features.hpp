// Feature discovery: designed input recipes that reveal, from outside, how a tensor-core
// instruction computes d = c + sum_k a_k*b_k — and a fit that turns their readings into a
// tcnum model. Every test treats the instruction as a black box (the emulator with some
// model, or a real GPU through the probes), so the same code characterises both and a
// new GPU can be compared with a built-in model. docs/numprobe.md explains every recipe,
// its verdict rule and its source.
//
// Also here: the element-wise profiling of Sun et al., "Dissecting Tensor Cores via
// Microbenchmarks" (IEEE TPDS 2023), §8.1, Fig. 16, Tables 12-15.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tcnum/core/black_box.hpp"
#include "tcnum/core/format.hpp"
#include "tcnum/reference/frozen_corpus_generators.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/characterize/recipes.hpp"

namespace tcnum::features {

// ---------------------------------------------------------------------------------------
// Black boxes

// Every test runs on a tcnum::BlackBox (tcnum/core/black_box.hpp): emulator_box(model), the
// exact box, or device::device_box(). Recipes put every case they can decide up front into one
// batch (one GPU launch).

// A sparse instruction's box seen as the box of its selected form (selected_form(sparse): the
// same types, K/2, dense), which is what its datapath computes (docs/models.md §9): each case
// of K/2 elements of A and B is given to the sparse instruction with A's elements stored, every
// valid metadata value in turn, B's elements at the selected positions and B's largest finite
// magnitude in the rows no stored element meets. run_features runs a sparse instruction's tests
// through it. Throws std::invalid_argument for a dense instruction, and (when called) for a case
// of another instruction or size.
BlackBox selected_products_box(const Instruction& sparse, const BlackBox& box);

// ---------------------------------------------------------------------------------------
// Feature tests (numprobe --op ...)

// scale, product, align, carry, normalize, round, blocksize, order, subnormal, special, monotonic
const std::vector<std::string>& feature_names();
bool is_feature(const std::string& name);
std::string feature_source(const std::string& name);  // the publications the recipe follows

struct Fact {
  std::string key;
  std::variant<bool, std::int64_t, std::string> value;
};

// One designed input and what the black box returned.
struct ProbeRow {
  std::string label;    // what the case holds, e.g. "2^30 - 2^30 + 2^(30-25)"
  std::string got;      // D, decoded (and its bits)
  std::string reading;  // what the verdict rule reads from it, e.g. "kept"
  std::string model;    // what a reference model predicts (set when one is given), "" otherwise
  bool agrees = true;   // got == the reference model's prediction (true when there is none)
};

struct FeatureReport {
  std::string feature;
  std::string instruction;
  bool applicable = true;              // false: the recipe cannot run on this instruction (verdict says why)
  std::string verdict;                 // one paragraph for people
  std::string source;
  std::vector<Fact> facts;             // machine-readable findings (JSON)
  std::vector<ProbeRow> probes;
  std::vector<std::string> anomalies;  // readings no model of tcnum's datapath family explains
  // The published recipes (tcnum/characterize/recipes.hpp) that measure the same feature, run on the same
  // black box as a cross-check (their probe lists dropped).
  std::vector<recipes::RecipeVerdict> published;
  std::size_t cases = 0;               // black-box evaluations spent
};

struct FeatureOptions {
  const DatapathParams* reference = nullptr;  // fills each probe row's `model` column
  bool published = true;                      // also run the published recipes of each feature
};

// What the recipes measured about one instruction; fields the probes could not decide stay empty.
struct Measurement {
  std::optional<int> frac_bits;          // F
  bool frac_bits_at_least = false;       // F >= *frac_bits (the probes ran out of range)
  std::optional<int> block_size;         // Kb
  bool block_size_at_least = false;      // no break inside a pass: Kb >= K / k_passes
  std::optional<int> k_passes, pass_interleave;
  std::optional<AddendEntry> addend;
  std::optional<Format> block_format;
  std::optional<Rounding> block_rounding;
  std::optional<Rounding> output_rounding;
  std::optional<bool> output_direct;
  std::optional<bool> flush_subnormal_inputs;
  std::optional<bool> overflow_to_inf;
  std::optional<int> block_result_frac_bits;  // 0: block results keep the block format's precision
  std::optional<bool> negative_zero_results;
  std::optional<std::optional<Format>> unpack_format;  // decided: none, or the format A/B are unpacked to
  std::optional<std::optional<int>> align_exponent_floor;  // decided: none, or the floor
  std::optional<int> scale_group;  // block-scaled: 1 (each scaled product a term) or > 1 (scaled groups)
};

// Runs the named tests (and, quietly, the ones they depend on: most need Kb and F first).
std::vector<FeatureReport> run_features(const Instruction& in, const BlackBox& box, const std::vector<std::string>& names,
                                        const FeatureOptions& opt = {});

// ---------------------------------------------------------------------------------------
// Fitting a model (numprobe fit)

struct InstructionFit {
  Instruction instruction;
  Measurement measured;
  DatapathParams params;  // the measurement, with tcnum's defaults where it decided nothing
  std::vector<FeatureReport> reports;
  std::size_t verified = 0, verify_total = 0;  // probes + random cases the fitted params reproduce
  std::vector<std::string> issues;             // why the fit may be wrong (no candidate matched, ...)
  // Everything the black box was asked, with its answers: the model assembly keeps a rule for
  // an instruction only if the rule reproduces all of them.
  std::vector<Case> cases;
  std::vector<std::uint32_t> outputs;
};

struct FitOptions {
  std::uint64_t seed = 1;
  std::size_t random_cases = 100;  // per generator distribution, for the final verification
  FeatureOptions features;
};

InstructionFit fit_instruction(const Instruction& in, const BlackBox& box, const FitOptions& opt = {});

// The instructions `fit --instr all` probes on sm: one per distinct (family, M, K, types),
// the smallest N; m8n8k4 only on sm_70; not Blackwell's kind:: instructions (FP6/FP4, scales).
std::vector<Instruction> fit_instructions(int sm);
// The sparse forms `features --instr sparse` runs on sm (on their selected products): one per
// (family, M, K, types), the smallest N; not the integer ones (nothing to read).
std::vector<Instruction> sparse_feature_instructions(int sm);

// Merges per-instruction fits into a model with few rules: a catch-all rule for the most
// common datapath, then input-class rules, then (family, inputs[, d_type]) rules.
Model assemble_model(const std::string& name, int sm, const std::string& description,
                     const std::vector<InstructionFit>& fits, const std::string& source);

// The parameters as they act on `in`: fields that cannot change any result of `in` are
// reset to tcnum's defaults (Kb beyond K, output rounding for f32 D, ...).
DatapathParams effective_params(const DatapathParams& p, const Instruction& in);

// Every instruction of sm on which the two models compute different functions (by their
// effective parameters), one line each; empty when they are the same model on sm.
std::vector<std::string> compare_models(const Model& a, const Model& b, int sm);
std::vector<std::string> compare_models(const Model& a, const Model& b, const std::vector<Instruction>& instrs);
// One line: "F=25 Kb=16 blocks f32/rz out rne direct C first ...".
std::string params_text(const DatapathParams& p);

// ---------------------------------------------------------------------------------------
// Element-wise profiling after Sun et al. §8.1 (numprobe --op multiply|inner|accumulate)

enum class ProfileOp : std::uint8_t { multiply, inner, accumulate };
enum class Init : std::uint8_t { low, fp32 };

std::string_view name_of(ProfileOp op);
std::string_view name_of(Init init);

struct ProfileCell {
  ProfileOp op = ProfileOp::multiply;
  Init init = Init::low;
  std::size_t trials = 0;
  double vs_cpu_fp32 = 0;          // mean |D - FP32 CPU result|
  double vs_cpu_fp32_cvt = 0;      // f16 D only: mean |D - f16(FP32 CPU result)|
  double vs_exact = 0;             // mean |D - exact value of what the tensor core received| (MPFR)
  std::size_t differ_cpu_fp32 = 0, differ_cpu_fp32_cvt = 0, differ_exact = 0;  // trials with a nonzero error
};

// `trials` cases of one set-up. Each trial draws x0, x1, x2 ~ N(0,1) (FP32, fixed seed, the
// same draws for every dtype, op and init); every other element of A, B and C is +0:
//   multiply    d = a0*b0          a0 = x0, b0 = x1
//   inner       d = a0*1 + a1*1    a0 = x0, a1 = x2 (the products are exact; only the addition acts)
//   accumulate  d = a0*1 + c0      a0 = x0, c0 = x2 (a0 as in inner; c0 is inner's a1)
// Init::low: each operand is drawn in the format the instruction reads it in (A/B in the
// low format, C in C's format), so nothing is converted on the way in; Init::fp32: every
// operand is an FP32 draw, converted (nearest even) into the instruction's formats, while
// the CPU baseline keeps the FP32 values.
// `c_in_input_format`: with Init::low, accumulate's c0 is drawn in A's format (then widened
// exactly into C's) instead of C's own format — the paper's FP16/TF32 set-ups (docs/numprobe.md).
ProfileCell profile(const Instruction& in, const BlackBox& box, ProfileOp op, Init init, std::size_t trials,
                    std::uint64_t seed, bool c_in_input_format = false);

}  // namespace tcnum::features
