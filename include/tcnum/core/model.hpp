// A model of the tensor-core datapath: plain data, built in per architecture or loaded from JSON.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tcnum/core/format.hpp"
#include "tcnum/core/instruction.hpp"

namespace tcnum {

// Where C joins the sum: aligned together with the first block's products, added (with the
// same alignment rule) as a block of its own after all products, or added to the rounded
// product chain by one exact IEEE addition rounded into D with output_rounding (the chain
// then starts from +0, as an MMA whose C is the zero register, followed by FADD/HADD2).
// after_products: C (and each later block's running result) joins every block after that
// block's products are summed, with alignments of its own (sum_round_down_bits,
// addend_round_down_bits, addend_drop_binades below; MMA-Sim's reading of AMD CDNA3).
enum class AddendEntry : std::uint8_t { first_block, last_block, ieee_add, after_products };

// Parameters of the one datapath (see docs/models.md for the meaning and evidence of each).
struct DatapathParams {
  int frac_bits = 24;       // F: fraction bits kept below the largest exponent when aligning
  int block_size = 8;       // Kb: products fused per step; 0 = all K in one block
  Format block_format = Format::fp32;           // where a block result lives before the next block
  Rounding block_rounding = Rounding::toward_zero;  // normalise+round of each block result
  Rounding output_rounding = Rounding::nearest_even;  // to D when D is narrower than block_format
  bool output_direct = true;  // last block rounds straight to D (no double rounding via block_format)
  AddendEntry addend = AddendEntry::first_block;
  bool flush_subnormal_inputs = false;
  bool overflow_to_inf = true;  // a finite sum beyond the format's range gives ±Inf (else ±max)
  // Precision of a block result: its significand is cut (block_rounding) to this many
  // fraction bits below its own leading bit before it is stored; 0 = block_format's own.
  int block_result_frac_bits = 0;
  // IEEE signs zero results (-0 from all -0 addends, or a negative value that underflows);
  // false: every zero result is +0.
  bool negative_zero_results = true;
  // A and B are converted (exactly) to this format before the datapath sees them, so their
  // nominal exponents are its own (sm_90 fp8 mma: unpacked to f16 for an f16 HMMA).
  std::optional<Format> unpack_format;
  // The K products run as this many chained passes (sub-MMAs); pass p takes the products k
  // with (k / pass_interleave) % k_passes == p, in order, cut into blocks of at most
  // block_size; each pass's result is the next pass's addend. 1 = one pass (all K in order).
  int k_passes = 1;
  int pass_interleave = 1;
  // The alignment exponent of a block is at least this (a floor under the largest nominal
  // exponent): terms are then truncated to 2^(max(emax, floor) - F). None = no floor.
  std::optional<int> align_exponent_floor;
  // Block-scaled instructions (Instruction::scale_block > 0): how the scales enter the fused sum.
  // 1: each product a_k·b_k·sa·sb is one term, its nominal exponent the sum of the four factors'
  // (MMA-Sim's Blackwell mxf8f6f4); g > 1: g consecutive products are summed exactly, the sum
  // multiplied by sa·sb, and that term aligned by the scales' exponents alone, zero or not
  // (MMA-Sim's mxf4/mxf4nvf4, g = 16). Must divide scale_block. Ignored without block scaling.
  int scale_group = 1;
  // addend == after_products only. The block's product sum (its terms aligned and truncated
  // with frac_bits below the largest product exponent) is rounded down (toward -Inf) to
  // sum_round_down_bits fraction bits below E = max(products' exponent, addend's nominal
  // exponent), the addend to addend_round_down_bits below E; the two are added exactly and
  // rounded into block_format with block_rounding. Widths of 0..64.
  int sum_round_down_bits = 31;
  int addend_round_down_bits = 24;
  // after_products: the addend is dropped (counts as zero) when its nominal exponent is more
  // than this many binades below E. None = never (every addend is kept).
  std::optional<int> addend_drop_binades;
  // after_products: each block's products are split by their position j in the block into
  // product_split sums (j mod product_split), each aligned and truncated by frac_bits below its
  // own largest exponent; each sum is then rounded down to frac_bits below the largest of the
  // sums' exponents and they are added exactly. 1 = one sum (no split).
  int product_split = 1;
  // Zeros take part in the alignment: a zero operand (A, B, or the addend) has this nominal
  // exponent (a product's is the sum of its factors'), so a zero product can set a block's
  // largest exponent. None = a zero product or addend is no term (no effect on the alignment).
  std::optional<int> zero_operand_exponent;
  // A finite product whose magnitude is beyond block_format's range is ±Inf before the sum
  // (as an f32 product register would hold it), whatever the other terms are.
  bool products_overflow_to_inf = false;

  bool operator==(const DatapathParams&) const = default;
};

// The "exact" model: every term kept, one block, round to nearest even.
DatapathParams exact_params();

// Which instructions a rule applies to; empty fields match anything.
// f6f4: Blackwell's kind::f8f6f4 with an FP6/FP4 operand (or any kind::f8f6f4 on sm_120);
// mxf8f6f4 / mxf4 (mxf4 and mxf4nvf4): the block-scaled kinds. integer: s8/u8/s4/u4 inputs,
// exact (integer_mma.hpp; the rule's parameters are not read). f32: fp32 operands (AMD's
// v_mfma_*_f32).
enum class InputClass : std::uint8_t { f16, bf16, tf32, fp8, f6f4, mxf8f6f4, mxf4, integer, f32 };
InputClass input_class(const Instruction& in);
// "f16", "bf16", "tf32", "fp8", "f6f4", "mxf8f6f4", "mxf4", "int", "f32" (the model JSON's `inputs`).
const char* input_class_name(InputClass c);

// Device evidence for a rule: one GPU's corpus reproduced bit for bit, naming exactly the
// instructions it holds (tests/test_corpus_validations.cpp checks them against corpora/).
struct Validation {
  std::string gpu;                        // e.g. "A100 (sm_80)"
  std::string corpus;                     // folder under corpora/, e.g. "a100"
  std::vector<std::string> instructions;  // exactly the instructions that corpus holds
  bool normal_range_only = false;         // its cases have no zero, subnormal, infinite or NaN data
  bool operator==(const Validation&) const = default;
};

struct ModelRule {
  std::optional<Family> family;
  std::optional<InputClass> inputs;
  std::optional<Format> d_type;
  DatapathParams params;
  std::string source;   // evidence: paper, corpus, probe
  bool validated = false;  // confirmed on hardware: some device corpus covers this rule
  std::vector<Validation> validations;  // which GPUs and instructions (empty unless validated)
  // Sparse instructions only (true), dense only (false), or both (empty). A sparse rule's
  // parameters describe the datapath over the K/2 selected products (tcnum/core/sparse.hpp).
  std::optional<bool> sparse;
};

struct Model {
  std::string name;   // e.g. "sm_90"
  int sm = 0;
  std::string description;
  std::vector<ModelRule> rules;  // first match wins

  // Throws std::invalid_argument naming the instruction when no rule matches.
  const DatapathParams& params_for(const Instruction& in) const;
  const ModelRule& rule_for(const Instruction& in) const;  // the rule params_for uses
  // The device corpora that confirmed this exact instruction (by name) under its rule.
  std::vector<Validation> validations_for(const Instruction& in) const;
};

// "validated on A100 (sm_80) [corpora/a100, normal-range inputs only]; ..." or "not validated on a device".
std::string validation_summary(const std::vector<Validation>& v);

const Model& builtin_model(int sm);   // sm_70, 75, 80, 86, 89, 90, 100, 120

// The ranges model_from_json accepts (an error names the JSON path, e.g. rules[0].k_passes).
// The datapath relies on them: no overflow of k_passes * pass_interleave or of exponent sums.
struct ModelLimits {
  int frac_bits_min = 0, frac_bits_max = 688;  // the wide accumulator's reach
  int block_size_max = 1024;
  int k_passes_max = 64, pass_interleave_max = 64;
  int block_result_frac_bits_max = 52;
  int align_exponent_floor_abs_max = 100000;
  int scale_group_max = 64;
  int round_down_bits_max = 64;       // sum_round_down_bits, addend_round_down_bits
  int addend_drop_binades_max = 1000;
  int product_split_max = 16;
  int zero_operand_exponent_abs_max = 1000;
  int sm_max = 999;
};
inline constexpr ModelLimits kModelLimits{};

Model model_from_json(const std::string& text);  // throws std::invalid_argument with the reason
std::string model_to_json(const Model& m);
Model load_model_file(const std::string& path);

}  // namespace tcnum
