// Feature tests on sparse and integer instructions. A sparse instruction's tests run on its
// selected products (selected_products_box): on the built-in models every test must read of it
// exactly what it reads of its selected form evaluated directly under the same parameters (a
// misplaced B row, a wrong metadata pattern or an unselected row that leaks would change the
// readings), and what it reads of the dense instruction of the same types at K/2. Integer
// instructions have nothing to read; the fit refuses both kinds, saying why.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "arch_instruction.hpp"
#include "tcnum/characterize/features.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/core/sparse.hpp"

namespace {

using namespace tcnum;
using namespace tcnum::features;

// One sparse floating-point form per (family, A type, D type, K) of every architecture, its smallest N.
std::vector<test::ArchInstruction> sparse_targets() {
  std::vector<test::ArchInstruction> v;
  for (int sm : {80, 89, 90, 100, 120}) {
    std::set<std::tuple<Family, Format, Format, int>> seen;
    for (const Instruction& in : sparse_instructions_for(sm))
      if (!in.integer() && seen.insert({in.family, in.a_type, in.d_type, in.k}).second) v.push_back({sm, in});
  }
  return v;
}

// What a report decided, as text: its facts, and whether it ran.
std::map<std::string, std::string> readings(const std::vector<FeatureReport>& reports) {
  std::map<std::string, std::string> out;
  for (const FeatureReport& r : reports) {
    std::string s = r.applicable ? "ran" : "n/a";
    for (const Fact& f : r.facts) {
      if (f.key == "selected_products") continue;  // the sparse run's own note
      s += "; " + f.key + "=";
      std::visit([&](const auto& x) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>) s += x;
        else s += std::to_string(x);
      }, f.value);
    }
    out[r.feature] = s;
  }
  return out;
}

class SparseFeatures : public ::testing::TestWithParam<test::ArchInstruction> {};

TEST_P(SparseFeatures, ReadTheSelectedFormsDatapath) {
  const auto& [sm, in] = GetParam();
  const Model& model = builtin_model(sm);
  const DatapathParams& p = model.params_for(in);
  FeatureOptions opt;
  opt.reference = &p;
  opt.published = false;
  const auto sparse = run_features(in, emulator_box(model), feature_names(), opt);
  const auto direct = run_features(selected_form(in), emulator_box(p), feature_names(), opt);
  EXPECT_EQ(readings(sparse), readings(direct));
  int applicable = 0;
  for (const FeatureReport& r : sparse) {
    EXPECT_EQ(r.instruction, in.name);
    EXPECT_TRUE(r.anomalies.empty()) << r.feature << ": " << r.anomalies.front();
    if (!r.applicable) continue;
    ++applicable;
    for (const ProbeRow& row : r.probes) EXPECT_TRUE(row.agrees) << r.feature << ": " << row.label;
  }
  EXPECT_GE(applicable, 3);
}

INSTANTIATE_TEST_SUITE_P(BuiltinModels, SparseFeatures, ::testing::ValuesIn(sparse_targets()));

// The rule docs/models.md §9 states, read by the tests: Hopper's sparse bf16 mma reads as the
// dense bf16 mma of half its K.
TEST(SparseFeatures, HopperSparseBf16ReadsAsTheDenseInstructionOfHalfItsK) {
  const Model& model = builtin_model(90);
  const Instruction sparse = find_instruction("mma.sp::ordered_metadata.m16n8k32.f32.bf16.bf16.f32", 90);
  const Instruction dense = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90);
  FeatureOptions opt;
  opt.published = false;
  EXPECT_EQ(readings(run_features(sparse, emulator_box(model), feature_names(), opt)),
            readings(run_features(dense, emulator_box(model), feature_names(), opt)));
}

TEST(SparseFeatures, TheBoxAnswersOnlyTheSelectedForm) {
  const Model& model = builtin_model(90);
  const Instruction sparse = find_instruction("mma.sp::ordered_metadata.m16n8k32.f32.bf16.bf16.f32", 90);
  const Instruction dense = find_instruction("mma.m16n8k16.f32.bf16.bf16.f32", 90);
  EXPECT_THROW(selected_products_box(dense, emulator_box(model)), std::invalid_argument);
  const BlackBox view = selected_products_box(sparse, emulator_box(model));
  const Case wrong_size{std::vector<std::uint32_t>(32, 0x3f80), std::vector<std::uint32_t>(32, 0x3f80), 0, {}, {}, {}};
  EXPECT_THROW(view.cases(sparse, std::vector<Case>{wrong_size}), std::invalid_argument);
  const Case one{std::vector<std::uint32_t>(16, 0x3f80), std::vector<std::uint32_t>(16, 0x3f80), 0, {}, {}, {}};
  EXPECT_EQ(view.cases(selected_form(sparse), std::vector<Case>{one}), std::vector<std::uint32_t>{0x41800000u});  // 16.0f
}

TEST(IntegerFeatures, SayTheyDoNotApplyAndTheFitRefusesThem) {
  const Model& model = builtin_model(90);
  const Instruction in = find_instruction("mma.m16n8k32.s32.s8.s8.s32", 90);
  const auto reports = run_features(in, emulator_box(model), feature_names());
  ASSERT_EQ(reports.size(), feature_names().size());
  for (const FeatureReport& r : reports) {
    EXPECT_FALSE(r.applicable) << r.feature;
    EXPECT_NE(r.verdict.find("exact"), std::string::npos) << r.verdict;
  }
  EXPECT_THROW(fit_instruction(in, emulator_box(model)), std::invalid_argument);
  const Instruction sparse = find_instruction("mma.sp::ordered_metadata.m16n8k32.f32.bf16.bf16.f32", 90);
  try {
    fit_instruction(sparse, emulator_box(model));
    ADD_FAILURE() << "the fit of a sparse instruction did not throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("numprobe features --instr"), std::string::npos) << e.what();
  }
}

}  // namespace
