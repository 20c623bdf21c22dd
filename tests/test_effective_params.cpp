// effective_params(p, in) resets the fields of p that cannot change any result of `in` (fit and
// compare_models rely on it to call two models equal). Its laws, over parameters near the
// built-in models and every instruction of every architecture:
//  - it leaves mma_element's results unchanged, on the generators' distributions (which reach
//    truncation, cancellation, subnormals, overflow and specials) and on RapidCheck's cases;
//  - it is idempotent.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "tcnum/characterize/features.hpp"
#include "tcnum/core/dot.hpp"
#include "tcnum/core/instruction.hpp"
#include "tcnum/core/model.hpp"
#include "tcnum/fuzz/generators.hpp"
#include "test_support.hpp"

namespace {

using namespace tcnum;
using tcnum::features::effective_params;

struct ArchInstruction {
  int sm;
  Instruction in;
};

const std::vector<ArchInstruction>& every_instruction() {
  static const std::vector<ArchInstruction> all = [] {
    std::vector<ArchInstruction> v;
    // Blackwell's FP6/FP4 kind::f8f6f4 included (an unpack_format acts on FP6/FP4 subnormals
    // through C's low bits); the block-scaled kinds take scale vectors the generators' plain
    // cases and pick_case do not hold, and one pass without unpack_format (compile_plan).
    for (int sm : known_archs())
      for (const Instruction& in : instructions_for(sm))
        if (!in.block_scaled() && !in.integer()) v.push_back({sm, in});  // integer: exact, no parameters
    return v;
  }();
  return all;
}

using test::pick_params;

RC_GTEST_PROP(EffectiveParams, LeavesResultsUnchanged, ()) {
  const auto [sm, in] = *rc::gen::elementOf(every_instruction());
  const DatapathParams p = pick_params(in, sm);
  const DatapathParams e = effective_params(p, in);
  RC_TAG(in.name);
  RC_LOG() << in.name << "\n  given     " << features::params_text(p) << "\n  effective "
           << features::params_text(e) << "\n";
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  for (const std::string& dist : fuzz::distribution_names())
    for (const Case& g : fuzz::generate_cases(in, p, dist, 12, seed)) {
      const std::uint32_t given = mma_element(p, in, g.a, g.b, g.c), effective = mma_element(e, in, g.a, g.b, g.c);
      RC_ASSERT(test::hex(given) + " (" + dist + ")" == test::hex(effective) + " (" + dist + ")");
    }
  for (int i = 0; i < 4; ++i) {
    const Case pc = test::pick_case(in, *rc::gen::weightedElement<int>({{3, 0}, {1, 2}}));
    RC_ASSERT(test::hex(mma_element(p, in, pc.a, pc.b, pc.c)) == test::hex(mma_element(e, in, pc.a, pc.b, pc.c)));
  }
}

RC_GTEST_PROP(EffectiveParams, IsIdempotent, ()) {
  const auto [sm, in] = *rc::gen::elementOf(every_instruction());
  const DatapathParams e = effective_params(pick_params(in, sm), in);
  RC_ASSERT(features::params_text(effective_params(e, in)) == features::params_text(e));
  RC_ASSERT(effective_params(e, in) == e);
}

}  // namespace
