// numprobe's feature recipes and fit, run on the emulator: on every built-in model the fit
// must return that model's own parameters (self-consistency), and a deliberately perturbed
// model must be told apart from the built-in one and recovered exactly. A recipe that
// cannot tell two models apart fails here, in CI, without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "tcnum/characterize/features.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"

namespace {

using namespace tcnum;
using namespace tcnum::features;

// The emulator fit of the fit instructions of sm (or of `only`) under `model`.
Model fit_model(const Model& model, int sm, std::vector<InstructionFit>* fits_out = nullptr,
                const std::vector<Instruction>* only = nullptr) {
  std::vector<InstructionFit> fits;
  FitOptions opt;
  opt.random_cases = 60;
  opt.features.published = false;  // the published recipes are cross-checks; test_paper_recipes covers them
  for (const Instruction& in : only ? *only : fit_instructions(sm)) fits.push_back(fit_instruction(in, emulator_box(model), opt));
  Model m = assemble_model("sm_" + std::to_string(sm), sm, "fitted", fits, "test");
  if (fits_out) *fits_out = std::move(fits);
  return m;
}

std::string join(const std::vector<std::string>& v) {
  std::ostringstream os;
  for (const auto& s : v) os << "\n  " << s;
  return os.str();
}

class SelfConsistency : public ::testing::TestWithParam<int> {};

TEST_P(SelfConsistency, FitReturnsTheBuiltInModel) {
  const int sm = GetParam();
  const Model& builtin = builtin_model(sm);
  std::vector<InstructionFit> fits;
  const Model fitted = fit_model(builtin, sm, &fits);
  for (const auto& f : fits) {
    EXPECT_EQ(f.verified, f.verify_total) << f.instruction.name << join(f.issues);
    // Per instruction: the measured parameters act exactly as the built-in ones.
    EXPECT_EQ(effective_params(f.params, f.instruction), effective_params(builtin.params_for(f.instruction), f.instruction))
        << f.instruction.name;
    EXPECT_TRUE(f.measured.frac_bits && !f.measured.frac_bits_at_least) << f.instruction.name;
    EXPECT_TRUE(f.measured.block_size.has_value()) << f.instruction.name;
    EXPECT_TRUE(f.measured.addend.has_value()) << f.instruction.name;
    EXPECT_TRUE(f.measured.flush_subnormal_inputs.has_value()) << f.instruction.name;
  }
  // Per model: the same function on every instruction the fit covers (all of the architecture's
  // but Blackwell's FP6/FP4 and block-scaled kinds, which have no feature recipes yet).
  const auto diff = compare_models(fitted, builtin, fit_instructions(sm));
  EXPECT_TRUE(diff.empty()) << "sm_" << sm << " fitted vs built-in:" << join(diff) << "\nfitted:\n" << model_to_json(fitted);
}

// NVIDIA's: the feature recipes probe tensor-core features and know no after_products datapath
// (AMD's CDNA models, docs/models.md §10).
std::vector<int> nvidia_archs() {
  std::vector<int> v;
  for (int sm : known_archs())
    if (!is_amd_arch(sm)) v.push_back(sm);
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllBuiltInModels, SelfConsistency, ::testing::ValuesIn(nvidia_archs()),
                         [](const auto& info) { return "sm_" + std::to_string(info.param); });

// The built-in model without the rules that are kept for their documentation only: a rule
// whose parameters equal those of the rule every one of its instructions would match next.
Model without_redundant_rules(Model m, int sm) {
  for (std::size_t i = 0; i < m.rules.size();) {
    Model rest = m;
    rest.rules.erase(rest.rules.begin() + static_cast<std::ptrdiff_t>(i));
    bool redundant = !rest.rules.empty();
    for (const Instruction& in : instructions_for(sm)) {
      if (!redundant) break;
      const ModelRule& r = m.rules[i];
      const bool first_match = &m.params_for(in) == &r.params;
      if (!first_match) continue;
      try {
        redundant = rest.params_for(in) == r.params;
      } catch (const std::exception&) {
        redundant = false;
      }
    }
    if (redundant) m = rest;
    else ++i;
  }
  return m;
}

// The fitted sm_90 model has the built-in rule structure too (which rules, in which order);
// the parameters are compared as functions by compare_models.
TEST(SelfConsistency, Sm90RuleStructure) {
  const Model fitted = fit_model(builtin_model(90), 90);
  const Model builtin = without_redundant_rules(builtin_model(90), 90);
  // The same selectors (rules that do not overlap may come in any order); the parameters act alike.
  // The integer rule is not fitted: integer MMA is exact and reads no parameters (any rule that
  // matches computes it), so the fit leaves it out.
  auto selectors = [](const Model& m) {
    std::vector<std::string> v;
    for (const auto& r : m.rules)
      if (r.inputs != InputClass::integer)
        v.push_back(std::to_string(r.family ? static_cast<int>(*r.family) : -1) + "/" +
                  std::to_string(r.inputs ? static_cast<int>(*r.inputs) : -1) + "/" +
                  std::to_string(r.d_type ? static_cast<int>(*r.d_type) : -1));
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(selectors(fitted), selectors(builtin)) << model_to_json(fitted);
  EXPECT_TRUE(compare_models(fitted, builtin, 90).empty());
}

// ---------------------------------------------------------------------------------------
// Perturbed models: each changes one parameter of one rule; the fit must see the change.

enum class Which { catch_all, tf32, wgmma_fp8, mma_fp8, f16_d };

struct Perturbation {
  const char* name;
  int sm;
  Which rule;  // which rule of the built-in model is changed
  void (*apply)(DatapathParams&);
};

// Names the parameter in test output and ctest's test names (gtest would print its raw bytes).
void PrintTo(const Perturbation& p, std::ostream* os) { *os << p.name << " on sm_" << p.sm; }

std::size_t rule_index(const Model& m, Which w) {
  for (std::size_t i = 0; i < m.rules.size(); ++i) {
    const ModelRule& r = m.rules[i];
    switch (w) {
      case Which::catch_all:
        if (!r.family && !r.inputs && !r.d_type) return i;
        break;
      case Which::tf32:
        if (r.inputs == InputClass::tf32) return i;
        break;
      case Which::wgmma_fp8:
        if (r.family == Family::wgmma && r.inputs == InputClass::fp8) return i;
        break;
      case Which::mma_fp8:
        if (r.family == Family::mma && r.inputs == InputClass::fp8 && !r.d_type) return i;
        break;
      case Which::f16_d:
        if (r.inputs == InputClass::f16 && r.d_type == Format::fp16) return i;
        break;
    }
  }
  return m.rules.size();
}

const Perturbation kPerturbations[] = {
    {"F24_instead_of_25", 90, Which::catch_all, [](DatapathParams& p) { p.frac_bits = 24; }},
    {"Kb8_instead_of_16", 90, Which::catch_all, [](DatapathParams& p) { p.block_size = 8; }},
    {"tf32_Kb4", 90, Which::tf32, [](DatapathParams& p) { p.block_size = 4; }},
    {"F26", 90, Which::catch_all, [](DatapathParams& p) { p.frac_bits = 26; }},
    {"wgmma_fp8_F14", 90, Which::wgmma_fp8, [](DatapathParams& p) { p.frac_bits = 14; }},
    {"wgmma_fp8_Kb16", 90, Which::wgmma_fp8, [](DatapathParams& p) { p.block_size = 16; }},
    {"wgmma_fp8_no_cut", 90, Which::wgmma_fp8, [](DatapathParams& p) { p.block_result_frac_bits = 0; }},
    {"mma_fp8_one_pass", 90, Which::mma_fp8, [](DatapathParams& p) { p.k_passes = 1; }},
    {"mma_fp8_c_first", 90, Which::mma_fp8, [](DatapathParams& p) { p.addend = AddendEntry::first_block; }},
    {"mma_fp8_no_unpack", 90, Which::mma_fp8, [](DatapathParams& p) { p.unpack_format.reset(); }},
    {"block_rne", 90, Which::catch_all, [](DatapathParams& p) { p.block_rounding = Rounding::nearest_even; }},
    // Through fp32 RZ blocks the f16-D floor (quantum 2^-46) hides behind fp32's own ulp
    // (2^-46 at 2^-23), so this perturbation drops it too.
    {"f16_out_via_fp32", 90, Which::f16_d, [](DatapathParams& p) {
       p.output_direct = false;
       p.align_exponent_floor.reset();
     }},
    {"f16_out_rz", 90, Which::f16_d, [](DatapathParams& p) { p.output_rounding = Rounding::toward_zero; }},
    {"c_last", 90, Which::catch_all, [](DatapathParams& p) { p.addend = AddendEntry::last_block; }},
    {"c_ieee_add", 90, Which::catch_all, [](DatapathParams& p) { p.addend = AddendEntry::ieee_add; }},
    {"flush_subnormals", 90, Which::catch_all, [](DatapathParams& p) { p.flush_subnormal_inputs = true; }},
    {"saturate", 90, Which::catch_all, [](DatapathParams& p) { p.overflow_to_inf = false; }},
    {"negative_zeros", 90, Which::catch_all, [](DatapathParams& p) { p.negative_zero_results = true; }},
    {"no_floor", 90, Which::catch_all, [](DatapathParams& p) { p.align_exponent_floor.reset(); }},
    {"floor_minus_120", 90, Which::catch_all, [](DatapathParams& p) { p.align_exponent_floor = -120; }},
    {"f16_d_no_floor", 90, Which::f16_d, [](DatapathParams& p) { p.align_exponent_floor.reset(); }},
    {"ampere_F23", 80, Which::catch_all, [](DatapathParams& p) { p.frac_bits = 23; }},
    {"ampere_f16_blocks_fp32", 80, Which::f16_d, [](DatapathParams& p) {
       p.block_format = Format::fp32;
       p.block_rounding = Rounding::toward_zero;
     }},
    {"ampere_tf32_Kb8", 80, Which::tf32, [](DatapathParams& p) { p.block_size = 8; }},
    {"volta_Kb2", 70, Which::catch_all, [](DatapathParams& p) { p.block_size = 2; }},
};

class Perturbed : public ::testing::TestWithParam<Perturbation> {};

TEST_P(Perturbed, IsToldApartAndRecovered) {
  const Perturbation& pt = GetParam();
  Model perturbed = builtin_model(pt.sm);
  const std::size_t i = rule_index(perturbed, pt.rule);
  ASSERT_LT(i, perturbed.rules.size());
  pt.apply(perturbed.rules[i].params);
  ASSERT_FALSE(compare_models(perturbed, builtin_model(pt.sm), pt.sm).empty()) << "the perturbation changes nothing";
  // The instructions the changed rule governs (the whole-arch fit is SelfConsistency's job).
  std::vector<Instruction> governed;
  for (const Instruction& in : fit_instructions(pt.sm))
    if (&perturbed.params_for(in) == &perturbed.rules[i].params) governed.push_back(in);
  ASSERT_FALSE(governed.empty());
  const Model fitted = fit_model(perturbed, pt.sm, nullptr, &governed);
  EXPECT_FALSE(compare_models(fitted, builtin_model(pt.sm), governed).empty()) << "fit could not tell " << pt.name << " apart";
  const auto diff = compare_models(fitted, perturbed, governed);
  EXPECT_TRUE(diff.empty()) << pt.name << ":" << join(diff);
}

INSTANTIATE_TEST_SUITE_P(OneParameterEach, Perturbed, ::testing::ValuesIn(kPerturbations),
                         [](const auto& info) { return std::string(info.param.name); });

// The feature verdicts read the parameters back on single instructions.
TEST(FeatureReports, Sm90Bf16) {
  const Instruction in = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90);
  const auto reports = run_features(in, emulator_box(builtin_model(90)), feature_names());
  ASSERT_EQ(reports.size(), feature_names().size());
  auto fact = [&](const std::string& feature, const std::string& key) -> std::string {
    for (const auto& r : reports)
      if (r.feature == feature)
        for (const auto& f : r.facts)
          if (f.key == key) {
            if (auto* i = std::get_if<std::int64_t>(&f.value)) return std::to_string(*i);
            if (auto* b = std::get_if<bool>(&f.value)) return *b ? "true" : "false";
            return std::get<std::string>(f.value);
          }
    return "<missing>";
  };
  EXPECT_EQ(fact("align", "frac_bits"), "25");
  EXPECT_EQ(fact("blocksize", "block_size"), "16");
  EXPECT_EQ(fact("order", "addend"), "first_block");
  EXPECT_EQ(fact("product", "products_exact"), "true");
  EXPECT_EQ(fact("carry", "carries_kept"), "true");
  EXPECT_EQ(fact("round", "block_rounding"), "rz");
  EXPECT_EQ(fact("subnormal", "subnormal_a"), "kept");
  EXPECT_EQ(fact("special", "overflow"), "inf");
  EXPECT_EQ(fact("special", "nan_pattern"), "0x7fffffff");
  EXPECT_EQ(fact("monotonic", "monotone_on_probes"), "false");
  EXPECT_EQ(fact("normalize", "normalised_inside_block"), "no");
  for (const auto& r : reports) {
    EXPECT_TRUE(r.anomalies.empty()) << r.feature << ": " << join(r.anomalies);
    EXPECT_FALSE(r.verdict.empty()) << r.feature;
    for (const auto& v : r.published) EXPECT_TRUE(v.applicable) << v.recipe;
  }
}

}  // namespace
