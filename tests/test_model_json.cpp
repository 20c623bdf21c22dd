// Model files: every number is an integer in its stated range, every value has its JSON type,
// and every error is a std::invalid_argument naming the JSON path. Hostile files (issue 14)
// used to wrap, overflow later in the datapath (SIGFPE, UB) or throw json exceptions.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "tcnum/core/model.hpp"

using namespace tcnum;

namespace {

std::string one_rule(const std::string& fields) { return R"({"name":"x","rules":[{)" + fields + "}]}"; }

// The error text of loading `text`, or "" when it loads (any other exception type fails the test).
std::string load_error(const std::string& text) {
  try {
    model_from_json(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ModelJson, OutOfRangeOrWrongTypeNumbersNameTheirPath) {
  const std::pair<std::string, std::string> cases[] = {
      {one_rule(R"("k_passes":65536,"pass_interleave":65536)"), "rules[0].k_passes"},
      {one_rule(R"("k_passes":2147483647,"pass_interleave":2)"), "rules[0].k_passes"},
      {one_rule(R"("k_passes":0)"), "rules[0].k_passes"},
      {one_rule(R"("pass_interleave":65)"), "rules[0].pass_interleave"},
      {one_rule(R"("frac_bits":4294967320)"), "rules[0].frac_bits"},
      {one_rule(R"("frac_bits":689)"), "rules[0].frac_bits"},
      {one_rule(R"("frac_bits":-1)"), "rules[0].frac_bits"},
      {one_rule(R"("frac_bits":24.5)"), "rules[0].frac_bits"},
      {one_rule(R"("frac_bits":true)"), "rules[0].frac_bits"},
      {one_rule(R"("frac_bits":"24")"), "rules[0].frac_bits"},
      {one_rule(R"("block_size":-1)"), "rules[0].block_size"},
      {one_rule(R"("block_size":1025)"), "rules[0].block_size"},
      {one_rule(R"("block_result_frac_bits":2147483647)"), "rules[0].block_result_frac_bits"},
      {one_rule(R"("align_exponent_floor":2147483647)"), "rules[0].align_exponent_floor"},
      {one_rule(R"("align_exponent_floor":-2147483648)"), "rules[0].align_exponent_floor"},
      {one_rule(R"("output_direct":1)"), "rules[0].output_direct"},
      {one_rule(R"("block_rounding":7)"), "rules[0].block_rounding"},
      {one_rule(R"("source":3)"), "rules[0].source"},
      {one_rule(R"("validated":"yes")"), "rules[0].validated"},
      {R"({"name":"x","sm":1e90,"rules":[{}]})", "sm"},
      {R"({"name":"x","sm":true,"rules":[{}]})", "sm"},
      {R"({"name":"x","sm":-90,"rules":[{}]})", "sm"},
      {R"({"name":7,"rules":[{}]})", "name"},
      {R"({"name":"x","rules":{}})", "rules"},
      {R"({"name":"x","rules":[3]})", "rules[0]"},
      {R"({"name":"x","rules":[{}, {"frac_bits":1e3}]})", "rules[1].frac_bits"},
      {R"([1,2])", "top level"},
      {R"({"name":"x","sm":1e309,"rules":[{}]})", "model JSON"},
  };
  for (const auto& [text, path] : cases) {
    std::string why;
    EXPECT_NO_THROW(why = load_error(text)) << text;  // only std::invalid_argument may escape
    EXPECT_NE(why.find(path), std::string::npos) << text << "\nwhy: " << why;
  }
}

TEST(ModelJson, TheStatedBoundsAreAccepted) {
  const Model m = model_from_json(one_rule(
      R"("frac_bits":688,"block_size":1024,"k_passes":64,"pass_interleave":64,"block_result_frac_bits":52,)"
      R"("align_exponent_floor":-100000)"));
  const DatapathParams& p = m.rules.at(0).params;
  EXPECT_EQ(p.frac_bits, kModelLimits.frac_bits_max);
  EXPECT_EQ(p.block_size, kModelLimits.block_size_max);
  EXPECT_EQ(p.k_passes * p.pass_interleave, 64 * 64);
  EXPECT_EQ(p.block_result_frac_bits, 52);
  EXPECT_EQ(p.align_exponent_floor, -100000);
  EXPECT_EQ(load_error(one_rule(R"("frac_bits":0,"block_size":0,"align_exponent_floor":100000)")), "");
}

TEST(ModelJson, EveryBuiltinModelRoundTrips) {
  for (int sm : {70, 75, 80, 86, 89, 90, 100}) {
    const Model& m = builtin_model(sm);
    const Model back = model_from_json(model_to_json(m));
    ASSERT_EQ(back.rules.size(), m.rules.size()) << sm;
    for (std::size_t i = 0; i < m.rules.size(); ++i) EXPECT_EQ(back.rules[i].params, m.rules[i].params) << sm;
  }
}
